// Step 00 — naive. The reference point every later step is measured against.
//
// Transpose: one thread per element, threadIdx.x along a row of the input. A warp reads 32
// consecutive floats (one 128-byte line: coalesced) and writes 32 floats `rows` apart in the
// output: 32 sectors of 32 bytes, each carrying 4 useful bytes.
// Predicted: write-bound at 1/8 sector efficiency, ~1/8 of the copy bandwidth.
// BEGIN FINDINGS
// The count left out the reads, which are coalesced: counted in bytes, a warp moves 1 unit to
// read and 8 to write for 2 useful, 2/9 = 0.22 of the copy. Measured: 0.12, below both counts,
// with DRAM moving only 2.27x the matrix; the 8x L2 write requests are the likely limit
// (NOTES.md, "00 — naive").
// END FINDINGS
//
// Column consumer y = A^T x: a warp per column, its lanes stepping down the rows — the
// column-sequential access of the patent. Lane l reads rows l, l+32, ...: every lane in its own
// sector, 4 useful bytes of every 32 fetched.
// Predicted: ~1/8 of the copy bandwidth, unless the caches keep the sectors that the warps of a
// block, on neighbouring columns, share.
// BEGIN FINDINGS
// They do: 0.23 of the copy, DRAM 1.19x the matrix (NOTES.md's traffic table).
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     00_naive  transpose 16384x16384  5.0842 ms, 422 GB/s (0.141 of copy)
//     00_naive  A^T x, 1 passes        1.3680 ms, 785 GB/s (0.263 of copy), 731 passes/s
//     00_naive  A^T x, 2 passes        2.7586 ms, 778 GB/s (0.261 of copy), 725 passes/s
//     00_naive  A^T x, 4 passes        5.4651 ms, 786 GB/s (0.263 of copy), 732 passes/s
//     00_naive  A^T x, 8 passes        10.9668 ms, 783 GB/s (0.262 of copy), 729 passes/s
//     00_naive  A^T x, 16 passes       22.0374 ms, 780 GB/s (0.261 of copy), 726 passes/s
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     00_naive  transpose 16384x16384  4.3658 ms, 492 GB/s (0.117 of copy)
//     00_naive  A^T x, 1 passes        1.1185 ms, 960 GB/s (0.228 of copy), 894 passes/s
//     00_naive  A^T x, 2 passes        2.2410 ms, 958 GB/s (0.227 of copy), 892 passes/s
//     00_naive  A^T x, 4 passes        4.4768 ms, 959 GB/s (0.228 of copy), 893 passes/s
//     00_naive  A^T x, 8 passes        8.9522 ms, 960 GB/s (0.228 of copy), 894 passes/s
//     00_naive  A^T x, 16 passes       17.9047 ms, 960 GB/s (0.228 of copy), 894 passes/s
// END MEASURED
#include "lane_sum.cuh"
#include "transpose.hpp"

namespace ch01 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) out[static_cast<size_t>(col) * rows + row] = in[static_cast<size_t>(row) * cols + col];
}

// Warp threadIdx.y of the block owns column blockIdx.x * blockDim.y + threadIdx.y.
__global__ void multiply_transposed_naive_kernel(const float* __restrict__ a, const float* __restrict__ x,
                                                 float* __restrict__ y, int rows, int cols) {
  const int col = blockIdx.x * blockDim.y + threadIdx.y;
  float partial = 0.0f;
  if (col < cols) {
    for (int row = threadIdx.x; row < rows; row += kLanes) {
      partial = fmaf(a[static_cast<size_t>(row) * cols + col], x[row], partial);
    }
  }
  const float total = lane_sum(partial);  // every thread takes part: it holds barriers
  if (col < cols && threadIdx.x == 0) y[col] = total;
}

}  // namespace

void transpose_naive(const float* in, float* out, int rows, int cols) {
  course::launch(transpose_naive_kernel, {dim3(course::blocks_for(cols, kBlockX), course::blocks_for(rows, kBlockY)), dim3(kBlockX, kBlockY)},
                 in, out, rows, cols);
}

void multiply_transposed_naive(const float* a, const float* x, float* y, int rows, int cols) {
  course::launch(multiply_transposed_naive_kernel, {dim3(course::blocks_for(cols, kBlockY)), dim3(kLanes, kBlockY)}, a, x, y,
                 rows, cols);
}

}  // namespace ch01
