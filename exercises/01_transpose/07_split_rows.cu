// Generated from solutions/01_transpose/07_split_rows.cu by exercises/generate.py (fingerprint 43aeb38da528): edit the TODOs.
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
// needs (README, "bytes in flight"): one pass at the copy bandwidth, 1073.7 MB in ~0.25 ms, with
// no transposed copy, so the flagged matrix (step 03) never pays against it.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 1 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include <algorithm>

#include "course/device_buffer.hpp"
#include "transpose.hpp"

namespace ch01 {
namespace {

constexpr int kThreadsX = 32;
constexpr int kThreadsY = 8;
constexpr int kVector = 4;                              // columns per thread: one float4
constexpr int kColumnsPerBlock = kThreadsX * kVector;  // 128
constexpr int kTargetBlocks = 4096;                     // a few waves on a GPU of ~100-150 multiprocessors
constexpr int kMinRowsPerSplit = 8 * kThreadsY;         // at least 8 rows per thread

// Block (bx, s) sums columns bx*128 .. bx*128+127 over rows s*rows_per_split .. +rows_per_split-1
// and writes the 128 sums to row s of `partials` (splits x cols).
__global__ void COURSE_LAUNCH_BOUNDS(kThreadsX * kThreadsY)
    multiply_transposed_split_rows_kernel(const float* __restrict__ a, const float* __restrict__ x,
                                          float* __restrict__ partials, int rows, int cols, int rows_per_split) {
  // TODO: thread (tx, ty) sums columns col..col+3 (col = blockIdx.x*128 + 4tx) over rows ty, ty+8, ... of the split (float4 loads where cols % 4 == 0, else scalar); add the 8 rows of threads in shared memory, in order; write row blockIdx.y of partials
}

// y[c] = partials[0][c] + partials[1][c] + ... in that order: the same sum on every run.
__global__ void sum_splits_kernel(const float* __restrict__ partials, float* __restrict__ y, int splits, int cols) {
  // TODO: a thread per column adds the splits in order 0, 1, ...
}

// The partial sums' buffer, kept for the process's life and grown when a larger problem needs
// it: allocated in a benchmark's warm-up run, never inside a timed one. Never freed, on purpose:
// a static buffer's destructor would run after the runtime has shut down.
float* partial_sums(size_t count) {
  static auto* buffer = new course::DeviceBuffer<float>();
  if (buffer->size() < count) *buffer = course::DeviceBuffer<float>(count);
  return buffer->data();
}

}  // namespace

void multiply_transposed_split_rows(const float* a, const float* x, float* y, int rows, int cols) {
  // Enough splits for ~kTargetBlocks blocks, fixed by the shape alone (not by the GPU), so that
  // the same matrix is always added up the same way.
  const int column_blocks = static_cast<int>(course::blocks_for(cols, kColumnsPerBlock));
  const int wanted = std::max(1, kTargetBlocks / column_blocks);
  const int most = static_cast<int>(course::blocks_for(rows, kMinRowsPerSplit));
  const int rows_per_split =
      static_cast<int>(course::blocks_for(course::blocks_for(rows, std::min(wanted, most)), kThreadsY)) * kThreadsY;
  const int splits = static_cast<int>(course::blocks_for(rows, rows_per_split));
  float* partials = partial_sums(static_cast<size_t>(splits) * cols);
  course::launch(multiply_transposed_split_rows_kernel,
                 {dim3(column_blocks, splits), dim3(kThreadsX, kThreadsY)}, a, x, partials, rows, cols, rows_per_split);
  constexpr int kSumThreads = 256;
  course::launch(sum_splits_kernel, {dim3(course::blocks_for(cols, kSumThreads)), dim3(kSumThreads)}, partials, y, splits,
                 cols);
}

}  // namespace ch01
