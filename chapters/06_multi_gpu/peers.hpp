// What the benchmark sets beside chapter 6's steps: its peers (a step's compute without its
// exchange, the exchange without compute) and its two experiments, which re-plumb step 04's
// exchange (bench_multi_gpu --all). They are built from the steps' own pieces (steps.hpp, parts.hpp),
// so in a student's build they run the student's halves and exchanges. The tests check the
// experiments as they check step 04: against the float64 leapfrog, under many orders of the
// streams' work. The peers' results are not checked (the compute alone never fills the z halos,
// the exchange alone updates nothing): only their times mean anything.
#pragma once

#include <memory>

#include "team.hpp"

namespace ch06::peers {

// "compute only": the leapfrog and the x and y images on every slab, one stream, no exchange.
std::unique_ptr<Propagator> make_compute_only(Crew& crew, int rank);
// "split compute only": step 04's launches (boundary, then interior, on two streams with its
// events) without the exchange, so that step 04's time less this one is what its exchange costs.
std::unique_ptr<Propagator> make_split_compute_only(Crew& crew, int rank);
// "exchange only (NCCL)": step 03's exchange alone, every step on the same field.
std::unique_ptr<Propagator> make_exchange_only_nccl(Crew& crew, int rank);
// "exchange only (peer copies)": step 02's handshake and pulls alone, the exchange of the
// copy-engine experiment below.
std::unique_ptr<Propagator> make_exchange_only_peer_copies(Crew& crew, int rank);

// The experiments.
//   "overlap by peer copies": step 04 with step 02's handshake and pulls in place of NCCL, all on
//   the boundary stream. The copy engines move the halos, so no multiprocessor is taken from the
//   interior and none has to be freed for NCCL's kernels; were that why step 04 hides little of
//   its exchange, this one hides more.
std::unique_ptr<Propagator> make_overlap_peer_copies(Crew& crew, int rank);
//   "overlap, interior after the boundary": step 04 with the interior waiting for this step's
//   boundary, not the last one's. The boundary's end then releases NCCL's kernels and the interior
//   together, and the high priority lets NCCL's blocks onto the multiprocessors first, at the
//   boundary's cost (no longer under the interior).
std::unique_ptr<Propagator> make_overlap_interior_after_boundary(Crew& crew, int rank);

}  // namespace ch06::peers
