// Step 05 — x and y fused: one kernel writes out = Dxx + Dyy, with streaming stores.
//
// Steps 03-04's x pass writes out and the y pass reads it back and writes it again: 4 + 8 bytes
// per point that a fused kernel does not move. Here step 04's y tile also serves x: a thread's
// own float4 is the tile's, its left and right neighbours (x0 - 4 .. x0 - 1, x0 + 4 .. x0 + 7)
// are two more float4 loads, mostly L1 hits since the neighbouring threads load them into the
// tile. The result is stored with course::store_streaming (st.global.cs, a non-temporal store):
// it will not be read again before the z pass, so it should not push the input out of L2.
// Bytes per point at best: xy 8 (read in, write out), z 12 (step 02's add_z_window, in
// 02_sliding_window.cu): 20, down from 32.
// Predicted: the x and y passes' bytes (8 + 12 = 20 of 32) replaced by one pass of 8, the whole
// from 32/8 to 20/8 of the one-pass time: 1.6x step 04.
// The z pass stays step 02's window although step 03's float4 columns (an experiment) are faster:
// step 04 uses the same window, so step 05's gain over it is the fusion's alone, and a student
// needs only step 02's z pass here.
// BEGIN FINDINGS
// The z pass alone on the H200: step 02's window 0.425 ms (results/h200/traffic.csv), step 03's
// float4 columns 0.387 ms in the earlier recording of a4744eb8f0e5 (whose profile covered the
// experiments); with them the profiled kernels add up to 0.819 ms there (NOTES.md, the speed-up
// model, T_xy + T_z), not run as a step.
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     05_xy_fused  laplacian8 512^3  1.0419 ms, 1031 GB/s (0.344 of copy), 6441 GFLOP/s (0.109 of FMA)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     05_xy_fused  laplacian8 512^3  0.8599 ms, 1249 GB/s (0.295 of copy), 7804 GFLOP/s (0.133 of FMA)
// END MEASURED
#include "steps.hpp"

namespace ch03 {
namespace {

constexpr int kTileX = 32, kTileY = 8;   // threads of the xy pass, one float4 each
constexpr int kTileRows = kTileY + 2 * kRadius;

// out = Dxx(in) + Dyy(in), 4 points per thread, from a tile of rows for y and registers for x.
__global__ void COURSE_LAUNCH_BOUNDS(kTileX* kTileY) xy_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  __shared__ float4 tile[kTileRows][kTileX];
  const int x0 = (blockIdx.x * kTileX + threadIdx.x) * 4;
  const int y0 = blockIdx.y * kTileY;
  const int y = y0 + threadIdx.y;
  const int z = blockIdx.z;
  // BEGIN SOLUTION: part 1 of 2, the tile: stage rows y0 - R .. y0 + kTileY + R - 1 of plane z as in step 04 (thread row threadIdx.y stages tile rows threadIdx.y and threadIdx.y + kTileY; zeros where x0 >= dx or past the array), then __syncthreads(). Invariant: every thread stages its rows and reaches the barrier, those outside the interior included. Mistake to avoid: returning early for threads outside the interior.
  // 1. Stage rows y0 - R .. y0 + kTileY + R - 1 of the plane.
#pragma unroll
  for (int row = threadIdx.y; row < kTileRows; row += kTileY) {
    const int source_y = y0 - kRadius + row;
    tile[row][threadIdx.x] = x0 < g.dx && source_y < g.dy + kRadius
                                 ? *reinterpret_cast<const float4*>(in + g.at(x0, source_y, z))
                                 : zero<float4>();
  }
  __syncthreads();
  // END SOLUTION
  if (x0 >= g.dx || y >= g.dy) return;
  // BEGIN SOLUTION: part 2 of 2, x and y together: the x window is 12 floats, x0 - 4 .. x0 + 7: the float4 at x0 - 4 and the one at x0 + 4 from global memory (L1 hits: the neighbouring threads load them too) and the centre from tile row threadIdx.y + R; lane i of the result = sum over r = 0 .. 2R of weight(r - R) * (window float i + r + lane i of tile row threadIdx.y + r); store it with course::store_streaming, lane by lane past dx. Invariant: out is written once and never read: this pass moves 8 bytes a point. Mistake to avoid: counting the centre twice in the x sum, or adding to out (out = Dxx + Dyy here; the z pass adds to it afterwards).
  // 2. The x window: floats x0 - 4 .. x0 + 7, the centre from the tile.
  const float* row = in + g.at(x0, y, z);
  const float4 window[3] = {*reinterpret_cast<const float4*>(row - 4), tile[threadIdx.y + kRadius][threadIdx.x],
                            *reinterpret_cast<const float4*>(row + 4)};
  const float* w = reinterpret_cast<const float*>(window);
  // 3. Compute x and y.
  float4 sum;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    float s = 0.0f;
#pragma unroll
    for (int r = 0; r <= 2 * kRadius; ++r) s += weight(r - kRadius) * (w[i + r] + lane(tile[threadIdx.y + r][threadIdx.x], i));
    lane(sum, i) = s;
  }
  // 4. Store, bypassing the caches' keep-alive policy.
  float* target = out + g.at(x0, y, z);
  if (x0 + 4 <= g.dx) {
    course::store_streaming(reinterpret_cast<float4*>(target), sum);
  } else {
    for (int i = 0; i < 4 && x0 + i < g.dx; ++i) course::store_streaming(target + i, lane(sum, i));
  }
  // STUB: (void)in; (void)out;
  // END SOLUTION
}

}  // namespace

void laplacian_xy_fused(const float* in, float* out, const Grid& grid) {
  require_aligned_rows(grid, 64, "step 05");
  course::launch(xy_kernel,
                 {dim3(course::blocks_for(grid.dx, kTileX * 4), course::blocks_for(grid.dy, kTileY), grid.dz), dim3(kTileX, kTileY)},
                 in, out, grid);
  add_z_window(in, out, grid);
}

}  // namespace ch03
