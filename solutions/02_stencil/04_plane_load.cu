// Step 04 — the coalesced plane load (the patent's reshaped thread block).
//
// Step 03's queue, with the haloed tile loaded the patent's way: the block's linear thread
// index Ind = tx + ty*Bx is re-folded into rows as wide as the tile, Rx = Bx + 2rx
// (ix = Ind % Rx, iy = Ind / Rx), so Ry = Bx*By / Rx whole tile rows are read per pass by
// consecutive threads, and ceil((By+2ry) / Ry) passes cover the tile (the patent's
// w = ceil((Bx+2rx)(By+2ry) / (Bx*By)) when that is enough). Every load instruction of a warp is
// now one contiguous run along x — the halo columns included — instead of step 03's narrow
// halo strips loaded by 2 threads of a warp.
// Predicted: fewer load instructions and sectors per plane than step 03 (2 passes instead of up
// to 4, all lanes busy); the arithmetic and shared-memory reads are unchanged, and shared memory
// becomes the busiest unit.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     04_plane_load  star7 512^3        0.7460 ms, 1439 GB/s (0.480 of copy), 2519 GFLOP/s (0.043 of FMA)
//     04_plane_load  box27 512^3        0.9050 ms, 1186 GB/s (0.396 of copy), 8009 GFLOP/s (0.135 of FMA)
//     04_plane_load  compound_r1 512^3  0.9054 ms, 1186 GB/s (0.396 of copy), 8005 GFLOP/s (0.135 of FMA)
//     04_plane_load  compound_r2 512^3  2.5278 ms, 425 GB/s (0.142 of copy), 13274 GFLOP/s (0.224 of FMA)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     04_plane_load  star7 512^3        0.7069 ms, 1519 GB/s (0.361 of copy), 2658 GFLOP/s (0.045 of FMA)
//     04_plane_load  box27 512^3        0.8909 ms, 1205 GB/s (0.287 of copy), 8135 GFLOP/s (0.139 of FMA)
//     04_plane_load  compound_r1 512^3  0.8910 ms, 1205 GB/s (0.287 of copy), 8134 GFLOP/s (0.139 of FMA)
//     04_plane_load  compound_r2 512^3  2.5293 ms, 425 GB/s (0.101 of copy), 13266 GFLOP/s (0.227 of FMA)
// END MEASURED
#include "parts.hpp"
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kThreads = kBlockX * kBlockY;

// Copies plane z of the block's haloed tile, whole tile rows per pass.
template <class Stencil, int kWidth>
__device__ void load_plane(float (*tile)[kWidth], const float* __restrict__ in, const Grid& g, int x0, int y0, int z) {
  constexpr int kHeight = kBlockY + 2 * Stencil::ry;                          // the tile's rows, halo included
  constexpr int kRowsPerPass = kThreads / kWidth;                             // Ry: whole tile rows a pass
  constexpr int kPasses = (kHeight + kRowsPerPass - 1) / kRowsPerPass;        // ceil(kHeight / Ry)
  // BEGIN SOLUTION: part 1 of 1, the plane load: the idea is that each pass reads whole tile rows with consecutive threads. Re-fold the block's flat thread index Ind (tx + ty * kBlockX) into a column and a row of the tile, using the tile's width; each pass then covers kRowsPerPass rows, and kPasses passes, each that many rows further down, cover the kHeight rows. Keep: every cell of the tile written, 0 outside the array (g.in_array), as step 03's load_tile. Avoid: re-folding by the block's width (32) instead of the tile's, and moving a pass on by one row. The threads past the last whole row of a pass only write again cells that the next pass writes with the same values: stopping them saves work, it is not needed for a correct tile
  const int ind = threadIdx.x + threadIdx.y * kBlockX;
  const int ix = ind % kWidth;
  int iy = ind / kWidth;
  if (iy >= kRowsPerPass) return;  // the threads past the last whole row of a pass idle
  for (int pass = 0; pass < kPasses; ++pass, iy += kRowsPerPass) {
    if (iy < kHeight) tile[iy][ix] = g.in_array(x0 + ix, y0 + iy, z) ? in[g.at(x0 + ix, y0 + iy, z)] : 0.0f;
  }
  // END SOLUTION
}

