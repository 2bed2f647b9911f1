// Generated from solutions/01_transpose/04_rows_per_thread.cu by exercises/generate.py (fingerprint ad1e7c3e819c): edit the TODOs.
// Step 04 — several rows per thread.
//
// Step 02's padded tile with a 32x8 block instead of 32x32: each thread moves 4 elements, rows
// threadIdx.y, +8, +16, +24 of the tile. Why it should help: a 1024-thread block that waits at
// its barrier idles 1024 threads; four smaller blocks on the same multiprocessor keep loads in
// flight while one of them waits, each thread has 4 independent loads in flight before it needs
// any, and there is a quarter of the index arithmetic per element.
// Predicted: from step 02's padded figure toward ~85% of the copy bandwidth (a figure recalled
// from published versions of this kernel, not derived from the bound; no source was noted).
// The exercise: part 1 the tile load and part 2 the transposed store, four rows a thread, each
// tested alone; the kernel around them is given.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 1 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "parts.hpp"
#include "tile_parts.cuh"
#include "transpose.hpp"

namespace ch01 {
namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

// Thread (threadIdx.x, threadIdx.y) of the 32 x 8 block moves four elements of the 32 x 32 tile
// whose top-left element is in[tile_row][tile_col]: column threadIdx.x of tile rows threadIdx.y,
// threadIdx.y + 8, + 16 and + 24 (and, on the way out, the same four of a column of the tile).
__device__ __forceinline__ void load_tile(float (&tile)[kTile][kTile + 1], const float* __restrict__ in, int rows,
                                          int cols, int tile_row, int tile_col) {
  // TODO: part 1 of 2, the tile load, four rows a thread: step 02's load in a loop over tile rows i = threadIdx.y, threadIdx.y + kBlockRows, ... below kTile, so that a thread issues its four loads before it needs any of them; keep tile[i][j] = in[tile_row + i][tile_col + j] with threadIdx.x along a row (coalesced); step the loop by kBlockRows, not by 1 (each row would be loaded by every warp) nor by blockDim.x
}

__device__ __forceinline__ void store_tile_transposed(const float (&tile)[kTile][kTile + 1], float* __restrict__ out,
                                                      int rows, int cols, int tile_row, int tile_col) {
  // TODO: part 2 of 2, the transposed store, four rows a thread: step 02's store in the same loop, out[tile_col + i][tile_row + threadIdx.x] = tile[threadIdx.x][i] for i = threadIdx.y, + kBlockRows, ...; out is cols x rows, so check the output row against cols and the output column against rows; keep threadIdx.x along the output row, or the writes stop being coalesced
}

__global__ void transpose_rows_per_thread_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                                                 int cols) {
  __shared__ float tile[kTile][kTile + 1];  // step 02's padded tile
  const int tile_row = blockIdx.y * kTile;
  const int tile_col = blockIdx.x * kTile;
  load_tile(tile, in, rows, cols, tile_row, tile_col);
  __syncthreads();
  store_tile_transposed(tile, out, rows, cols, tile_row, tile_col);
}

// Parts 1 and 2 alone, for their tests (tile_parts.cuh).
struct Parts {
  static constexpr int kTile = ::ch01::kTile, kPitch = kTile + 1;
  static dim3 threads() { return dim3(kTile, kBlockRows); }
  __device__ static void load(float (&tile)[kTile][kPitch], const float* in, int rows, int cols, int tile_row,
                              int tile_col) {
    load_tile(tile, in, rows, cols, tile_row, tile_col);
  }
  __device__ static void store(const float (&tile)[kTile][kPitch], float* out, int rows, int cols, int tile_row,
                               int tile_col) {
    store_tile_transposed(tile, out, rows, cols, tile_row, tile_col);
  }
};

}  // namespace

void transpose_rows_per_thread(const float* in, float* out, int rows, int cols) {
  course::launch(transpose_rows_per_thread_kernel,
                 {dim3(course::blocks_for(cols, kTile), course::blocks_for(rows, kTile)), dim3(kTile, kBlockRows)}, in,
                 out, rows, cols);
}

namespace parts {
void rows_per_thread_load(const float* in, float* out, int rows, int cols) { run_tile_load_alone<Parts>(in, out, rows, cols); }
void rows_per_thread_store(const float* in, float* out, int rows, int cols) {
  run_tile_store_alone<Parts>(in, out, rows, cols);
}
}  // namespace parts

}  // namespace ch01
