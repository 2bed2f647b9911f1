// Step 02 — ping-pong: two buffers, swapped every time step; the copy kernel is gone.
//
// Step 00 copies df into dfbak only so that the stream kernel can pull from an unchanging
// array. Two arrays that trade places do the same with no copy: the stream kernel pulls from
// the one the last step wrote (src) into the other (dst), calculate and collide work on dst,
// and the two pointers swap. Nothing else changes: the paper's layout, a thread per distribution.
// Bytes per cell and time step, in floats: stream 9 + 9, calculate 9 + 3, collide 9 + 3 + 9:
// 51 floats, 204 bytes (step 00: 276).
// Predicted: 276/204 = 1.35x step 00, if the copy kernel streamed as fast as the others.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit a61db01af046, 2026-11-24):
//     02_ping_pong  256x256    0.2582 ms (20 time steps), 366 GB/s (0.122 of copy), 5077 MLUP/s
//     02_ping_pong  1024x1024  2.7097 ms (20 time steps), 557 GB/s (0.187 of copy), 7740 MLUP/s
//     02_ping_pong  2048x2048  10.4119 ms (20 time steps), 580 GB/s (0.194 of copy), 8057 MLUP/s
//     02_ping_pong  4096x4096  41.5352 ms (20 time steps), 582 GB/s (0.195 of copy), 8079 MLUP/s
//     02_ping_pong  8192x8192  166.1633 ms (20 time steps), 582 GB/s (0.195 of copy), 8077 MLUP/s
//   NVIDIA H200 (commit a61db01af046, 2026-11-24):
//     02_ping_pong  256x256    0.2481 ms (20 time steps), 380 GB/s (0.090 of copy), 5282 MLUP/s
//     02_ping_pong  1024x1024  2.5208 ms (20 time steps), 599 GB/s (0.141 of copy), 8319 MLUP/s
//     02_ping_pong  2048x2048  9.6639 ms (20 time steps), 625 GB/s (0.148 of copy), 8680 MLUP/s
//     02_ping_pong  4096x4096  38.2577 ms (20 time steps), 631 GB/s (0.149 of copy), 8771 MLUP/s
//     02_ping_pong  8192x8192  153.2159 ms (20 time steps), 631 GB/s (0.149 of copy), 8760 MLUP/s
// END MEASURED
#include <utility>

#include "course/device_buffer.hpp"
#include "course/exercise.hpp"
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

__global__ void ping_pong_stream_kernel(const float* __restrict__ src, float* __restrict__ dst, Channel c) {
  const Distribution d = this_distribution(c.ny);
  if (!d.inside) return;
  const int from_x = (d.x - velocity_x(d.k) + c.nx) % c.nx, from_y = upwind_row(c, d.y, velocity_y(d.k));
  const bool from_wall = from_y < 0 || from_y >= c.ny;
  dst[paper_index(d.x, d.y, d.k, c.ny)] =
      from_wall ? src[paper_index(d.x, d.y, opposite(d.k), c.ny)] : src[paper_index(from_x, from_y, d.k, c.ny)];
}

// The nine threads of a cell put its distributions into shared memory; the first sums them.
__global__ void ping_pong_calculate_kernel(const float* __restrict__ df, float* __restrict__ rho, float* __restrict__ ux,
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

__global__ void ping_pong_collide_kernel(float* __restrict__ df, const float* __restrict__ rho, const float* __restrict__ ux,
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

class PingPongLattice final : public Lattice {
 public:
  explicit PingPongLattice(const Channel& channel)
      : c_(channel),
        grid_(channel.nx, course::blocks_for(channel.ny, kCellsPerBlock)),
        block_(kDirections, kCellsPerBlock),
        src_(channel.cells() * kDirections), dst_(channel.cells() * kDirections),
        rho_(channel.cells()), ux_(channel.cells()), uy_(channel.cells()) {}

  void load(const float* f) override { course::launch(to_paper_layout, {grid_, block_}, f, src_.data(), c_); }
  void store(float* f) override { course::launch(from_paper_layout, {grid_, block_}, src_.data(), f, c_); }

  void advance(int steps, const Fields* fields) override {
    for (int step = 0; step < steps; ++step) {
      // BEGIN SOLUTION: part 1 of 1, the ping-pong: stream from src_ into dst_, calculate and collide on dst_, then swap the two buffers (std::swap of the DeviceBuffers, no copy). Invariant: between time steps the state is always in src_ (load, store and the next step rely on it). Mistake to avoid: streaming from the buffer the step writes (src_ and dst_ the same), or forgetting the swap, so every step starts from the loaded state again
      course::launch(ping_pong_stream_kernel, {grid_, block_}, src_.data(), dst_.data(), c_);
      course::launch(ping_pong_calculate_kernel, {grid_, block_}, dst_.data(), rho_.data(), ux_.data(), uy_.data(), c_);
      course::launch(ping_pong_collide_kernel, {grid_, block_}, dst_.data(), rho_.data(), ux_.data(), uy_.data(), c_);
      std::swap(src_, dst_);
      // STUB: throw course::NotImplemented(__FILE__);
      // END SOLUTION
    }
    if (fields && steps > 0) course::launch(paper_fields_out, {grid_, block_}, rho_.data(), ux_.data(), uy_.data(), *fields, c_);
  }

 private:
  Channel c_;
  dim3 grid_, block_;
  DeviceBuffer<float> src_, dst_, rho_, ux_, uy_;  // the state is in src_ between steps
};

}  // namespace

std::unique_ptr<Lattice> make_ping_pong(const Channel& channel) { return std::make_unique<PingPongLattice>(channel); }

}  // namespace ch05
