// Step 05 — x and y fused: one kernel writes out = Dxx + Dyy, with streaming stores.
//
// Steps 03-04's x pass writes out and the y pass reads it back and writes it again: 4 + 8 bytes
// per point that a fused kernel does not move. Here step 04's y tile also serves x: a thread's
// own float4 is the tile's, its left and right neighbours (x0 - 4 .. x0 - 1, x0 + 4 .. x0 + 7)
// are two more float4 loads, mostly L1 hits since the neighbouring threads load them into the
// tile. The result is stored with course::store_streaming (st.global.cs, a non-temporal store):
// it will not be read again before the z pass, so it should not push the input out of L2.
// Bytes per point at best: xy 8 (read in, write out), z 12 (step 02's add_z_window, in
// 02_sliding_window.cu): 20, down from 28.
// Predicted: the x and y passes' time (2 x 8 + 12 = 20 of 28 bytes) replaced by one pass of 8,
// the whole from 28/8 to 20/8 of the one-pass time: 1.4x step 04.
// The z pass stays step 02's window although step 03's float4 columns are faster (0.387 against
// 0.424 ms alone on the H200): step 04 uses the same window, so step 05's gain over it is the
// fusion's alone, and a student needs only step 02's z pass here. With the float4 columns the
// profiled kernels add up to 0.819 ms on the H200 (the README's speed-up model, T_xy + T_z), not
// run as a step.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit 6ccb24c8574c, 2026-11-24):
//     05_xy_fused  laplacian8 512^3  1.0411 ms, 1031 GB/s (0.344 of copy), 6446 GFLOP/s (0.109 of FMA)
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
  // BEGIN SOLUTION: stage the y tile as in step 04; then x from the tile's centre float4 and its left and right float4 neighbours, y from the tile; store with course::store_streaming
  __shared__ float4 tile[kTileRows][kTileX];
  const int x0 = (blockIdx.x * kTileX + threadIdx.x) * 4;
  const int y0 = blockIdx.y * kTileY;
  const int y = y0 + threadIdx.y;
  const int z = blockIdx.z;
  // 1. Stage rows y0 - R .. y0 + kTileY + R - 1 of the plane.
#pragma unroll
  for (int row = threadIdx.y; row < kTileRows; row += kTileY) {
    const int source_y = y0 - kRadius + row;
    tile[row][threadIdx.x] = x0 < g.dx && source_y < g.dy + kRadius
                                 ? *reinterpret_cast<const float4*>(in + g.at(x0, source_y, z))
                                 : zero<float4>();
  }
  __syncthreads();
  if (x0 >= g.dx || y >= g.dy) return;
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
  // STUB: (void)in; (void)out; (void)g;
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
