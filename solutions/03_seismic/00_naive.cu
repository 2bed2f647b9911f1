// Step 00 — naive: three passes, a thread per point, every neighbour from global memory.
//
// The x pass writes out = Dxx(in); the y and z passes read out back and add their derivative.
// A block is 64 x 4 points of one z-plane. The grid's rows are packed (pitch = dx + 8 floats),
// so a row's interior starts anywhere in a 128-byte line and a warp's 32 floats straddle two.
// Bytes each pass must move at best: x 8 per point (read in, write out), y and z 12 (read in,
// read out, write out): 32 per point, where the fused problem needs 8. The neighbours come from
// L1/L2: a z-neighbour 4 planes away is 4 MB back at 512^3, so the z pass re-reads its input
// from L2 or HBM nine times unless the cache keeps 9 planes (9 MB) alive.
// Predicted: the three passes at best 8/32 = 0.25 of the copy rate counted as the fused
// problem's 8 bytes per point; the z pass well below that.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     00_naive  laplacian8 512^3  2.1769 ms, 493 GB/s (0.165 of copy), 3083 GFLOP/s (0.052 of FMA)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     00_naive  laplacian8 512^3  1.8585 ms, 578 GB/s (0.136 of copy), 3611 GFLOP/s (0.061 of FMA)
// END MEASURED
#include "steps.hpp"

namespace ch03 {
namespace {

constexpr int kBlockX = 64, kBlockY = 4;

// Dxx, Dyy or Dzz (kAxis 0, 1, 2) of point (x, y, z): the nine neighbours along one axis.
template <int kAxis>
__device__ float second_difference(const float* __restrict__ in, const Grid& g, int x, int y, int z) {
  float sum = 0.0f;
#pragma unroll
  for (int i = -kRadius; i <= kRadius; ++i)
    sum += weight(i) * in[g.at(x + (kAxis == 0 ? i : 0), y + (kAxis == 1 ? i : 0), z + (kAxis == 2 ? i : 0))];
  return sum;
}

// kAxis 0 writes out; 1 and 2 add to it.
template <int kAxis>
__global__ void naive_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z;
  if (x >= g.dx || y >= g.dy) return;
  const float d2 = second_difference<kAxis>(in, g, x, y, z);
  if (kAxis == 0) {
    out[g.at(x, y, z)] = d2;
  } else {
    out[g.at(x, y, z)] += d2;
  }
}

}  // namespace

void laplacian_naive(const float* in, float* out, const Grid& grid) {
  course::require_halo<Laplacian8>(grid);
  const course::LaunchShape shape{dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY), grid.dz),
                                  dim3(kBlockX, kBlockY)};
  course::launch(naive_kernel<0>, shape, in, out, grid);
  course::launch(naive_kernel<1>, shape, in, out, grid);
  course::launch(naive_kernel<2>, shape, in, out, grid);
}

}  // namespace ch03
