// Generated from solutions/06_multi_gpu/03_nccl.cu by exercises/generate.py (fingerprint 7c6f315c6b3b): edit the TODOs.
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
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 6 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "course/exercise.hpp"
#include "steps.hpp"

namespace ch06 {

void exchange_nccl(const Slab& slab, float* v, ncclComm_t comm, gpuStream_t stream) {
  // TODO: in one group: send v's top planes to the rank above and its bottom planes to the rank below, then receive the below halo from the rank below and the above halo from the rank above (halo_floats(g) floats each); the order of sends and of receives is what pairs them
  (void)slab; (void)v; (void)comm; (void)stream; throw course::NotImplemented(__FILE__);
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
