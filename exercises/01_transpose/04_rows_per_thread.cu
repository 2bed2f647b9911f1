// Generated from solutions/01_transpose/04_rows_per_thread.cu by exercises/generate.py (fingerprint 2f618125125f): edit the TODOs.
// Step 04 — several rows per thread.
//
// Step 02's padded tile with a 32x8 block instead of 32x32: each thread moves 4 elements, rows
// threadIdx.y, +8, +16, +24 of the tile. Why it should help: a 1024-thread block that waits at
// its barrier idles 1024 threads; four smaller blocks on the same multiprocessor keep loads in
// flight while one of them waits, each thread has 4 independent loads in flight before it needs
// any, and there is a quarter of the index arithmetic per element.
// Predicted: from step 02's padded figure toward ~85% of the copy bandwidth (the classic result
// for this kernel).
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 1 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "transpose.hpp"

namespace ch01 {
namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_rows_per_thread_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                                                 int cols) {
  // TODO: as step 02 (padded), but each thread loops over rows threadIdx.y + 0, 8, 16, 24 of the tile
}

}  // namespace

void transpose_rows_per_thread(const float* in, float* out, int rows, int cols) {
  course::launch(transpose_rows_per_thread_kernel,
                 {dim3(course::blocks_for(cols, kTile), course::blocks_for(rows, kTile)), dim3(kTile, kBlockRows)}, in,
                 out, rows, cols);
}

}  // namespace ch01
