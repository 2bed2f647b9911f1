// Generated from solutions/02_stencil/01_coalesced.cu by exercises/generate.py (fingerprint 683e81a8fb57): edit the TODOs.
// Step 01 — coalescing: a warp along x.
//
// The same thread per point, in 32x8 blocks, one z-plane per block row of the grid: a warp is
// 32 consecutive points of one row, so each of its loads is one 128-byte line of the row (the
// grid's rows are padded so that their interior starts on a line boundary) plus one sector for
// the points shifted left or right. Stores are whole lines.
// Predicted: fewer sectors and requests per load than step 00; still every neighbour read from
// L1/L2 by every output that needs it.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     01_coalesced  star7 512^3        0.5261 ms, 2041 GB/s (0.681 of copy), 3572 GFLOP/s (0.060 of FMA)
//     01_coalesced  box27 512^3        0.8980 ms, 1196 GB/s (0.399 of copy), 8071 GFLOP/s (0.136 of FMA)
//     01_coalesced  compound_r1 512^3  0.8591 ms, 1250 GB/s (0.417 of copy), 8437 GFLOP/s (0.142 of FMA)
//     01_coalesced  compound_r2 512^3  2.6121 ms, 411 GB/s (0.137 of copy), 12846 GFLOP/s (0.217 of FMA)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     01_coalesced  star7 512^3        0.4973 ms, 2159 GB/s (0.513 of copy), 3778 GFLOP/s (0.065 of FMA)
//     01_coalesced  box27 512^3        0.8886 ms, 1208 GB/s (0.287 of copy), 8157 GFLOP/s (0.139 of FMA)
//     01_coalesced  compound_r1 512^3  0.8495 ms, 1264 GB/s (0.301 of copy), 8532 GFLOP/s (0.146 of FMA)
//     01_coalesced  compound_r2 512^3  2.6257 ms, 409 GB/s (0.097 of copy), 12779 GFLOP/s (0.218 of FMA)
// END MEASURED
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
