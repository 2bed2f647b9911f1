// Step 04 — several rows per thread.
//
// Step 02's padded tile with a 32x8 block instead of 32x32: each thread moves 4 elements, rows
// threadIdx.y, +8, +16, +24 of the tile. Why it should help: a 1024-thread block that waits at
// its barrier idles 1024 threads; four smaller blocks on the same multiprocessor keep loads in
// flight while one of them waits, each thread has 4 independent loads in flight before it needs
// any, and there is a quarter of the index arithmetic per element.
// Predicted: from step 02's padded figure toward ~85% of the copy bandwidth (the classic result
// for this kernel).
// BEGIN FINDINGS
// Measured: 0.79, short of it; the profile shows 69% of issue slots busy, one
// 4-byte access per instruction, which is likely the limit (step 05's float4s bring it to 9%).
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     04_rows_per_thread  transpose 16384x16384  0.7765 ms, 2766 GB/s (0.926 of copy)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     04_rows_per_thread  transpose 16384x16384  0.6479 ms, 3315 GB/s (0.787 of copy)
// END MEASURED
#include "transpose.hpp"

namespace ch01 {
namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_rows_per_thread_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                                                 int cols) {
  // BEGIN SOLUTION: as step 02 (padded), but each thread loops over rows threadIdx.y + 0, 8, 16, 24 of the tile
  __shared__ float tile[kTile][kTile + 1];
  const int tile_row = blockIdx.y * kTile;
  const int tile_col = blockIdx.x * kTile;

  // 1. Four coalesced row reads per thread, all issued before any is needed.
  const int col = tile_col + threadIdx.x;
  for (int i = threadIdx.y; i < kTile; i += kBlockRows) {
    const int row = tile_row + i;
    if (row < rows && col < cols) tile[i][threadIdx.x] = in[static_cast<size_t>(row) * cols + col];
  }
  __syncthreads();

  // 2. Four coalesced row writes of the output tile, from columns of the shared tile.
  const int out_col = tile_row + threadIdx.x;
  for (int i = threadIdx.y; i < kTile; i += kBlockRows) {
    const int out_row = tile_col + i;
    if (out_row < cols && out_col < rows) out[static_cast<size_t>(out_row) * rows + out_col] = tile[threadIdx.x][i];
  }
  // END SOLUTION
}

}  // namespace

void transpose_rows_per_thread(const float* in, float* out, int rows, int cols) {
  course::launch(transpose_rows_per_thread_kernel,
                 {dim3(course::blocks_for(cols, kTile), course::blocks_for(rows, kTile)), dim3(kTile, kBlockRows)}, in,
                 out, rows, cols);
}

}  // namespace ch01
