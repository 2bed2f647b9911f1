// Generated from solutions/01_transpose/02_shared_tile.cu by exercises/generate.py (fingerprint 894889737014): edit the TODOs.
// Step 02 — shared memory: both sides coalesced.
//
// A 32x32 block of threads reads a 32x32 tile along its rows (coalesced), stores it in shared
// memory, and after a barrier writes it out along the rows of the output (coalesced): the
// transpose itself happens in shared memory, where a strided access costs bank conflicts rather
// than wasted DRAM sectors.
//
// Bank conflicts: shared memory has 32 banks of 4 bytes. Reading the tile by column,
// tile[threadIdx.x][c], puts a warp's 32 addresses 32 floats apart — all in one bank: a 32-way
// conflict, 32 serialised accesses. One float of padding per row (tile[32][33]) moves each row
// one bank over, and the same column read touches 32 different banks.
// Predicted: both variants fix the DRAM side (8x fewer sectors written than step 00); the
// unpadded one is held back by 32-way conflicts, the padded one by the 1024-thread block (one
// element per thread, a barrier between load and store, little in flight).
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 1 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "transpose.hpp"

namespace ch01 {
namespace {

constexpr int kTile = 32;

template <int kPad>
__global__ void transpose_tile_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  // TODO: load the tile with threadIdx.x along a row of in; barrier; write it with threadIdx.x along a row of out
}

void launch_tile(void (*kernel)(const float*, float*, int, int), const float* in, float* out, int rows, int cols) {
  course::launch(kernel, {dim3(course::blocks_for(cols, kTile), course::blocks_for(rows, kTile)), dim3(kTile, kTile)},
                 in, out, rows, cols);
}

}  // namespace

void transpose_tile_unpadded(const float* in, float* out, int rows, int cols) {
  launch_tile(transpose_tile_kernel<0>, in, out, rows, cols);
}

void transpose_tile_padded(const float* in, float* out, int rows, int cols) {
  launch_tile(transpose_tile_kernel<1>, in, out, rows, cols);
}

}  // namespace ch01
