// Generated from solutions/02_stencil/01_coalesced.cu by exercises/generate.py (fingerprint 31db7be76fa9): edit the TODOs.
// Step 01 — coalescing: a warp along x.
//
// The same thread per point, in 32x8 blocks, one z-plane per block row of the grid: a warp is
// 32 consecutive points of one row, so each of its loads is one 128-byte line of the row (the
// grid's rows are padded so that their interior starts on a line boundary) plus one sector for
// the points shifted left or right. Stores are whole lines.
// Predicted: fewer sectors and requests per load than step 00; still every neighbour read from
// L1/L2 by every output that needs it.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 2 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

template <class Stencil>
__global__ void coalesced_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // TODO: as step 00, with x from threadIdx.x of a 32-wide block, y from threadIdx.y, z = blockIdx.z
}

}  // namespace

template <class Stencil>
void stencil_coalesced(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  course::launch(coalesced_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY), grid.dz),
                  dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

CH02_INSTANTIATE(stencil_coalesced)

}  // namespace ch02
