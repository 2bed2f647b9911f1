// Generated from solutions/02_stencil/02_shared_tile.cu by exercises/generate.py (fingerprint 8bb2f476c7b9): edit the TODOs.
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
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 2 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

template <class Stencil>
__global__ void shared_tile_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // TODO: load the 2rz+1 haloed tiles (covering loops over the tile, 0 outside the array), barrier, apply from shared memory
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
