// Generated from solutions/05_lattice_boltzmann/03_soa.cu by exercises/generate.py (fingerprint 35bbd67a72d1): edit the TODOs.
// Step 03 — structure of arrays: one array per direction, a thread per cell.
//
// Steps 00-02 keep a cell's nine distributions side by side and give each its own thread. Here
// the distributions of one direction are an array of their own, in row order: f[k][y][x]. A
// thread takes a whole cell and walks its nine directions; the 32 threads of a warp are 32
// neighbouring cells of a row, so each of their loads of direction k is 32 consecutive floats,
// 128 bytes (five 32-byte sectors where a pull along x shifts it by a float). The moments now
// sit in the same row order as the fields the caller wants: the last step's calculate writes
// them there directly. Still three kernels (stream, calculate, collide) and two buffers.
// Bytes per cell and time step: 51 floats, 204 bytes, as in step 02.
// Predicted: the same bytes as step 02, so at best the same time; what changes is how the
// loads are issued (one per direction per cell, the stream's from whole rows where step 02's
// warps pulled from three columns nine cells at a time). Perhaps 10-20% faster; the real gain
// is that a thread now holds a whole cell, which step 04 needs.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 5 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include <utility>

#include "course/device_buffer.hpp"
#include "steps.hpp"

namespace ch05 {
namespace {

using course::DeviceBuffer;

constexpr int kBlock = 128;  // cells of a row

// Distribution k of cell (x, y) in the structure of arrays, and the cell in row order.
__host__ __device__ inline long long soa_index(int x, int y, int k, const Channel& c) {
  return static_cast<long long>(k) * c.cells() + static_cast<long long>(y) * c.nx + x;
}

struct Cell {
  int x, y;
  long long at;  // the cell's index in row order
  bool inside;
};
__device__ inline Cell this_cell(const Channel& c) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  return {x, y, static_cast<long long>(y) * c.nx + x, x < c.nx};
}

__global__ void soa_stream_kernel(const float* __restrict__ src, float* __restrict__ dst, Channel c) {
  const Cell cell = this_cell(c);
  if (!cell.inside) return;
  // TODO: part 1 of 1, the stream in a structure of arrays: for each direction k, dst[k][y][x] = src[k][y - e_ky][x - e_kx] (x periodic; the row from upwind_row(c, y, e_ky)), or src[opposite(k)][y][x] where that row is behind a wall. Invariant: a warp's 32 threads are 32 neighbouring x of a row, so each of its loads and stores of direction k is 32 consecutive floats. Mistake to avoid: the index of the array of structures (k fastest): the planes are k slowest, soa_index(x, y, k, c)
  (void)src; (void)dst;
}

__global__ void soa_calculate_kernel(const float* __restrict__ f, Fields moments, Channel c) {
  const Cell cell = this_cell(c);
  if (!cell.inside) return;
  float cell_f[kDirections];
#pragma unroll
  for (int k = 0; k < kDirections; ++k) cell_f[k] = f[soa_index(cell.x, cell.y, k, c)];
  const Moments m = moments_of(cell_f);
  moments.rho[cell.at] = m.rho;
  moments.ux[cell.at] = m.ux;
  moments.uy[cell.at] = m.uy;
}

__global__ void soa_collide_kernel(float* __restrict__ f, Fields moments, Channel c) {
  const Cell cell = this_cell(c);
  if (!cell.inside) return;
  const Moments m{moments.rho[cell.at], moments.ux[cell.at], moments.uy[cell.at]};
#pragma unroll
  for (int k = 0; k < kDirections; ++k) {
    float& value = f[soa_index(cell.x, cell.y, k, c)];
    value = collide(k, value, m, 1.0f / c.tau, c.force);
  }
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

class SoaLattice final : public Lattice {
 public:
  explicit SoaLattice(const Channel& channel)
      : c_(channel), grid_(course::blocks_for(channel.nx, kBlock), channel.ny),
        src_(channel.cells() * kDirections), dst_(channel.cells() * kDirections),
        rho_(channel.cells()), ux_(channel.cells()), uy_(channel.cells()) {}

  void load(const float* f) override { course::launch(to_soa_layout, {grid_, kBlock}, f, src_.data(), c_); }
  void store(float* f) override { course::launch(from_soa_layout, {grid_, kBlock}, src_.data(), f, c_); }

  void advance(int steps, const Fields* fields) override {
    for (int step = 0; step < steps; ++step) {
      // The last step's moments go straight to the caller's fields.
      const Fields moments = fields && step == steps - 1 ? *fields : Fields{rho_.data(), ux_.data(), uy_.data()};
      course::launch(soa_stream_kernel, {grid_, kBlock}, src_.data(), dst_.data(), c_);
      course::launch(soa_calculate_kernel, {grid_, kBlock}, dst_.data(), moments, c_);
      course::launch(soa_collide_kernel, {grid_, kBlock}, dst_.data(), moments, c_);
      std::swap(src_, dst_);
    }
  }

 private:
  Channel c_;
  dim3 grid_;
  DeviceBuffer<float> src_, dst_, rho_, ux_, uy_;  // the state is in src_ between steps
};

}  // namespace

std::unique_ptr<Lattice> make_soa(const Channel& channel) { return std::make_unique<SoaLattice>(channel); }

}  // namespace ch05
