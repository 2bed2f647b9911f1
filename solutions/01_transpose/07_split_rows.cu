// Step 07 — the column consumer without a transposed copy: split the rows.
//
// Step 01's consumer reads A along its rows already (a thread per column, coalesced), but it
// reads only 4 bytes per thread per load, and its 512 blocks (at 16384 columns) are all the
// parallelism it has: about 990 threads per multiprocessor. Here each thread owns 4 neighbouring
// columns and reads them as one float4 per row (a warp reads 512 contiguous bytes); the rows are
// split into stretches, one block per (128 columns, stretch), so that a 16384 x 16384 matrix
// makes 4096 blocks, several waves on any current GPU. Each block writes its 128 partial sums
// to a small buffer (splits x cols floats, 1/512 of A at 16384^2), and a second kernel adds
// the splits of each column in a fixed order: the result does not depend on which block
// finished first (atomicAdd into y would), so it is the same on every run.
// Predicted: 8 float4 loads per thread in flight, 128 bytes per thread, far more than the copy
// needs (NOTES.md, "Bytes in flight"): one pass at the copy bandwidth, 1073.7 MB in ~0.25 ms, with
// no transposed copy, so the flagged matrix (step 03) never pays against it.
// The exercise: part 1 the split plan, part 2 a thread's four column sums, part 3 the block's
// sums, part 4 the sum of the splits; parts 1, 3 (with 2) and 4 are tested alone.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     07_split_rows  A^T x, 1 passes   0.3524 ms, 3047 GB/s (1.021 of copy), 2838 passes/s
//     07_split_rows  A^T x, 2 passes   0.7035 ms, 3053 GB/s (1.022 of copy), 2843 passes/s
//     07_split_rows  A^T x, 4 passes   1.4059 ms, 3055 GB/s (1.023 of copy), 2845 passes/s
//     07_split_rows  A^T x, 8 passes   2.8134 ms, 3053 GB/s (1.023 of copy), 2844 passes/s
//     07_split_rows  A^T x, 16 passes  5.6248 ms, 3054 GB/s (1.023 of copy), 2845 passes/s
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     07_split_rows  A^T x, 1 passes   0.2435 ms, 4410 GB/s (1.047 of copy), 4108 passes/s
//     07_split_rows  A^T x, 2 passes   0.4838 ms, 4438 GB/s (1.053 of copy), 4134 passes/s
//     07_split_rows  A^T x, 4 passes   0.9672 ms, 4441 GB/s (1.054 of copy), 4136 passes/s
//     07_split_rows  A^T x, 8 passes   1.9366 ms, 4436 GB/s (1.053 of copy), 4131 passes/s
//     07_split_rows  A^T x, 16 passes  3.8704 ms, 4439 GB/s (1.053 of copy), 4134 passes/s
// END MEASURED
#include <algorithm>

#include "course/device_buffer.hpp"
#include "parts.hpp"
#include "transpose.hpp"

