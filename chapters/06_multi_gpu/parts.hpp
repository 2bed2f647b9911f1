// The parts of chapter 6's exercises that a test checks on their own (course::register_part_test in
// test_multi_gpu.cpp): each is a function of its step's file, written by the student as one or
// more parts of that step, and declared here so that a wrong part fails a test that names it
// before the whole step's tests run. Each exchange is checked alone against the halos it must
// fill, on random fields, without a time step.
#pragma once

#include <array>

#include "team.hpp"

namespace ch06::parts {

// Step 01, parts 1 to 3 (01_host_staging.cu, exchange_through_host): v's bottom and top R planes
// copied to the pinned host buffers staged[kBottom] and staged[kTop] (part 1), exchanged with the
// neighbours' by team.exchange_host into staged[kBelow] and staged[kAbove] (part 2), and copied
// from there into v's below and above halos (part 3); returns once the halos hold them.
enum Staged { kBottom, kTop, kBelow, kAbove };
void exchange_through_host(Team& team, const Slab& slab, float* v, const std::array<float*, 4>& staged, gpuStream_t stream);

// Step 02, part 2 (02_peer_copies.cu, pull_halos): field b's halos pulled by peer copies from the
// same field of the neighbours, {below, above} as Team::open_neighbours returns them: the one
// below's top planes into the below halo, the one above's bottom planes into the above halo.
// Queued on `stream`, not synchronised.
void pull_halos(const Slab& slab, int b, const std::array<Team::Window, 2>& neighbours, gpuStream_t stream);

// Step 03, part 1 (03_nccl.cu, halo_messages): the four messages of the exchange of field v, R
// planes each, in the order exchange_nccl posts them: the sends (v's planes and the rank they go
// to) and the receives (v's halo and the rank it comes from). NCCL pairs the k-th send from rank A
// to rank B with B's k-th receive from A, which decides where the planes land when both
// neighbours are one rank (two ranks) or the rank itself (one).
struct Message {
  float* planes;
  int peer;
};
struct HaloMessages {
  std::array<Message, 2> sends, receives;
};
HaloMessages halo_messages(const Slab& slab, float* v);

}  // namespace ch06::parts
