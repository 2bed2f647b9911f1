// Generated from solutions/02_stencil/04_plane_load.cu by exercises/generate.py (fingerprint d8561adf2ef7): edit the TODOs.
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
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kThreads = kBlockX * kBlockY;

// Copies plane z of the block's haloed tile, whole tile rows per pass.
template <class Stencil, int kWidth>
__device__ void load_plane(float (*tile)[kWidth], const float* __restrict__ in, const Grid& g, int x0, int y0, int z) {
  // TODO: Ind = tx + ty*Bx; ix = Ind % kWidth; iy = Ind / kWidth; Ry = kThreads / kWidth rows per pass
}

template <class Stencil>
__global__ void plane_load_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // TODO: step 03's kernel with load_plane in place of its tile load
}

}  // namespace

template <class Stencil>
void stencil_plane_load(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  course::launch(plane_load_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY)), dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

CH02_INSTANTIATE(stencil_plane_load)

}  // namespace ch02
