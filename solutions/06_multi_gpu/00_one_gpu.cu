// Step 00 — one GPU: the time loop.
//
// The whole grid on one device, periodic in z as in x and y. A time step is the leapfrog kernel
// over every plane (wave.cu: chapter 3's step 10 with the update folded in), writing
// u(n+1) where u(n-1) was, then the new field's halos: x and y from their periodic images
// (wrap_xy), z by two copies inside the array, the top R planes below the bottom and the bottom
// R above the top, which later steps turn into an exchange between ranks. One stream; one
// synchronize when advance() ends.
// The bound: 12 bytes a point (read u and u(n-1), write u(n+1)): 1.61 GB a step at 512^3,
// 0.38 ms at the H200's copy ceiling (4.2 TB/s, chapter 3's results). The z copies move
// 2 x R planes, read and written, about 1% of that at 512^3; wrap_xy's columns and rows 2%.
// Predicted: the kernel near chapter 3's step 10 fraction of the copy rate (0.85 on the H200
// for the Laplacian's 8 bytes a point; the 4 more of u(n-1) are a plain stream), 0.80-0.85: 0.45
// ms a step at 512^3, the halos a few percent more. Every later step is measured against this one:
// it is T1 in the parallel efficiency T1 / (N TN).
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit 5d5e4fe, 2026-11-28):
//     00_one_gpu x1  strong 1024^3       105.5383 ms (20 time steps), 2442 GB/s (0.814 of copy), 203 GLUP/s
//     00_one_gpu x1  weak 512^3 per GPU  13.7984 ms (20 time steps), 2334 GB/s (0.779 of copy), 195 GLUP/s
//   NVIDIA H200 (commit c81c09d, 2026-11-27):
//     00_one_gpu x1  strong 1024^3       72.6696 ms (20 time steps), 3546 GB/s (0.841 of copy), 296 GLUP/s
//     00_one_gpu x1  weak 512^3 per GPU  9.7553 ms (20 time steps), 3302 GB/s (0.783 of copy), 275 GLUP/s
// END MEASURED
// BEGIN FINDINGS
// Measured at 512^3: 0.6899 ms a step on the H100 and 0.4878 on the H200, 0.78 of each one's
// copy rate, inside the predicted 0.80-0.85 only at 1024^3 (0.81 and 0.84); the H200's 0.45 ms
// missed by 8%. The z copies cost about 10 us a step on both (as MPI processes), 1.55% (H100)
// and 2.23% (H200) of a step over compute only.
// END FINDINGS
#include <stdexcept>
#include <string>

#include "steps.hpp"

namespace ch06 {
namespace {

class OneGpu final : public Propagator {
 public:
  OneGpu(Crew& crew, int rank) : slab_(crew.team().slab(rank)), problem_(crew.team().problem()) {
    if (slab_.ranks != 1)
      throw std::invalid_argument("step 00 runs on one GPU, not on " + std::to_string(slab_.ranks) + " ranks");
  }

  void advance(int steps) override {
    advance_on_one_stream(slab_, problem_, steps, stream_, [this](int b) { fill_halos(slab_.field[b]); });
  }

 private:
  void fill_halos(float* v) {
    const Grid& g = slab_.grid;
    const std::size_t bytes = halo_floats(g) * sizeof(float);
    wrap_xy(v, g, all_planes(g), stream_);
    GPU_CHECK(gpuMemcpyAsync(below_halo(v, g), top_planes(v, g), bytes, gpuMemcpyDeviceToDevice, stream_));
    GPU_CHECK(gpuMemcpyAsync(above_halo(v, g), bottom_planes(v, g), bytes, gpuMemcpyDeviceToDevice, stream_));
  }

  Slab& slab_;
  const Problem& problem_;
  Stream stream_;
};

}  // namespace

std::unique_ptr<Propagator> make_one_gpu(Crew& crew, int rank) { return std::make_unique<OneGpu>(crew, rank); }

}  // namespace ch06
