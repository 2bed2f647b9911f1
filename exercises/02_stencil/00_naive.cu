// Copied from solutions/02_stencil/00_naive.cu by exercises/generate.py (fingerprint 30164fddbcfa): given complete.
// Step 00 — naive. The reference point every later step is measured against.
//
// One thread per output point in 8x8x8 blocks, every neighbour read from global memory. A warp
// is 8 points of 4 rows: each of its loads touches 4 rows, and the neighbours one step to the
// left or right of the warp's 8 points spill into the next sector, so each load moves 4-8
// sectors for 128 useful bytes. Each input value is read by every output that needs it (7, 27 or
// 125 times) and only the caches stand between that and DRAM.
// Predicted: limited by L1/L2 traffic, well under half the copy bandwidth.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     00_naive  star7 512^3        0.7427 ms, 1446 GB/s (0.482 of copy), 2530 GFLOP/s (0.043 of FMA)
//     00_naive  box27 512^3        1.9702 ms, 545 GB/s (0.182 of copy), 3679 GFLOP/s (0.062 of FMA)
//     00_naive  compound_r1 512^3  1.9716 ms, 545 GB/s (0.182 of copy), 3676 GFLOP/s (0.062 of FMA)
//     00_naive  compound_r2 512^3  8.3252 ms, 129 GB/s (0.043 of copy), 4030 GFLOP/s (0.068 of FMA)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     00_naive  star7 512^3        0.6714 ms, 1599 GB/s (0.380 of copy), 2799 GFLOP/s (0.048 of FMA)
//     00_naive  box27 512^3        1.9753 ms, 544 GB/s (0.129 of copy), 3669 GFLOP/s (0.063 of FMA)
//     00_naive  compound_r1 512^3  1.9756 ms, 544 GB/s (0.129 of copy), 3669 GFLOP/s (0.063 of FMA)
//     00_naive  compound_r2 512^3  8.3308 ms, 129 GB/s (0.031 of copy), 4028 GFLOP/s (0.069 of FMA)
// END MEASURED
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
