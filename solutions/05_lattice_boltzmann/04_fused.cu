// Step 04 — fused stream-collide: one kernel per time step, nine floats in and nine out a cell.
//
// Step 03's three kernels pass the cell's distributions through memory twice between them
// (stream writes them, calculate and collide read them back) and the moments once. One kernel
// can do all three while the nine values are in registers: pull them from the neighbours (src),
// take the moments, collide, write the nine results (dst). The moments reach memory only when
// the caller asks for them, in the last step. This is the "pull" scheme of the LBM literature.
// Bytes per cell and time step: 9 floats read, 9 written, 72 bytes: the fewest a two-buffer
// update can move (step 03: 204).
// Predicted: 204/72 = 2.8x step 03; the kernel streams like a copy (read 36 bytes, write 36
// per thread, no reuse beyond the neighbours' shared sectors), so near the copy ceiling:
// 0.90-0.95 of it at sizes far beyond the 63 MB L2 (2048^2 and up: 151 MB a buffer at 2048^2).
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit a61db01af046, 2026-11-24):
//     04_fused  256x256    0.0679 ms (20 time steps), 1390 GB/s (0.466 of copy), 19303 MLUP/s
//     04_fused  1024x1024  0.5890 ms (20 time steps), 2563 GB/s (0.859 of copy), 35603 MLUP/s
//     04_fused  2048x2048  2.1791 ms (20 time steps), 2772 GB/s (0.929 of copy), 38497 MLUP/s
//     04_fused  4096x4096  8.5803 ms (20 time steps), 2816 GB/s (0.944 of copy), 39106 MLUP/s
//     04_fused  8192x8192  33.7142 ms (20 time steps), 2866 GB/s (0.961 of copy), 39810 MLUP/s
//   NVIDIA H200 (commit a61db01af046, 2026-11-24):
//     04_fused  256x256    0.0637 ms (20 time steps), 1481 GB/s (0.350 of copy), 20573 MLUP/s
//     04_fused  1024x1024  0.4491 ms (20 time steps), 3362 GB/s (0.794 of copy), 46696 MLUP/s
//     04_fused  2048x2048  1.5873 ms (20 time steps), 3805 GB/s (0.899 of copy), 52847 MLUP/s
//     04_fused  4096x4096  6.1245 ms (20 time steps), 3945 GB/s (0.932 of copy), 54787 MLUP/s
//     04_fused  8192x8192  24.0196 ms (20 time steps), 4023 GB/s (0.950 of copy), 55879 MLUP/s
// END MEASURED
#include <utility>

#include "course/device_buffer.hpp"
#include "steps.hpp"

namespace ch05 {
namespace {

using course::DeviceBuffer;

constexpr int kBlock = 128;  // cells of a row

__host__ __device__ inline long long soa_index(int x, int y, int k, const Channel& c) {
  return static_cast<long long>(k) * c.cells() + static_cast<long long>(y) * c.nx + x;
}

struct Cell {
  int x, y;
  long long at;
  bool inside;
};
__device__ inline Cell this_cell(const Channel& c) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  return {x, y, static_cast<long long>(y) * c.nx + x, x < c.nx};
}

// One time step of one cell: pull, moments, collide, write; the moments too when `write_moments`.
__global__ void fused_kernel(const float* __restrict__ src, float* __restrict__ dst, Fields moments,
                             bool write_moments, Channel c) {
  const Cell cell = this_cell(c);
  if (!cell.inside) return;
  float f[kDirections];
#pragma unroll
  for (int k = 0; k < kDirections; ++k) {
    // BEGIN SOLUTION: part 1 of 2, the pull: f[k] arrives at this cell from its upwind neighbour (x - e_kx, y - e_ky), whose slot k of src (plane k of soa_index) holds it; x wraps around the periodic row, upwind_row gives the row (periodic or not). Invariant: where that row lies outside 0 .. ny - 1 the neighbour is behind a wall and the value bounces back: it is this cell's own slot opposite(k), the value that left towards the wall a step ago. Mistake to avoid: the downwind neighbour (x + e_k) instead of the upwind one, or % of a negative number (add nx before the %).
    const int from_x = (cell.x - velocity_x(k) + c.nx) % c.nx, from_y = upwind_row(c, cell.y, velocity_y(k));
    const bool from_wall = from_y < 0 || from_y >= c.ny;
    f[k] = from_wall ? src[soa_index(cell.x, cell.y, opposite(k), c)] : src[soa_index(from_x, from_y, k, c)];
    // STUB: (void)src; f[k] = 0.0f;
    // END SOLUTION
  }
  // BEGIN SOLUTION: part 2 of 2, collide and write once: the moments of the nine pulled values (moments_of), then collide(k, f[k], m, 1 / tau, force) of each written into this cell's own slot k of dst, and the moments into `moments` only when write_moments. Invariant: each value is read once from src and written once to dst, nothing in between reaches memory (that is the fusion). Mistake to avoid: writing the result at the neighbour it was pulled from (the pull already streamed it: it belongs to this cell now), or a moments array written on every time step instead of the last.
  const Moments m = moments_of(f);
#pragma unroll
  for (int k = 0; k < kDirections; ++k) dst[soa_index(cell.x, cell.y, k, c)] = collide(k, f[k], m, 1.0f / c.tau, c.force);
  if (write_moments) {
    moments.rho[cell.at] = m.rho;
    moments.ux[cell.at] = m.ux;
    moments.uy[cell.at] = m.uy;
  }
  // STUB: (void)dst; (void)moments; (void)write_moments; (void)f;
  // END SOLUTION
}

__global__ void to_soa_layout(const float* __restrict__ canonical, float* __restrict__ f, Channel c) {
  const Cell cell = this_cell(c);
  if (!cell.inside) return;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) f[soa_index(cell.x, cell.y, k, c)] = canonical[cell.at * kDirections + k];
}
__global__ void from_soa_layout(const float* __restrict__ f, float* __restrict__ canonical, Channel c) {
  const Cell cell = this_cell(c);
  if (!cell.inside) return;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) canonical[cell.at * kDirections + k] = f[soa_index(cell.x, cell.y, k, c)];
}

class FusedLattice final : public Lattice {
 public:
  explicit FusedLattice(const Channel& channel)
      : c_(channel), grid_(course::blocks_for(channel.nx, kBlock), channel.ny),
        src_(channel.cells() * kDirections), dst_(channel.cells() * kDirections) {}

  void load(const float* f) override { course::launch(to_soa_layout, {grid_, kBlock}, f, src_.data(), c_); }
  void store(float* f) override { course::launch(from_soa_layout, {grid_, kBlock}, src_.data(), f, c_); }

  void advance(int steps, const Fields* fields) override {
    for (int step = 0; step < steps; ++step) {
      const bool write_moments = fields && step == steps - 1;
      course::launch(fused_kernel, {grid_, kBlock}, src_.data(), dst_.data(), write_moments ? *fields : Fields{},
                     write_moments, c_);
      std::swap(src_, dst_);
    }
  }

 private:
  Channel c_;
  dim3 grid_;
  DeviceBuffer<float> src_, dst_;  // the state is in src_ between steps
};

}  // namespace

std::unique_ptr<Lattice> make_fused(const Channel& channel) { return std::make_unique<FusedLattice>(channel); }

}  // namespace ch05
