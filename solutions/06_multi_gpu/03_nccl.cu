// Step 03 — NCCL: sends and receives in a group.
//
// The exchange as NCCL point-to-point calls on the rank's stream: each rank sends its bottom R
// planes down and its top R planes up and receives its two halos, four calls in one group
// (ncclGroupStart/End), so that no rank waits for a send to finish before posting its receive.
// NCCL matches a send with the receive of the same pair of ranks in order, moves the data over
// the fastest path it finds (NVLink here), and orders it with the rest of each stream: the
// events and the barrier of step 02 are gone. The host only queues work; nothing is waited for
// until advance() ends. With one rank, both neighbours are the rank itself; with two, both are
// the other rank, and the order of the calls decides which planes go where: the first receive
// from a rank takes its first send to this one.
// The bound: step 02's, through NCCL's kernels, which copy over NVLink from the SMs they take
// (a few of the 132) while the leapfrog kernel waits for them on the same stream.
// Predicted: about step 02's times, a little slower for small messages (NCCL's launch and
// protocol), faster where step 02's barrier cost more than NCCL's kernel launch.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit 5d5e4fe, 2026-11-28):
//     03_nccl x1  strong 1024^3       105.5745 ms (20 time steps), 2441 GB/s (0.814 of copy), 203 GLUP/s
//     03_nccl x2  strong 1024^3       56.3068 ms (20 time steps), 2288 GB/s (0.763 of copy), 381 GLUP/s
//     03_nccl x4  strong 1024^3       29.3980 ms (20 time steps), 2191 GB/s (0.731 of copy), 730 GLUP/s
//     03_nccl x1  weak 512^3 per GPU  13.7936 ms (20 time steps), 2335 GB/s (0.779 of copy), 195 GLUP/s
//     03_nccl x2  weak 512^3 per GPU  15.1296 ms (20 time steps), 2129 GB/s (0.710 of copy), 355 GLUP/s
//     03_nccl x4  weak 512^3 per GPU  14.9760 ms (20 time steps), 2151 GB/s (0.717 of copy), 717 GLUP/s
//   NVIDIA H200 (commit c81c09d, 2026-11-27):
//     03_nccl x1  strong 1024^3       72.7079 ms (20 time steps), 3544 GB/s (0.841 of copy), 295 GLUP/s
//     03_nccl x2  strong 1024^3       39.4973 ms (20 time steps), 3262 GB/s (0.774 of copy), 544 GLUP/s
//     03_nccl x4  strong 1024^3       21.3307 ms (20 time steps), 3020 GB/s (0.716 of copy), 1007 GLUP/s
//     03_nccl x1  weak 512^3 per GPU  9.6953 ms (20 time steps), 3322 GB/s (0.788 of copy), 277 GLUP/s
//     03_nccl x2  weak 512^3 per GPU  10.8127 ms (20 time steps), 2979 GB/s (0.707 of copy), 497 GLUP/s
//     03_nccl x4  weak 512^3 per GPU  10.7257 ms (20 time steps), 3003 GB/s (0.712 of copy), 1001 GLUP/s
// END MEASURED
// Your parts: the plan of the four messages (parts::halo_messages) and the exchange that posts
// them in one group (exchange_nccl), each tested on its own. The time loop is given.
#include "course/exercise.hpp"
#include "parts.hpp"
#include "steps.hpp"

namespace ch06 {

parts::HaloMessages parts::halo_messages(const Slab& slab, float* v) {
  const Grid& g = slab.grid;
  // BEGIN SOLUTION: part 1 of 2, the halo plan: two sends, v's top planes (top_planes) to the rank above (slab.up()) and its bottom planes (bottom_planes) to the rank below (slab.down()); two receives, the below halo (below_halo) from the rank below and the above halo (above_halo) from the rank above. Order them so that NCCL's pairing (the k-th send from A to B meets B's k-th receive from A) puts every message in the right halo, even when the rank above and the rank below are the same rank (two ranks) or this rank (one): with two ranks, follow each rank's first send to the other's first receive. Invariant: the rank below's top planes land in your below halo, the rank above's bottom planes in your above halo. Mistake to avoid: sending the bottom planes to the rank above, or the receives' peers in the same order as the sends': the k-th receive must be the halo that your k-th send fills on the neighbour, so top planes up first pairs with below halo from down first, and the peers come in opposite orders (up, down against down, up); otherwise, with two ranks, the halos swap.
  HaloMessages plan;
  plan.sends = {Message{top_planes(v, g), slab.up()}, Message{bottom_planes(v, g), slab.down()}};
  plan.receives = {Message{below_halo(v, g), slab.down()}, Message{above_halo(v, g), slab.up()}};
  return plan;
  // STUB: (void)g; (void)v; throw course::NotImplemented(__FILE__);
  // END SOLUTION
}

void exchange_nccl(const Slab& slab, float* v, ncclComm_t comm, gpuStream_t stream) {
  const parts::HaloMessages plan = parts::halo_messages(slab, v);
  const std::size_t count = halo_floats(slab.grid);
  // BEGIN SOLUTION: part 2 of 2, the group: between ncclGroupStart() and ncclGroupEnd(), an ncclSend of each of plan.sends and then an ncclRecv of each of plan.receives, in the plan's order, `count` floats (ncclFloat) each, to or from the message's peer, on `comm` and `stream`; every call checked with GPU_CHECK. Invariant: the calls inside a group are only queued, and NCCL starts them together at ncclGroupEnd, so no rank's send waits for a receive it has not posted yet. Mistake to avoid: the calls outside a group: each rank's first send then waits for its neighbour's receive, which the neighbour posts only after its own send: a deadlock (the CPU backend names the call that waits).
  GPU_CHECK(ncclGroupStart());
  for (const parts::Message& send : plan.sends) GPU_CHECK(ncclSend(send.planes, count, ncclFloat, send.peer, comm, stream));
  for (const parts::Message& receive : plan.receives) GPU_CHECK(ncclRecv(receive.planes, count, ncclFloat, receive.peer, comm, stream));
  GPU_CHECK(ncclGroupEnd());
  // STUB: (void)plan; (void)count; (void)comm; (void)stream; throw course::NotImplemented(__FILE__);
  // END SOLUTION
}

namespace {

class Nccl final : public Propagator {
 public:
  Nccl(Crew& crew, int rank)
      : slab_(crew.team().slab(rank)), problem_(crew.team().problem()), comm_(crew.team().comm(rank)) {}

  void advance(int steps) override {
    advance_on_one_stream(slab_, problem_, steps, stream_, [this](int b) {
      wrap_xy(slab_.field[b], slab_.grid, all_planes(slab_.grid), stream_);
      exchange_nccl(slab_, slab_.field[b], comm_, stream_);
    });
  }

 private:
  Slab& slab_;
  const Problem& problem_;
  ncclComm_t comm_;
  Stream stream_;
};

}  // namespace

std::unique_ptr<Propagator> make_nccl(Crew& crew, int rank) { return std::make_unique<Nccl>(crew, rank); }

}  // namespace ch06
