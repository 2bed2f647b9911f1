// Copied from solutions/02_stencil/00_naive.cu by exercises/generate.py (fingerprint b7a445adf209): given complete.
// Step 00 — naive. The reference point every later step is measured against.
//
// One thread per output point in 8x8x8 blocks, every neighbour read from global memory. A warp
// is 8 points of 4 rows: each of its loads touches 4 rows, and the neighbours one step to the
// left or right of the warp's 8 points spill into the next sector, so each load moves 4-8
// sectors for 128 useful bytes. Each input value is read by every output that needs it (7, 27 or
// 125 times) and only the caches stand between that and DRAM.
// Predicted: limited by L1/L2 traffic, well under half the copy bandwidth.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 2 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kEdge = 8;

template <class Stencil>
__global__ void naive_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < g.dx && y < g.dy && z < g.dz) {
    out[g.at(x, y, z)] = apply<Stencil, float>([&](int i, int j, int k) { return in[g.at(x + i, y + j, z + k)]; });
  }
}

}  // namespace

template <class Stencil>
void stencil_naive(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  course::launch(naive_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kEdge), course::blocks_for(grid.dy, kEdge), course::blocks_for(grid.dz, kEdge)),
                  dim3(kEdge, kEdge, kEdge)},
                 in, out, grid);
}

CH02_INSTANTIATE(stencil_naive)

}  // namespace ch02
