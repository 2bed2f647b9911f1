// Step 00 — the paper's scheme: four kernels per time step, the nine directions of a cell adjacent.
//
// The distributions are one array in the paper's order, id = k + (y + x ny) 9: the nine
// directions of a cell side by side, then the cells of a column (y), then the columns (x). A
// thread handles one distribution, as in the paper (k = threadIdx.x, the cell's row =
// threadIdx.y); a block is the 9 directions of 32 cells of one column (the paper's block was a
// whole column, 9 ny threads, which stops at ny = 113). Each time step runs
//   copy       df -> dfbak
//   stream     df[id] = dfbak[the neighbour's id], bouncing off the walls
//   calculate  density and velocity of each cell, its nine values gathered in shared memory
//   collide    df[id] relaxes towards the equilibrium of the cell's moments
// (the paper starts its loop at collide: the same cycle, cut where lbm.hpp says). The paper's
// buffers: df, dfbak, and the moments dd, dvx, dvy, stored by cell in the same column order.
// Bytes per cell and time step, in floats: copy 9 + 9, stream 9 + 9, calculate 9 + 3, collide
// 9 + 3 + 9: 69 floats, 276 bytes, where the problem needs 72 (9 read, 9 written).
// Predicted: at best 72/276 = 0.26 of the copy rate in the 72-byte count, if every kernel
// streamed at the copy rate; the stream kernel's reads of three columns and the calculate
// kernel's one busy thread in nine should keep it below that.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit a61db01af046, 2026-11-24):
//     00_paper  256x256    0.3280 ms (20 time steps), 288 GB/s (0.096 of copy), 3996 MLUP/s
//     00_paper  1024x1024  3.4649 ms (20 time steps), 436 GB/s (0.146 of copy), 6053 MLUP/s
//     00_paper  2048x2048  13.2965 ms (20 time steps), 454 GB/s (0.152 of copy), 6309 MLUP/s
//     00_paper  4096x4096  52.8500 ms (20 time steps), 457 GB/s (0.153 of copy), 6349 MLUP/s
//     00_paper  8192x8192  211.3664 ms (20 time steps), 457 GB/s (0.153 of copy), 6350 MLUP/s
//   NVIDIA H200 (commit a61db01af046, 2026-11-24):
//     00_paper  256x256    0.3136 ms (20 time steps), 301 GB/s (0.071 of copy), 4180 MLUP/s
//     00_paper  1024x1024  3.1823 ms (20 time steps), 474 GB/s (0.112 of copy), 6590 MLUP/s
//     00_paper  2048x2048  12.1488 ms (20 time steps), 497 GB/s (0.117 of copy), 6905 MLUP/s
//     00_paper  4096x4096  48.0948 ms (20 time steps), 502 GB/s (0.119 of copy), 6977 MLUP/s
//     00_paper  8192x8192  192.5343 ms (20 time steps), 502 GB/s (0.119 of copy), 6971 MLUP/s
// END MEASURED
#include "course/device_buffer.hpp"
#include "steps.hpp"

