// Step 03 — the circular queue of planes (the USTB patent's method).
//
// A 32x8 block now owns a 32x8 column of the grid and walks it from z = 0 to dz-1. It keeps the
// 2rz+1 haloed tiles its current outputs need in shared memory — for rz = 2 the patent's five
// planes s_mm, s_m, s_c, s_p, s_pp — and for each output plane it loads one new plane into the
// slot of the oldest one and rotates the slot pointers, so the newest becomes s_pp. Box
// stencils work as well as stars: every tile holds its corners.
//   1. prime the queue with planes -rz .. rz-1
//   2. per output plane z: barrier, load plane z+rz into the oldest slot, rotate, barrier
//   3. apply F over the box from the slots, write out(z)
// Predicted: each plane is loaded once per block instead of 2rz+1 times: L2 reads fall to the
// tile's halo overhead (~1.3x the cube for r = 1); still the classic halo loading of step 02.
// BEGIN FINDINGS
// Measured (README, "Predicted and measured L2 reads"): 1.88x for radius 1, since the x-halo
// costs a whole 32-byte sector on each side of a row, (6/4)(10/8) = 1.875 in sectors.
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     03_circular_queue  star7 512^3        1.1109 ms, 967 GB/s (0.322 of copy), 1691 GFLOP/s (0.029 of FMA)
//     03_circular_queue  box27 512^3        1.2810 ms, 838 GB/s (0.280 of copy), 5658 GFLOP/s (0.096 of FMA)
//     03_circular_queue  compound_r1 512^3  1.2708 ms, 845 GB/s (0.282 of copy), 5703 GFLOP/s (0.096 of FMA)
//     03_circular_queue  compound_r2 512^3  3.0392 ms, 353 GB/s (0.118 of copy), 11040 GFLOP/s (0.186 of FMA)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     03_circular_queue  star7 512^3        1.0838 ms, 991 GB/s (0.236 of copy), 1734 GFLOP/s (0.030 of FMA)
//     03_circular_queue  box27 512^3        1.2755 ms, 842 GB/s (0.200 of copy), 5682 GFLOP/s (0.097 of FMA)
//     03_circular_queue  compound_r1 512^3  1.2746 ms, 842 GB/s (0.200 of copy), 5686 GFLOP/s (0.097 of FMA)
//     03_circular_queue  compound_r2 512^3  3.0407 ms, 353 GB/s (0.084 of copy), 11035 GFLOP/s (0.188 of FMA)
// END MEASURED
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

// Copies plane z of the block's haloed tile into `tile`: each thread its own point and the halo
// strips the block does not cover (0 outside the array).
template <class Stencil, int kWidth>
__device__ void load_tile(float (*tile)[kWidth], const float* __restrict__ in, const Grid& g, int x0, int y0, int z) {
  // BEGIN SOLUTION: covering loops over the (8+2ry) x (32+2rx) tile, as in step 02
  constexpr int kHeight = kBlockY + 2 * Stencil::ry;
  for (int ly = threadIdx.y; ly < kHeight; ly += kBlockY)
    for (int lx = threadIdx.x; lx < kWidth; lx += kBlockX)
      tile[ly][lx] = g.in_array(x0 + lx, y0 + ly, z) ? in[g.at(x0 + lx, y0 + ly, z)] : 0.0f;
  // END SOLUTION
}

template <class Stencil>
__global__ void circular_queue_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // BEGIN SOLUTION: prime 2rz planes; per z: barrier, load plane z+rz into slot[0], rotate the slot pointers, barrier, apply, write
  constexpr int kWidth = kBlockX + 2 * Stencil::rx;
  constexpr int kHeight = kBlockY + 2 * Stencil::ry;
  constexpr int kPlanes = 2 * Stencil::rz + 1;
  __shared__ float planes[kPlanes][kHeight][kWidth];
  const int x0 = blockIdx.x * kBlockX - Stencil::rx;
  const int y0 = blockIdx.y * kBlockY - Stencil::ry;
  const int x = x0 + Stencil::rx + threadIdx.x, y = y0 + Stencil::ry + threadIdx.y;

  // slot[rz + k] holds plane z + k of the current output plane z; slot[0] is the oldest.
  float (*slot[kPlanes])[kWidth];
  for (int p = 0; p < kPlanes; ++p) slot[p] = planes[p];

  // 1. Prime the queue: planes -rz .. rz-1 into slots 1 .. 2rz.
  for (int p = 1; p < kPlanes; ++p) load_tile<Stencil, kWidth>(slot[p], in, g, x0, y0, p - 1 - Stencil::rz);

  for (int z = 0; z < g.dz; ++z) {
    // 2. The oldest plane is no longer needed: load plane z + rz over it, then rotate.
    __syncthreads();
    load_tile<Stencil, kWidth>(slot[0], in, g, x0, y0, z + Stencil::rz);
    float (*newest)[kWidth] = slot[0];
    for (int p = 0; p + 1 < kPlanes; ++p) slot[p] = slot[p + 1];
    slot[kPlanes - 1] = newest;
    __syncthreads();

    // 3. Apply F over the whole box and write.
    if (x < g.dx && y < g.dy) {
      out[g.at(x, y, z)] = apply<Stencil, float>([&](int i, int j, int k) {
        return slot[Stencil::rz + k][threadIdx.y + Stencil::ry + j][threadIdx.x + Stencil::rx + i];
      });
    }
  }
  // END SOLUTION
}

}  // namespace

template <class Stencil>
void stencil_circular_queue(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  course::launch(circular_queue_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY)), dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

CH02_INSTANTIATE(stencil_circular_queue)

}  // namespace ch02
