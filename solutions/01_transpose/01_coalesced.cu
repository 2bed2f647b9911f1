// Step 01 — coalescing: re-map threads so that a warp touches consecutive addresses.
//
// Transpose: threadIdx.x now runs along a *column* of the input, so the writes are coalesced and
// the reads are strided. One side of a transpose is always strided when each thread moves one
// element straight from global to global memory: re-mapping only moves the problem. Predicted:
// no better than step 00 (reads and writes are both served in 32-byte sectors, and a strided
// read wastes as much as a strided write). Step 02 needs shared memory to fix both sides.
// BEGIN FINDINGS
// (The prediction was wrong, and the traffic table in NOTES.md says why: the strided reads of the
// 8 warps of a block hit the same sectors in L1, while strided writes cannot be merged in the
// write-through L1.)
// END FINDINGS
//
// Column consumer y = A^T x: here the algorithm allows it. One *thread* per column, a warp
// across 32 neighbouring columns, so lane l reads A[r][c0 + l]: one 128-byte line per warp load.
// The 8 rows of threads (threadIdx.y) split the rows of A between them; shared memory adds their
// 8 partial sums. The row loop steps by the compile-time kBlockY, not blockDim.y: with a stride
// the compiler knows, it unrolls the loop by 4, four loads of A per iteration that wait on no
// other load, so all four can be in flight; with blockDim.y (a run-time value) each iteration
// has one load, issued after the previous iteration's FMA, and a thread keeps one load in
// flight, for which Little's law predicts about 0.36 of the copy bandwidth. The PTX of both loops
// shows this (the chapter's results/h200/compiled.txt); what it is worth in time is not measured:
// the blockDim.y version is not among the benchmark's cases (NOTES.md, "Not measured; to do").
// Predicted: 8x less traffic than step 00, and, by Little's law, the copy bandwidth: 512 blocks
// of 256 threads is ~990 threads per multiprocessor, 4 loads of 4 bytes each, ~16 KB per
// multiprocessor, more than the ~11 KB the copy needs at the idle latency.
// BEGIN FINDINGS
// Measured: 0.83 of the copy, and 3.6x step 00, not 8x: the caches had already kept step 00's
// DRAM traffic to 1.19x the matrix (NOTES.md's traffic table). Why not the copy is not separated:
// 512 blocks fill 48% of the thread slots, and 16 KB in flight per multiprocessor may be too few
// once the latency grows under load (NOTES.md, "Bytes in flight").
// END FINDINGS
// What it gives up: a warp no longer owns a column, so a consumer whose algorithm needs a
// column per warp (a per-column scan, sort or solve) cannot be written this way — step 03.
// The exercise: part 1 turns the transpose's threads around; part 2 is the thread-per-column
// consumer, its eight row sums added in shared memory.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     01_write_coalesced  transpose 16384x16384  1.3486 ms, 1592 GB/s (0.533 of copy)
//     01_coalesced        A^T x, 1 passes        0.3955 ms, 2715 GB/s (0.909 of copy), 2529 passes/s
//     01_coalesced        A^T x, 2 passes        0.7917 ms, 2712 GB/s (0.908 of copy), 2526 passes/s
//     01_coalesced        A^T x, 4 passes        1.5815 ms, 2716 GB/s (0.910 of copy), 2529 passes/s
//     01_coalesced        A^T x, 8 passes        3.1647 ms, 2714 GB/s (0.909 of copy), 2528 passes/s
//     01_coalesced        A^T x, 16 passes       6.3328 ms, 2713 GB/s (0.909 of copy), 2527 passes/s
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     01_write_coalesced  transpose 16384x16384  1.2427 ms, 1728 GB/s (0.410 of copy)
//     01_coalesced        A^T x, 1 passes        0.3071 ms, 3496 GB/s (0.830 of copy), 3256 passes/s
//     01_coalesced        A^T x, 2 passes        0.6138 ms, 3499 GB/s (0.830 of copy), 3258 passes/s
//     01_coalesced        A^T x, 4 passes        1.2275 ms, 3499 GB/s (0.830 of copy), 3259 passes/s
//     01_coalesced        A^T x, 8 passes        2.4528 ms, 3502 GB/s (0.831 of copy), 3262 passes/s
//     01_coalesced        A^T x, 16 passes       4.9072 ms, 3501 GB/s (0.831 of copy), 3260 passes/s
// END MEASURED
#include "lane_sum.cuh"
#include "transpose.hpp"

namespace ch01 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

__global__ void transpose_write_coalesced_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                                                 int cols) {
  // BEGIN SOLUTION: part 1 of 2, the transpose turned around: one thread per element as in step 00, but with threadIdx.x (and blockIdx.x) running down a column of in, so that a warp writes 32 consecutive floats of a row of out; keep out[col][row] = in[row][col] and check row < rows and col < cols; the launch below already gives x the rows and y the columns: swapping them back gives step 00 again
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) out[static_cast<size_t>(col) * rows + row] = in[static_cast<size_t>(row) * cols + col];
  // END SOLUTION
}

__global__ void multiply_transposed_coalesced_kernel(const float* __restrict__ a, const float* __restrict__ x,
                                                     float* __restrict__ y, int rows, int cols) {
  // Part 2, a thread per column. Idea: a thread owns a column and a warp 32 neighbouring columns,
  // so each warp load reads 32 neighbouring floats of one row (coalesced); the block's kBlockY rows
  // of threads share out the rows of A, and shared memory adds their kBlockY sums of each column.
  // Keep: fmaf in row order within a thread; a row loop that steps by the constant kBlockY, which
  // lets the compiler unroll it and keep several loads in flight. Avoid: blockDim.y as the stride
  // (a run-time value: one load in flight), and a barrier that threads past the last column skip.
  // BEGIN SOLUTION: part 2 of 2, a thread per column: the idea, what to keep and what to avoid are in the comment above
  __shared__ float partials[kBlockY][kBlockX];
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  float partial = 0.0f;
  if (col < cols) {
    for (int row = threadIdx.y; row < rows; row += kBlockY) {  // a compile-time stride: unrolled, 4 loads in flight
      partial = fmaf(a[static_cast<size_t>(row) * cols + col], x[row], partial);
    }
  }
  partials[threadIdx.y][threadIdx.x] = partial;
  __syncthreads();
  if (threadIdx.y == 0 && col < cols) {
    float total = 0.0f;
    for (int i = 0; i < kBlockY; ++i) total += partials[i][threadIdx.x];
    y[col] = total;
  }
  // END SOLUTION
}

}  // namespace

void transpose_write_coalesced(const float* in, float* out, int rows, int cols) {
  course::launch(transpose_write_coalesced_kernel,
                 {dim3(course::blocks_for(rows, kBlockX), course::blocks_for(cols, kBlockY)), dim3(kBlockX, kBlockY)}, in,
                 out, rows, cols);
}

void multiply_transposed_coalesced(const float* a, const float* x, float* y, int rows, int cols) {
  course::launch(multiply_transposed_coalesced_kernel, {dim3(course::blocks_for(cols, kBlockX)), dim3(kBlockX, kBlockY)},
                 a, x, y, rows, cols);
}

}  // namespace ch01
