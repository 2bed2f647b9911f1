// Step 02 — shared memory: a 2D tile with halo per z-plane.
//
// A 32x8 block computes one 32x8 patch of one z-plane. It first copies the (2rz+1) planes of
// the patch's neighbourhood, each a (32+2rx) x (8+2ry) tile with its halo, corners included,
// into shared memory, and then every output reads its whole box from there. Each thread loads
// its own point and, where the tile is wider than the block, the halo strips: the classic way,
// in which the narrow strips are loaded by a few threads of each warp.
// Predicted: the tile removes the re-reads within a plane; but every block reloads 2rz+1
// planes for one output plane, so L2 still delivers 3x (rz = 1) or 5x (rz = 2) the tile, as
// step 01 does.
// BEGIN FINDINGS
// Measured (NOTES.md, "Why warps wait"): the same L2 bytes as step 01 and 3.1x its
// instructions per point: the covering loops' bounds tests and addresses, per value staged.
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     02_shared_tile  star7 512^3        2.0341 ms, 528 GB/s (0.176 of copy), 924 GFLOP/s (0.016 of FMA)
//     02_shared_tile  box27 512^3        2.2098 ms, 486 GB/s (0.162 of copy), 3280 GFLOP/s (0.055 of FMA)
//     02_shared_tile  compound_r1 512^3  2.2103 ms, 486 GB/s (0.162 of copy), 3279 GFLOP/s (0.055 of FMA)
//     02_shared_tile  compound_r2 512^3  4.3364 ms, 248 GB/s (0.083 of copy), 7738 GFLOP/s (0.131 of FMA)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     02_shared_tile  star7 512^3        2.0490 ms, 524 GB/s (0.125 of copy), 917 GFLOP/s (0.016 of FMA)
//     02_shared_tile  box27 512^3        2.2137 ms, 485 GB/s (0.115 of copy), 3274 GFLOP/s (0.056 of FMA)
//     02_shared_tile  compound_r1 512^3  2.2141 ms, 485 GB/s (0.115 of copy), 3273 GFLOP/s (0.056 of FMA)
//     02_shared_tile  compound_r2 512^3  4.3413 ms, 247 GB/s (0.059 of copy), 7729 GFLOP/s (0.132 of FMA)
// END MEASURED
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

template <class Stencil>
__global__ void shared_tile_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // BEGIN SOLUTION: load the 2rz+1 haloed tiles (covering loops over the tile, 0 outside the array), barrier, apply from shared memory
  constexpr int kWidth = kBlockX + 2 * Stencil::rx;
  constexpr int kHeight = kBlockY + 2 * Stencil::ry;
  constexpr int kPlanes = 2 * Stencil::rz + 1;
  __shared__ float tile[kPlanes][kHeight][kWidth];
  const int x0 = blockIdx.x * kBlockX - Stencil::rx;  // the tile's first column and row
  const int y0 = blockIdx.y * kBlockY - Stencil::ry;
  const int z = blockIdx.z;

  // 1. Each thread loads its point of every plane, and the halo strips the block does not cover.
  for (int p = 0; p < kPlanes; ++p) {
    const int zz = z - Stencil::rz + p;
    for (int ly = threadIdx.y; ly < kHeight; ly += kBlockY)
      for (int lx = threadIdx.x; lx < kWidth; lx += kBlockX)
        tile[p][ly][lx] = g.in_array(x0 + lx, y0 + ly, zz) ? in[g.at(x0 + lx, y0 + ly, zz)] : 0.0f;
  }
  __syncthreads();

  // 2. Every output reads its box from shared memory.
  const int x = x0 + Stencil::rx + threadIdx.x, y = y0 + Stencil::ry + threadIdx.y;
  if (x < g.dx && y < g.dy) {
    out[g.at(x, y, z)] = apply<Stencil, float>([&](int i, int j, int k) {
      return tile[Stencil::rz + k][threadIdx.y + Stencil::ry + j][threadIdx.x + Stencil::rx + i];
    });
  }
  // END SOLUTION
}

}  // namespace

template <class Stencil>
void stencil_shared_tile(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  course::launch(shared_tile_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY), grid.dz),
                  dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

CH02_INSTANTIATE(stencil_shared_tile)

}  // namespace ch02
