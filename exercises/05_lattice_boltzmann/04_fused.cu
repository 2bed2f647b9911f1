// Generated from solutions/05_lattice_boltzmann/04_fused.cu by exercises/generate.py (fingerprint 8f33c06d5473): edit the TODOs.
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
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 5 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
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
    // TODO: part 1 of 2, the pull: f[k] arrives at this cell from its upwind neighbour (x - e_kx, y - e_ky), whose slot k of src (plane k of soa_index) holds it; x wraps around the periodic row, upwind_row gives the row (periodic or not). Invariant: where that row lies outside 0 .. ny - 1 the neighbour is behind a wall and the value bounces back: it is this cell's own slot opposite(k), the value that left towards the wall a step ago. Mistake to avoid: the downwind neighbour (x + e_k) instead of the upwind one, or % of a negative number (add nx before the %).
    (void)src; f[k] = 0.0f;
  }
  // TODO: part 2 of 2, collide and write once: the moments of the nine pulled values (moments_of), then collide(k, f[k], m, 1 / tau, force) of each written into this cell's own slot k of dst, and the moments into `moments` only when write_moments. Invariant: each value is read once from src and written once to dst, nothing in between reaches memory (that is the fusion). Mistake to avoid: writing the result at the neighbour it was pulled from (the pull already streamed it: it belongs to this cell now), or a moments array written on every time step instead of the last.
  (void)dst; (void)moments; (void)write_moments; (void)f;
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
