// Generated from solutions/06_multi_gpu/01_host_staging.cu by exercises/generate.py (fingerprint 3dec27d89cd5): edit the TODOs.
// Step 01 — z slabs, halos through the host.
//
// Each rank owns a slab of whole planes and keeps R = 4 halo planes above and below it. After
// each step its bottom and top R planes go to its neighbours' halos, the way a code without
// any GPU-to-GPU path does it: copied to pinned host memory, exchanged between the hosts' buffers
// (Team::exchange_host: MPI_Sendrecv between processes, a copy after a barrier between threads),
// copied from the received buffers into the halos, which the host waits for before its buffers
// can take the next step's planes.
// The bound: per step and rank 4 messages of R planes, 2 out and 2 in: a plane of a 512^2 slab
// is 520 x 520 floats with its halo and padding, 1.08 MB, so 4.3 MB a message, 17 MB a step.
// Over PCIe (Gen5 x16: about 50 GB/s each way, to be measured) the copies out take 0.17 ms and
// the copies in 0.17 ms after them, plus a synchronize and a barrier; none of it is hidden.
// Predicted: weak scaling at 512^3 per GPU, 0.59 ms of compute + 0.35 ms of exchange:
// efficiency about 0.6 at every count (one rank exchanges with itself the same way); strong
// scaling at 1024^3 falls further as the slabs thin and the exchange stays the same size.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 6 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "course/exercise.hpp"
#include "steps.hpp"

namespace ch06 {
namespace {

class HostStaging final : public Propagator {
 public:
  HostStaging(Crew& crew, int rank) : team_(crew.team()), slab_(crew.team().slab(rank)), problem_(crew.team().problem()) {
    for (float*& planes : staged_) GPU_CHECK(gpuMallocHost(&planes, halo_floats(slab_.grid) * sizeof(float)));
  }
  ~HostStaging() override {
    for (float* planes : staged_) report_if_failed(gpuFreeHost(planes), "gpuFreeHost");
  }

  void advance(int steps) override {
    advance_on_one_stream(slab_, problem_, steps, stream_, [this](int b) { refresh_halos(slab_.field[b]); });
  }

 private:
  enum Buffer { kBottom, kTop, kBelow, kAbove };

  void refresh_halos(float* v) {
    wrap_xy(v, slab_.grid, all_planes(slab_.grid), stream_);
    exchange_through_host(v);
  }

  // v's bottom and top R planes to the host, exchanged with the neighbours', theirs into v's halos.
  void exchange_through_host(float* v) {
    // TODO: copy v's bottom and top planes into staged_[kBottom] and staged_[kTop] (device to host, on stream_) and wait for them; team_.exchange_host(slab_.rank, ...) sends them down and up and receives the neighbours' into staged_[kBelow] and staged_[kAbove]; copy those into v's below and above halos (host to device) and wait for them, as the next exchange overwrites the buffers
    (void)v; (void)team_; throw course::NotImplemented(__FILE__);
  }

  Team& team_;
  Slab& slab_;
  const Problem& problem_;
  Stream stream_;
  float* staged_[4] = {};  // pinned host buffers: this rank's planes out, its neighbours' in (Buffer)
};

}  // namespace

std::unique_ptr<Propagator> make_host_staging(Crew& crew, int rank) { return std::make_unique<HostStaging>(crew, rank); }

}  // namespace ch06