namespace ch05 {
namespace {

using course::DeviceBuffer;

constexpr int kCellsPerBlock = 32;

// Where distribution k of cell (x, y) lives, and where the cell's moments live.
__host__ __device__ inline long long paper_index(int x, int y, int k, int ny) {
  return k + (y + static_cast<long long>(x) * ny) * kDirections;
}
__host__ __device__ inline long long paper_cell(int x, int y, int ny) { return y + static_cast<long long>(x) * ny; }

// This thread's distribution: column blockIdx.x, row blockIdx.y * 32 + threadIdx.y, direction threadIdx.x.
struct Distribution {
  int x, y, k;
  bool inside;
};
__device__ inline Distribution this_distribution(int ny) {
  const int y = blockIdx.y * kCellsPerBlock + threadIdx.y;
  return {static_cast<int>(blockIdx.x), y, static_cast<int>(threadIdx.x), y < ny};
}

__global__ void paper_copy_kernel(const float* __restrict__ df, float* __restrict__ dfbak, Channel c) {
  const Distribution d = this_distribution(c.ny);
  if (!d.inside) return;
  const long long id = paper_index(d.x, d.y, d.k, c.ny);
  dfbak[id] = df[id];
}

__global__ void paper_stream_kernel(float* __restrict__ df, const float* __restrict__ dfbak, Channel c) {
  const Distribution d = this_distribution(c.ny);
  if (!d.inside) return;
  const int from_x = (d.x - velocity_x(d.k) + c.nx) % c.nx, from_y = upwind_row(c, d.y, velocity_y(d.k));
  const bool from_wall = from_y < 0 || from_y >= c.ny;
  df[paper_index(d.x, d.y, d.k, c.ny)] =
      from_wall ? dfbak[paper_index(d.x, d.y, opposite(d.k), c.ny)] : dfbak[paper_index(from_x, from_y, d.k, c.ny)];
}

// The nine threads of a cell put its distributions into shared memory; the first sums them.
__global__ void paper_calculate_kernel(const float* __restrict__ df, float* __restrict__ rho, float* __restrict__ ux,
                                 float* __restrict__ uy, Channel c) {
  __shared__ float cell_f[kCellsPerBlock][kDirections];
  const Distribution d = this_distribution(c.ny);
  if (d.inside) cell_f[threadIdx.y][d.k] = df[paper_index(d.x, d.y, d.k, c.ny)];
  __syncthreads();
  if (!d.inside || d.k != 0) return;
  const Moments m = moments_of(cell_f[threadIdx.y]);
  const long long cell = paper_cell(d.x, d.y, c.ny);
  rho[cell] = m.rho;
  ux[cell] = m.ux;
  uy[cell] = m.uy;
}

__global__ void paper_collide_kernel(float* __restrict__ df, const float* __restrict__ rho, const float* __restrict__ ux,
                               const float* __restrict__ uy, Channel c) {
  const Distribution d = this_distribution(c.ny);
  if (!d.inside) return;
  const long long cell = paper_cell(d.x, d.y, c.ny), id = paper_index(d.x, d.y, d.k, c.ny);
  df[id] = collide(d.k, df[id], Moments{rho[cell], ux[cell], uy[cell]}, 1.0f / c.tau, c.force);
}

// The canonical layout (lbm.hpp) in and out, and the moments out in row-major order.
__global__ void to_paper_layout(const float* __restrict__ canonical, float* __restrict__ df, Channel c) {
  const Distribution d = this_distribution(c.ny);
  if (d.inside) df[paper_index(d.x, d.y, d.k, c.ny)] = canonical[(static_cast<long long>(d.y) * c.nx + d.x) * kDirections + d.k];
}
__global__ void from_paper_layout(const float* __restrict__ df, float* __restrict__ canonical, Channel c) {
  const Distribution d = this_distribution(c.ny);
  if (d.inside) canonical[(static_cast<long long>(d.y) * c.nx + d.x) * kDirections + d.k] = df[paper_index(d.x, d.y, d.k, c.ny)];
}
__global__ void paper_fields_out(const float* __restrict__ rho, const float* __restrict__ ux, const float* __restrict__ uy,
                              Fields out, Channel c) {
  const Distribution d = this_distribution(c.ny);
  if (!d.inside || d.k != 0) return;
  const long long from = paper_cell(d.x, d.y, c.ny), to = static_cast<long long>(d.y) * c.nx + d.x;
  out.rho[to] = rho[from];
  out.ux[to] = ux[from];
  out.uy[to] = uy[from];
}

class PaperLattice final : public Lattice {
 public:
  explicit PaperLattice(const Channel& channel)
      : c_(channel),
        grid_(channel.nx, course::blocks_for(channel.ny, kCellsPerBlock)),
        block_(kDirections, kCellsPerBlock),
        df_(channel.cells() * kDirections), dfbak_(channel.cells() * kDirections),
        rho_(channel.cells()), ux_(channel.cells()), uy_(channel.cells()) {}

  void load(const float* f) override { course::launch(to_paper_layout, {grid_, block_}, f, df_.data(), c_); }
  void store(float* f) override { course::launch(from_paper_layout, {grid_, block_}, df_.data(), f, c_); }

  void advance(int steps, const Fields* fields) override {
    for (int step = 0; step < steps; ++step) {
      course::launch(paper_copy_kernel, {grid_, block_}, df_.data(), dfbak_.data(), c_);
      course::launch(paper_stream_kernel, {grid_, block_}, df_.data(), dfbak_.data(), c_);
      course::launch(paper_calculate_kernel, {grid_, block_}, df_.data(), rho_.data(), ux_.data(), uy_.data(), c_);
      course::launch(paper_collide_kernel, {grid_, block_}, df_.data(), rho_.data(), ux_.data(), uy_.data(), c_);
    }
    if (fields && steps > 0) course::launch(paper_fields_out, {grid_, block_}, rho_.data(), ux_.data(), uy_.data(), *fields, c_);
  }

 private:
  Channel c_;
  dim3 grid_, block_;
  DeviceBuffer<float> df_, dfbak_, rho_, ux_, uy_;
};

}  // namespace

std::unique_ptr<Lattice> make_paper(const Channel& channel) { return std::make_unique<PaperLattice>(channel); }

}  // namespace ch05