namespace ch01 {
namespace {

constexpr int kThreadsX = 32;
constexpr int kThreadsY = 8;
constexpr int kVector = 4;                              // columns per thread: one float4
constexpr int kColumnsPerBlock = kThreadsX * kVector;  // 128
constexpr int kTargetBlocks = 4096;                     // a few waves on a GPU of ~100-150 multiprocessors
constexpr int kMinRowsPerSplit = 8 * kThreadsY;         // at least 8 rows per thread

// How the rows are split: block (bx, s) sums rows s * rows_per_split .. + rows_per_split - 1.
struct SplitPlan {
  int rows_per_split;
  int splits;
};

// Enough splits for about kTargetBlocks blocks, fixed by the shape alone (not by the GPU), so that
// the same matrix is always added up the same way.
SplitPlan plan_splits(int rows, int cols) {
  // BEGIN SOLUTION: part 1 of 4, the split plan: about kTargetBlocks / (column blocks of 128 columns) splits, but never more than one per kMinRowsPerSplit rows (a thread needs several rows to keep loads in flight); round rows_per_split up to a multiple of kThreadsY (every row of threads gets the same number of rows) and count the splits from it, so that the splits cover every row and none is empty; the plan must depend on rows and cols only, never on the GPU, or two GPUs would add in different orders
  const int column_blocks = static_cast<int>(course::blocks_for(cols, kColumnsPerBlock));
  const int wanted = std::max(1, kTargetBlocks / column_blocks);
  const int most = static_cast<int>(course::blocks_for(rows, kMinRowsPerSplit));
  const int rows_per_split =
      static_cast<int>(course::blocks_for(course::blocks_for(rows, std::min(wanted, most)), kThreadsY)) * kThreadsY;
  return {rows_per_split, static_cast<int>(course::blocks_for(rows, rows_per_split))};
  // STUB: return {rows, 1};
  // END SOLUTION
}

// Block (bx, s) sums columns bx*128 .. bx*128+127 over rows s*rows_per_split .. +rows_per_split-1
// and writes the 128 sums to row s of `partials` (splits x cols).
__global__ void COURSE_LAUNCH_BOUNDS(kThreadsX * kThreadsY)
    multiply_transposed_split_rows_kernel(const float* __restrict__ a, const float* __restrict__ x,
                                          float* __restrict__ partials, int rows, int cols, int rows_per_split) {
  const int col = blockIdx.x * kColumnsPerBlock + kVector * threadIdx.x;
  const int first_row = blockIdx.y * rows_per_split;
  const int end_row = min(rows, first_row + rows_per_split);
  float sum[kVector] = {};
  // Part 2, four columns a thread. Idea: a thread owns four neighbouring columns and reads them as
  // one float4 a row (course::load_readonly on a const float4*), so a warp reads 512 contiguous
  // bytes; its rows are first_row + threadIdx.y and every kThreadsY-th after it, below end_row.
  // Keep: fmaf in row order; a loop that steps by the constant kThreadsY under #pragma unroll 8, so
  // that eight loads are in flight; a scalar loop that checks col + k < cols wherever a float4
  // cannot be used. Avoid: a float4 when cols is not a multiple of 4 (rows then start off a
  // 16-byte boundary) or past the last column, and a loop that steps by one row.
  // BEGIN SOLUTION: part 2 of 4, four columns a thread: the idea, what to keep and what to avoid are in the comment above
  if (cols % kVector == 0 && col + kVector <= cols) {
    // The stride is a constant, so the compiler unrolls this loop and keeps 8 loads in flight.
#pragma unroll 8
    for (int row = first_row + threadIdx.y; row < end_row; row += kThreadsY) {
      const float4 value = course::load_readonly(reinterpret_cast<const float4*>(a + static_cast<size_t>(row) * cols + col));
      const float x_row = x[row];
      sum[0] = fmaf(value.x, x_row, sum[0]);
      sum[1] = fmaf(value.y, x_row, sum[1]);
      sum[2] = fmaf(value.z, x_row, sum[2]);
      sum[3] = fmaf(value.w, x_row, sum[3]);
    }
  } else {  // rows not a multiple of 4 floats (a float4 would be misaligned), or the last columns
    for (int row = first_row + threadIdx.y; row < end_row; row += kThreadsY) {
#pragma unroll
      for (int k = 0; k < kVector; ++k) {
        if (col + k < cols) sum[k] = fmaf(a[static_cast<size_t>(row) * cols + col + k], x[row], sum[k]);
      }
    }
  }
  // END SOLUTION

  // Part 3, the block's sums.
  // Idea: the kThreadsY rows of threads hold partial sums of the same 128 columns; shared memory
  //   brings them together, and one row of threads adds them and writes the block's row of
  //   `partials` (row blockIdx.y of a splits x cols array).
  // Keep: one barrier between writing the sums and reading them, reached by every thread; a fixed
  //   order of the additions (row of threads 0, 1, ...), so that y is the same on every run; only
  //   the columns that exist are written.
  // Avoid: a barrier inside an if (it hangs or races), and atomicAdd (its order changes run to run).
  // BEGIN SOLUTION: part 3 of 4, the block's sums: the idea, what to keep and what to avoid are in the comment above
  __shared__ float4 block_sums[kThreadsY][kThreadsX];
  block_sums[threadIdx.y][threadIdx.x] = make_float4(sum[0], sum[1], sum[2], sum[3]);
  __syncthreads();
  if (threadIdx.y == 0) {
    float total[kVector] = {};
    for (int i = 0; i < kThreadsY; ++i) {
      const float4 s = block_sums[i][threadIdx.x];
      total[0] += s.x;
      total[1] += s.y;
      total[2] += s.z;
      total[3] += s.w;
    }
    float* out = partials + static_cast<size_t>(blockIdx.y) * cols;
#pragma unroll
    for (int k = 0; k < kVector; ++k) {
      if (col + k < cols) out[col + k] = total[k];
    }
  }
  // END SOLUTION
}

// y[c] = partials[0][c] + partials[1][c] + ... in that order: the same sum on every run.
__global__ void sum_splits_kernel(const float* __restrict__ partials, float* __restrict__ y, int splits, int cols) {
  // BEGIN SOLUTION: part 4 of 4, the sum of the splits: a thread per column adds partials[s][col] for s = 0, 1, ... splits - 1 in that order (row s of partials starts at s * cols) and writes y[col]; return early for threads past the last column; adding in another order, or with atomicAdd, changes the last bits from run to run
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  float total = 0.0f;
#pragma unroll 8
  for (int s = 0; s < splits; ++s) total += partials[static_cast<size_t>(s) * cols + col];
  y[col] = total;
  // END SOLUTION
}

// The partial sums' buffer, kept for the process's life and grown when a larger problem needs
// it: allocated in a benchmark's warm-up run, never inside a timed one. Never freed, on purpose:
// a static buffer's destructor would run after the runtime has shut down.
float* partial_sums(size_t count) {
  static auto* buffer = new course::DeviceBuffer<float>();
  if (buffer->size() < count) *buffer = course::DeviceBuffer<float>(count);
  return buffer->data();
}

constexpr int kSumThreads = 256;

}  // namespace

void multiply_transposed_split_rows(const float* a, const float* x, float* y, int rows, int cols) {
  // The float4 loop reads a 16 bytes at a time: refused, before any launch, off a 16-byte boundary.
  course::require_aligned(a, 16, "step 07 loads float4s from a");
  const SplitPlan plan = plan_splits(rows, cols);
  float* partials = partial_sums(static_cast<size_t>(plan.splits) * cols);
  course::launch(multiply_transposed_split_rows_kernel,
                 {dim3(course::blocks_for(cols, kColumnsPerBlock), plan.splits), dim3(kThreadsX, kThreadsY)}, a, x,
                 partials, rows, cols, plan.rows_per_split);
  course::launch(sum_splits_kernel, {dim3(course::blocks_for(cols, kSumThreads)), dim3(kSumThreads)}, partials, y,
                 plan.splits, cols);
}

namespace parts {
std::pair<int, int> split_rows_plan(int rows, int cols) {
  const SplitPlan plan = plan_splits(rows, cols);
  return {plan.rows_per_split, plan.splits};
}
void split_rows_partials(const float* a, const float* x, float* partials, int rows, int cols, int rows_per_split) {
  course::launch(multiply_transposed_split_rows_kernel,
                 {dim3(course::blocks_for(cols, kColumnsPerBlock), course::blocks_for(rows, rows_per_split)),
                  dim3(kThreadsX, kThreadsY)},
                 a, x, partials, rows, cols, rows_per_split);
}
void split_rows_sum_splits(const float* partials, float* y, int splits, int cols) {
  course::launch(sum_splits_kernel, {dim3(course::blocks_for(cols, kSumThreads)), dim3(kSumThreads)}, partials, y, splits,
                 cols);
}
}  // namespace parts

}  // namespace ch01
