// Generated from solutions/01_transpose/01_coalesced.cu by exercises/generate.py (fingerprint fc1c089c3864): edit the TODOs.
// Step 01 — coalescing: re-map threads so that a warp touches consecutive addresses.
//
// Transpose: threadIdx.x now runs along a *column* of the input, so the writes are coalesced and
// the reads are strided. One side of a transpose is always strided when each thread moves one
// element straight from global to global memory: re-mapping only moves the problem. Predicted:
// no better than step 00 (reads and writes are both served in 32-byte sectors, and a strided
// read wastes as much as a strided write). Step 02 needs shared memory to fix both sides.
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
// What it gives up: a warp no longer owns a column, so a consumer whose algorithm needs a
// column per warp (a per-column scan, sort or solve) cannot be written this way — step 03.
// The exercise: part 1 turns the transpose's threads around; part 2 is the thread-per-column
// consumer, its eight row sums added in shared memory.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 1 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "lane_sum.cuh"
#include "transpose.hpp"

namespace ch01 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

__global__ void transpose_write_coalesced_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                                                 int cols) {
  // TODO: part 1 of 2, the transpose turned around: one thread per element as in step 00, but with threadIdx.x (and blockIdx.x) running down a column of in, so that a warp writes 32 consecutive floats of a row of out; keep out[col][row] = in[row][col] and check row < rows and col < cols; the launch below already gives x the rows and y the columns: swapping them back gives step 00 again
}

__global__ void multiply_transposed_coalesced_kernel(const float* __restrict__ a, const float* __restrict__ x,
                                                     float* __restrict__ y, int rows, int cols) {
  // Part 2, a thread per column. Idea: a thread owns a column and a warp 32 neighbouring columns,
  // so each warp load reads 32 neighbouring floats of one row (coalesced); the block's kBlockY rows
  // of threads share out the rows of A, and shared memory adds their kBlockY sums of each column.
  // Keep: fmaf in row order within a thread; a row loop that steps by the constant kBlockY, which
  // lets the compiler unroll it and keep several loads in flight. Avoid: blockDim.y as the stride
  // (a run-time value: one load in flight), and a barrier that threads past the last column skip.
  // TODO: part 2 of 2, a thread per column: the idea, what to keep and what to avoid are in the comment above
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