template <class Stencil>
__global__ void plane_load_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  constexpr int kWidth = kBlockX + 2 * Stencil::rx;
  constexpr int kHeight = kBlockY + 2 * Stencil::ry;
  constexpr int kPlanes = 2 * Stencil::rz + 1;
  __shared__ float planes[kPlanes][kHeight][kWidth];
  const int x0 = blockIdx.x * kBlockX - Stencil::rx;
  const int y0 = blockIdx.y * kBlockY - Stencil::ry;
  const int x = x0 + Stencil::rx + threadIdx.x, y = y0 + Stencil::ry + threadIdx.y;

  float (*slot[kPlanes])[kWidth];
  for (int p = 0; p < kPlanes; ++p) slot[p] = planes[p];

  // 1. Prime the queue: planes -rz .. rz-1 into slots 1 .. 2rz.
  for (int p = 1; p < kPlanes; ++p) load_plane<Stencil, kWidth>(slot[p], in, g, x0, y0, p - 1 - Stencil::rz);

  for (int z = 0; z < g.dz; ++z) {
    // 2. Load plane z + rz over the oldest slot, then rotate.
    __syncthreads();
    load_plane<Stencil, kWidth>(slot[0], in, g, x0, y0, z + Stencil::rz);
    float (*newest)[kWidth] = slot[0];
    for (int p = 0; p + 1 < kPlanes; ++p) slot[p] = slot[p + 1];
    slot[kPlanes - 1] = newest;
    __syncthreads();

    // 3. Apply F and write.
    if (x < g.dx && y < g.dy) {
      out[g.at(x, y, z)] = apply<Stencil, float>([&](int i, int j, int k) {
        return slot[Stencil::rz + k][threadIdx.y + Stencil::ry + j][threadIdx.x + Stencil::rx + i];
      });
    }
  }
}

// For the part test (parts.hpp): the plane load alone, each block's tile of plane z copied out.
template <class Stencil>
__global__ void plane_probe_kernel(const float* __restrict__ in, float* __restrict__ tiles, Grid g, int z) {
  constexpr int kWidth = kBlockX + 2 * Stencil::rx;
  constexpr int kHeight = kBlockY + 2 * Stencil::ry;
  __shared__ float tile[kHeight][kWidth];
  load_plane<Stencil, kWidth>(tile, in, g, blockIdx.x * kBlockX - Stencil::rx, blockIdx.y * kBlockY - Stencil::ry, z);
  __syncthreads();
  float* mine = tiles + (static_cast<long long>(blockIdx.y) * gridDim.x + blockIdx.x) * kHeight * kWidth;
  for (int ly = threadIdx.y; ly < kHeight; ly += kBlockY)
    for (int lx = threadIdx.x; lx < kWidth; lx += kBlockX) mine[ly * kWidth + lx] = tile[ly][lx];
}

}  // namespace

template <class Stencil>
void stencil_plane_load(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  course::launch(plane_load_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY)), dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

namespace parts {

template <class Stencil>
Tile tile_04() {
  return {kBlockX, kBlockY, Stencil::rx, Stencil::ry, kBlockX + 2 * Stencil::rx, kBlockY + 2 * Stencil::ry};
}

template <class Stencil>
void plane_load_04(const float* in, float* tiles, const Grid& grid, int z) {
  course::launch(plane_probe_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY)), dim3(kBlockX, kBlockY)},
                 in, tiles, grid, z);
}

#define CH02_PARTS_04(Op, ...)  \
  template Tile tile_04<Op>(); \
  template void plane_load_04<Op>(const float*, float*, const Grid&, int);
CH02_OPERATORS(CH02_PARTS_04)
#undef CH02_PARTS_04

}  // namespace parts

CH02_INSTANTIATE(stencil_plane_load)

}  // namespace ch02
