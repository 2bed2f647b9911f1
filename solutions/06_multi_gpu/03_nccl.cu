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
//   NVIDIA H100 80GB HBM3 (commit 1ab8094ed146, 2026-11-24):
//     03_nccl x1  strong 1024^3       135.2627 ms (20 time steps), 1905 GB/s (0.636 of copy), 159 GLUP/s
//     03_nccl x1  weak 512^3 per GPU  17.0180 ms (20 time steps), 1893 GB/s (0.632 of copy), 158 GLUP/s
//   NVIDIA H200 (commit 3f9e2b78de20, 2026-11-27):
//     03_nccl x1  strong 1024^3       72.8058 ms (20 time steps), 3540 GB/s (0.837 of copy), 295 GLUP/s
//     03_nccl x2  strong 1024^3       39.4408 ms (20 time steps), 3267 GB/s (0.773 of copy), 544 GLUP/s
//     03_nccl x1  weak 512^3 per GPU  9.7443 ms (20 time steps), 3306 GB/s (0.782 of copy), 275 GLUP/s
//     03_nccl x2  weak 512^3 per GPU  10.7888 ms (20 time steps), 2986 GB/s (0.706 of copy), 498 GLUP/s
// END MEASURED
#include "course/exercise.hpp"
#include "steps.hpp"

namespace ch06 {

void exchange_nccl(const Slab& slab, float* v, ncclComm_t comm, gpuStream_t stream) {
  // BEGIN SOLUTION: in one group: send v's top planes to the rank above and its bottom planes to the rank below, then receive the below halo from the rank below and the above halo from the rank above (halo_floats(g) floats each); the order of sends and of receives is what pairs them
  const Grid& g = slab.grid;
  const std::size_t count = halo_floats(g);
  GPU_CHECK(ncclGroupStart());
  GPU_CHECK(ncclSend(top_planes(v, g), count, ncclFloat, slab.up(), comm, stream));
  GPU_CHECK(ncclSend(bottom_planes(v, g), count, ncclFloat, slab.down(), comm, stream));
  GPU_CHECK(ncclRecv(below_halo(v, g), count, ncclFloat, slab.down(), comm, stream));
  GPU_CHECK(ncclRecv(above_halo(v, g), count, ncclFloat, slab.up(), comm, stream));
  GPU_CHECK(ncclGroupEnd());
  // STUB: (void)slab; (void)v; (void)comm; (void)stream; throw course::NotImplemented(__FILE__);
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
