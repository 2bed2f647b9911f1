// Step 01 — z slabs, halos through the host.
//
// Each rank owns a slab of whole planes and keeps R = 4 halo planes above and below it. After
// each step its bottom and top R planes go to its neighbours' halos, the way a code without
// any GPU-to-GPU path does it: copied to pinned host memory, a host barrier so that every rank's
// planes are there, copied from the neighbours' host buffers into the halos. The host buffers
// are double-buffered by the step's parity, so one barrier per step is enough: a rank writes
// buffer p again two steps later, after the next barrier, which its neighbours reach only once
// their stream has finished reading it.
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
//   NVIDIA H200 (commit a05470f7035c, 2026-11-24):
//     01_host_staging x1  strong 1024^3       137.9432 ms (20 time steps), 1868 GB/s (0.449 of copy), 156 GLUP/s
//     01_host_staging x2  strong 1024^3       85.1085 ms (20 time steps), 1514 GB/s (0.364 of copy), 252 GLUP/s
//     01_host_staging x1  weak 512^3 per GPU  21.2768 ms (20 time steps), 1514 GB/s (0.364 of copy), 126 GLUP/s
//     01_host_staging x2  weak 512^3 per GPU  21.8016 ms (20 time steps), 1478 GB/s (0.355 of copy), 246 GLUP/s
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
  HostStaging(Crew& crew, int rank) : crew_(crew), slab_(crew.team().slab(rank)), problem_(crew.team().problem()) {
    for (auto& parity : outgoing_)
      for (float*& planes : parity) GPU_CHECK(gpuMallocHost(&planes, halo_floats(slab_.grid) * sizeof(float)));
  }
  ~HostStaging() override {
    for (auto& parity : outgoing_)
      for (float* planes : parity) report_if_failed(gpuFreeHost(planes), "gpuFreeHost");
  }

  void advance(int steps) override {
    advance_on_one_stream(slab_, problem_, steps, stream_, [this](int b) { refresh_halos(slab_.field[b]); });
  }

 private:
  enum Side { kBottom, kTop };

  void refresh_halos(float* v) {
    wrap_xy(v, slab_.grid, all_planes(slab_.grid), stream_);
    exchange_through_host(v);
    parity_ = 1 - parity_;
  }

  // v's bottom and top R planes to this rank's host buffers of this parity; then, once every
  // rank has done so, the neighbours' buffers into v's halos.
  void exchange_through_host(float* v) {
    // BEGIN SOLUTION: copy v's bottom and top planes into outgoing_[parity_] (device to host, on stream_), wait for them, team barrier, then copy the lower neighbour's top planes into v's below halo and the upper neighbour's bottom planes into its above halo (host to device); crew_.mate<HostStaging>(rank).outgoing_ is another rank's
    const Grid& g = slab_.grid;
    const std::size_t bytes = halo_floats(g) * sizeof(float);
    GPU_CHECK(gpuMemcpyAsync(outgoing_[parity_][kBottom], bottom_planes(v, g), bytes, gpuMemcpyDeviceToHost, stream_));
    GPU_CHECK(gpuMemcpyAsync(outgoing_[parity_][kTop], top_planes(v, g), bytes, gpuMemcpyDeviceToHost, stream_));
    GPU_CHECK(gpuStreamSynchronize(stream_));
    crew_.team().barrier();
    const HostStaging& below = crew_.mate<HostStaging>(slab_.down());
    const HostStaging& above = crew_.mate<HostStaging>(slab_.up());
    GPU_CHECK(gpuMemcpyAsync(below_halo(v, g), below.outgoing_[parity_][kTop], bytes, gpuMemcpyHostToDevice, stream_));
    GPU_CHECK(gpuMemcpyAsync(above_halo(v, g), above.outgoing_[parity_][kBottom], bytes, gpuMemcpyHostToDevice, stream_));
    // STUB: (void)v; (void)crew_; throw course::NotImplemented(__FILE__);
    // END SOLUTION
  }

  Crew& crew_;
  Slab& slab_;
  const Problem& problem_;
  Stream stream_;
  float* outgoing_[2][2] = {};  // [parity][side]: pinned host copies of this rank's boundary planes
  int parity_ = 0;
};

}  // namespace

std::unique_ptr<Propagator> make_host_staging(Crew& crew, int rank) { return std::make_unique<HostStaging>(crew, rank); }

}  // namespace ch06
