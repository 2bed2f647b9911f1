// Copied from solutions/01_transpose/00_naive.cu by exercises/generate.py (fingerprint 911690ba5731): given complete.
// Step 00 — naive. The reference point every later step is measured against.
//
// Transpose: one thread per element, threadIdx.x along a row of the input. A warp reads 32
// consecutive floats (one 128-byte line: coalesced) and writes 32 floats `rows` apart in the
// output: 32 sectors of 32 bytes, each carrying 4 useful bytes.
// Predicted: write-bound at 1/8 sector efficiency, ~1/8 of the copy bandwidth.
//
// Column consumer y = A^T x: a warp per column, its lanes stepping down the rows — the
// column-sequential access of the patent. Lane l reads rows l, l+32, ...: every lane in its own
// sector, 4 useful bytes of every 32 fetched.
// Predicted: ~1/8 of the copy bandwidth, unless the caches keep the sectors that the warps of a
// block, on neighbouring columns, share.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 1 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
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
