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
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit 1ab8094ed146, 2026-11-24):
//     01_host_staging x1  strong 1024^3       161.2899 ms (20 time steps), 1598 GB/s (0.534 of copy), 133 GLUP/s
//     01_host_staging x1  weak 512^3 per GPU  24.0044 ms (20 time steps), 1342 GB/s (0.448 of copy), 112 GLUP/s
//   NVIDIA H200 (commit 3f9e2b78de20, 2026-11-27):
//     01_host_staging x1  strong 1024^3       193.8591 ms (20 time steps), 1329 GB/s (0.314 of copy), 111 GLUP/s
//     01_host_staging x2  strong 1024^3       153.5764 ms (20 time steps), 839 GB/s (0.198 of copy), 140 GLUP/s
//     01_host_staging x1  weak 512^3 per GPU  32.8432 ms (20 time steps), 981 GB/s (0.232 of copy), 82 GLUP/s
//     01_host_staging x2  weak 512^3 per GPU  33.5893 ms (20 time steps), 959 GB/s (0.227 of copy), 160 GLUP/s
// END MEASURED
// BEGIN FINDINGS
// Measured on one rank (against step 00's): 0.347 ms more a step at 512^3 on the H100,
// 0.344 on the H200, as predicted; efficiency 0.71 and 0.68, above 0.6 because step 00 is
// slower than predicted.
// END FINDINGS
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
    // BEGIN SOLUTION: copy v's bottom and top planes into staged_[kBottom] and staged_[kTop] (device to host, on stream_) and wait for them; team_.exchange_host(slab_.rank, ...) sends them down and up and receives the neighbours' into staged_[kBelow] and staged_[kAbove]; copy those into v's below and above halos (host to device) and wait for them, as the next exchange overwrites the buffers
    const Grid& g = slab_.grid;
    const std::size_t bytes = halo_floats(g) * sizeof(float);
    GPU_CHECK(gpuMemcpyAsync(staged_[kBottom], bottom_planes(v, g), bytes, gpuMemcpyDeviceToHost, stream_));
    GPU_CHECK(gpuMemcpyAsync(staged_[kTop], top_planes(v, g), bytes, gpuMemcpyDeviceToHost, stream_));
    GPU_CHECK(gpuStreamSynchronize(stream_));
    team_.exchange_host(slab_.rank, staged_[kBottom], staged_[kTop], staged_[kBelow], staged_[kAbove], halo_floats(g));
    GPU_CHECK(gpuMemcpyAsync(below_halo(v, g), staged_[kBelow], bytes, gpuMemcpyHostToDevice, stream_));
    GPU_CHECK(gpuMemcpyAsync(above_halo(v, g), staged_[kAbove], bytes, gpuMemcpyHostToDevice, stream_));
    GPU_CHECK(gpuStreamSynchronize(stream_));
    // STUB: (void)v; (void)team_; throw course::NotImplemented(__FILE__);
    // END SOLUTION
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
