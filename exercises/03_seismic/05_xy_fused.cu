// Generated from solutions/03_seismic/05_xy_fused.cu by exercises/generate.py (fingerprint 97d6a3791dfb): edit the TODOs.
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
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 3 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
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
  // TODO: part 1 of 2, the tile: stage rows y0 - R .. y0 + kTileY + R - 1 of plane z as in step 04 (thread row threadIdx.y stages tile rows threadIdx.y and threadIdx.y + kTileY; zeros where x0 >= dx or past the array), then __syncthreads(). Invariant: every thread stages its rows and reaches the barrier, those outside the interior included. Mistake to avoid: returning early for threads outside the interior.
  if (x0 >= g.dx || y >= g.dy) return;
  // TODO: part 2 of 2, x and y together: the x window is 12 floats, x0 - 4 .. x0 + 7: the float4 at x0 - 4 and the one at x0 + 4 from global memory (L1 hits: the neighbouring threads load them too) and the centre from tile row threadIdx.y + R; lane i of the result = sum over r = 0 .. 2R of weight(r - R) * (window float i + r + lane i of tile row threadIdx.y + r); store it with course::store_streaming, lane by lane past dx. Invariant: out is written once and never read: this pass moves 8 bytes a point. Mistake to avoid: counting the centre twice in the x sum, or adding to out (out = Dxx + Dyy here; the z pass adds to it afterwards).
  (void)in; (void)out;
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
