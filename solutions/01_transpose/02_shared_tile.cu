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
// BEGIN FINDINGS
// Padded 0.42 of the copy, unpadded 0.24. The barrier is unlikely to be what holds the padded
// tile: step 01's transpose has none and runs at the same rate, with the same 4-byte load per
// thread and about 7 KB in flight per multiprocessor (NOTES.md, "02 — shared memory").
// END FINDINGS
// The exercise: part 1 the tile load and part 2 the transposed store, each tested alone; part 3 the
// kernel around them, with the padded tile and the barrier.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     02_tile_unpadded  transpose 16384x16384  2.1468 ms, an experiment, 1000 GB/s (0.335 of copy)
//     02_tile_padded    transpose 16384x16384  1.2824 ms, 1675 GB/s (0.561 of copy)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     02_tile_unpadded  transpose 16384x16384  2.1084 ms, an experiment, 1019 GB/s (0.242 of copy)
//     02_tile_padded    transpose 16384x16384  1.2232 ms, 1756 GB/s (0.417 of copy)
// END MEASURED
#include "parts.hpp"
#include "tile_parts.cuh"
#include "transpose.hpp"

namespace ch01 {
namespace {

constexpr int kTile = 32;

// Thread (threadIdx.x, threadIdx.y) of the 32 x 32 block moves one element of the tile whose top-left
// element is in[tile_row][tile_col]; the tile's rows are kTile + kPad floats apart in shared memory.
template <int kPad>
__device__ __forceinline__ void load_tile(float (&tile)[kTile][kTile + kPad], const float* __restrict__ in, int rows,
                                          int cols, int tile_row, int tile_col) {
  // BEGIN SOLUTION: part 1 of 3, the tile load: a warp (fixed threadIdx.y) reads one row of the tile, threadIdx.x along it, so its 32 loads are consecutive floats (coalesced); keep tile[i][j] = in[tile_row + i][tile_col + j]; skip elements past the matrix's edge (tiles cut by it), and do not swap threadIdx.x and threadIdx.y here: that makes the read strided
  // 1. Coalesced read of in: a warp reads one row of the tile.
  const int row = tile_row + threadIdx.y;
  const int col = tile_col + threadIdx.x;
  if (row < rows && col < cols) tile[threadIdx.y][threadIdx.x] = in[static_cast<size_t>(row) * cols + col];
  // END SOLUTION
}

template <int kPad>
__device__ __forceinline__ void store_tile_transposed(const float (&tile)[kTile][kTile + kPad], float* __restrict__ out,
                                                      int rows, int cols, int tile_row, int tile_col) {
  // BEGIN SOLUTION: part 2 of 3, the transposed store: a warp writes one row of out (threadIdx.x along it: coalesced), which is a column of the shared tile, out[tile_col + i][tile_row + j] = tile[j][i]; out is cols x rows, so its row index is checked against cols and its column index against rows; the column read of the tile is the access that the padding keeps free of bank conflicts
  // 2. Coalesced write of out: a warp writes one row of the output tile, i.e. reads one column
  //    of the shared tile — the access that the padding keeps free of bank conflicts.
  const int out_row = tile_col + threadIdx.y;  // a column of in
  const int out_col = tile_row + threadIdx.x;  // a row of in
  if (out_row < cols && out_col < rows) out[static_cast<size_t>(out_row) * rows + out_col] = tile[threadIdx.x][threadIdx.y];
  // END SOLUTION
}

template <int kPad>
__global__ void transpose_tile_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  // BEGIN SOLUTION: part 3 of 3, the kernel: declare the shared tile with kPad floats of padding per row (kPad is 1 for the taught step, 0 for the experiment), take block (blockIdx.x, blockIdx.y)'s tile at row blockIdx.y * kTile and column blockIdx.x * kTile, load it, wait at a barrier, store it transposed; without the barrier a warp reads tile elements that other warps have not written yet
  __shared__ float tile[kTile][kTile + kPad];
  const int tile_row = blockIdx.y * kTile;
  const int tile_col = blockIdx.x * kTile;
  load_tile<kPad>(tile, in, rows, cols, tile_row, tile_col);
  __syncthreads();
  store_tile_transposed<kPad>(tile, out, rows, cols, tile_row, tile_col);
  // END SOLUTION
}

void launch_tile(void (*kernel)(const float*, float*, int, int), const float* in, float* out, int rows, int cols) {
  course::launch(kernel, {dim3(course::blocks_for(cols, kTile), course::blocks_for(rows, kTile)), dim3(kTile, kTile)},
                 in, out, rows, cols);
}

// Parts 1 and 2 alone, for their tests (tile_parts.cuh): the padded tile of the taught step.
struct Parts {
  static constexpr int kTile = ::ch01::kTile, kPitch = kTile + 1;
  static dim3 threads() { return dim3(kTile, kTile); }
  __device__ static void load(float (&tile)[kTile][kPitch], const float* in, int rows, int cols, int tile_row,
                              int tile_col) {
    load_tile<1>(tile, in, rows, cols, tile_row, tile_col);
  }
  __device__ static void store(const float (&tile)[kTile][kPitch], float* out, int rows, int cols, int tile_row,
                               int tile_col) {
    store_tile_transposed<1>(tile, out, rows, cols, tile_row, tile_col);
  }
};

}  // namespace

void transpose_tile_unpadded(const float* in, float* out, int rows, int cols) {
  launch_tile(transpose_tile_kernel<0>, in, out, rows, cols);
}

void transpose_tile_padded(const float* in, float* out, int rows, int cols) {
  launch_tile(transpose_tile_kernel<1>, in, out, rows, cols);
}

namespace parts {
void shared_tile_load(const float* in, float* out, int rows, int cols) { run_tile_load_alone<Parts>(in, out, rows, cols); }
void shared_tile_store(const float* in, float* out, int rows, int cols) { run_tile_store_alone<Parts>(in, out, rows, cols); }
}  // namespace parts

}  // namespace ch01
