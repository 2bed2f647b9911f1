// Generated from solutions/01_transpose/06_block_order.cu by exercises/generate.py (fingerprint e8281e39d3a6): edit the TODOs.
// Step 06 — the order in which blocks walk the matrix, and more bytes in flight per thread.
//
// Step 05 numbers its blocks along the rows of the input: blocks that run at the same time read
// neighbouring 256-byte pieces of the same 64 input rows (good) and write pieces 64 rows apart of
// 64 *different* stretches of the output. Here blockIdx.x walks *down* the input instead, so
// blocks that run together write neighbouring pieces of the same 64 output rows: the writes
// reach DRAM as long runs. The bytes moved do not change (the same traffic as step 05 at every
// level); only their order does. Why DRAM prefers this order is not measured (candidates: more
// accesses to an open DRAM page, fewer switches between reading and writing).
// The second variant also gives each thread 8 tile rows instead of 4 (a 16x8 block per 64x64
// tile): twice the loads in flight per thread, half the threads per tile.
// Predicted: a few percent from the write order (step 05 is already close to the copy); the 8-row
// variant within noise of the 4-row one.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 1 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "transpose.hpp"

namespace ch01 {
namespace {

constexpr int kTile = 64;
constexpr int kVector = 4;                  // floats per 16-byte access
constexpr int kThreadsX = kTile / kVector;  // 16 threads cover a tile row with float4s

template <int kThreadsY>
__global__ void COURSE_LAUNCH_BOUNDS(kThreadsX * kThreadsY)
    transpose_block_order_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  // TODO: step 05's kernel with the roles of blockIdx.x and blockIdx.y swapped, and kThreadsY rows of threads
}

template <int kThreadsY>
void launch_block_order(const float* in, float* out, int rows, int cols) {
  course::launch(transpose_block_order_kernel<kThreadsY>,
                 {dim3(course::blocks_for(rows, kTile), course::blocks_for(cols, kTile)), dim3(kThreadsX, kThreadsY)}, in,
                 out, rows, cols);
}

}  // namespace

void transpose_block_order(const float* in, float* out, int rows, int cols) {
  launch_block_order<16>(in, out, rows, cols);
}

void transpose_block_order_8_rows(const float* in, float* out, int rows, int cols) {
  launch_block_order<8>(in, out, rows, cols);
}

}  // namespace ch01
