// Generated from solutions/02_stencil/04_plane_load.cu by exercises/generate.py (fingerprint 5192fbf03ea1): edit the TODOs.
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
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 2 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
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
  // TODO: part 1 of 1, the plane load: the idea is that each pass reads whole tile rows with consecutive threads. Re-fold the block's flat thread index Ind (tx + ty * kBlockX) into a column and a row of the tile, using the tile's width; each pass then covers kRowsPerPass rows, and kPasses passes, each that many rows further down, cover the kHeight rows. Keep: every cell of the tile written, 0 outside the array (g.in_array), as step 03's load_tile. Avoid: re-folding by the block's width (32) instead of the tile's, and moving a pass on by one row. The threads past the last whole row of a pass only write again cells that the next pass writes with the same values: stopping them saves work, it is not needed for a correct tile
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
