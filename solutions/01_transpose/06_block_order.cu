// Step 06 — the order in which blocks walk the matrix.
//
// Step 05 numbers its blocks along the rows of the input: blocks that run at the same time read
// neighbouring 256-byte pieces of the same 64 input rows (good) and write pieces 64 rows apart of
// 64 *different* stretches of the output. Here blockIdx.x walks *down* the input instead, so
// blocks that run together write neighbouring pieces of the same 64 output rows: the writes
// reach DRAM as long runs. The bytes moved do not change (the same traffic as step 05 at every
// level); only their order does. Why DRAM prefers this order is not measured (candidates: more
// accesses to an open DRAM page, fewer switches between reading and writing).
// The trade: blocks that run together now read pieces of 64 different stretches of the input.
// An experiment also gives each thread 8 tile rows instead of 4 (a 16x8 block per 64x64 tile):
// twice the loads in flight per thread, half the threads per tile.
// Predicted: a few percent from the write order (step 05 is already close to the copy); the 8-row
// variant within noise of the 4-row one.
// The exercise: part 1 which tile a block moves, part 2 the grid, both host code tested alone;
// step 05's kernel is given around them, complete, its float4 load and store included: write step
// 05 before you read on.
// BEGIN FINDINGS
// Measured: +2.7% for the order on the H200 (+0.6% on the H100), as predicted: write locality
// beat read locality, by a little; why is not measured. The 8-row variant 3.6% slower on the
// H200, which the prediction missed: its 40 registers a thread (30 for the 4-row kernel;
// results/h200/compiled.txt) leave room for 75% occupancy, and the profile shows 73% against 96%,
// but it keeps more bytes in flight per multiprocessor, not fewer, so the cause is not
// established (NOTES.md).
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     06_block_order         transpose 16384x16384  0.7329 ms, 2930 GB/s (0.981 of copy)
//     06_block_order_8_rows  transpose 16384x16384  0.7300 ms, an experiment, 2942 GB/s (0.985 of copy)
//     06_block_order         size sweep, 1 MiB      0.0046 ms, 458 GB/s (0.153 of copy)
//     06_block_order         size sweep, 2 MiB      0.0050 ms, 835 GB/s (0.280 of copy)
//     06_block_order         size sweep, 4 MiB      0.0061 ms, 1380 GB/s (0.462 of copy)
//     06_block_order         size sweep, 8 MiB      0.0081 ms, 2068 GB/s (0.693 of copy)
//     06_block_order         size sweep, 16 MiB     0.0131 ms, 2567 GB/s (0.860 of copy)
//     06_block_order         size sweep, 32 MiB     0.0216 ms, 3100 GB/s (1.038 of copy)
//     06_block_order         size sweep, 64 MiB     0.0438 ms, 3064 GB/s (1.026 of copy)
//     06_block_order         size sweep, 128 MiB    0.0898 ms, 2988 GB/s (1.001 of copy)
//     06_block_order         size sweep, 256 MiB    0.1816 ms, 2956 GB/s (0.990 of copy)
//     06_block_order         size sweep, 512 MiB    0.3662 ms, 2932 GB/s (0.982 of copy)
//     06_block_order         size sweep, 1024 MiB   0.7329 ms, 2930 GB/s (0.981 of copy)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     06_block_order         transpose 16384x16384  0.5184 ms, 4143 GB/s (0.983 of copy)
//     06_block_order_8_rows  transpose 16384x16384  0.5370 ms, an experiment, 3999 GB/s (0.949 of copy)
//     06_block_order         size sweep, 1 MiB      0.0050 ms, 423 GB/s (0.100 of copy)
//     06_block_order         size sweep, 2 MiB      0.0051 ms, 819 GB/s (0.194 of copy)
//     06_block_order         size sweep, 4 MiB      0.0056 ms, 1489 GB/s (0.353 of copy)
//     06_block_order         size sweep, 8 MiB      0.0075 ms, 2231 GB/s (0.529 of copy)
//     06_block_order         size sweep, 16 MiB     0.0113 ms, 2958 GB/s (0.702 of copy)
//     06_block_order         size sweep, 32 MiB     0.0190 ms, 3534 GB/s (0.839 of copy)
//     06_block_order         size sweep, 64 MiB     0.0336 ms, 3996 GB/s (0.948 of copy)
//     06_block_order         size sweep, 128 MiB    0.0658 ms, 4081 GB/s (0.968 of copy)
//     06_block_order         size sweep, 256 MiB    0.1296 ms, 4143 GB/s (0.983 of copy)
//     06_block_order         size sweep, 512 MiB    0.2582 ms, 4159 GB/s (0.987 of copy)
//     06_block_order         size sweep, 1024 MiB   0.5181 ms, 4145 GB/s (0.984 of copy)
// END MEASURED
#include <utility>

#include "parts.hpp"
#include "transpose.hpp"

namespace ch01 {
namespace {

constexpr int kTile = 64;
constexpr int kVector = 4;                  // floats per 16-byte access
constexpr int kThreadsX = kTile / kVector;  // 16 threads cover a tile row with float4s

struct TileOrigin {
  int row, col;  // the tile's top-left element: in[row][col]
};

// Which tile of the input block (block_x, block_y) moves: consecutive blocks (block_x, block_x + 1,
// ...), which the GPU runs at the same time, must move tiles one below the other in the same
// 64 columns of the input, so that they write neighbouring pieces of the same 64 output rows.
__host__ __device__ __forceinline__ TileOrigin tile_of_block(unsigned block_x, unsigned block_y) {
  // BEGIN SOLUTION: part 1 of 2, the block order: step 05 takes tile row blockIdx.y and tile column blockIdx.x; swap them, so that block_x counts tiles down the input (row block_x * kTile) and block_y across it (column block_y * kTile); keep both in elements, not tiles (multiply by kTile), and change nothing else: the bytes each block moves stay the same, only their order changes
  return {static_cast<int>(block_x * kTile), static_cast<int>(block_y * kTile)};
  // STUB: return {0, 0};
  // END SOLUTION
}

// The grid that gives every tile of a rows x cols input exactly one block, in part 1's order.
std::pair<unsigned, unsigned> block_order_grid(int rows, int cols) {
  // BEGIN SOLUTION: part 2 of 2, the grid: with block_x walking down the input, the grid's x extent counts tiles down the rows (course::blocks_for(rows, kTile)) and its y extent tiles across the columns; a grid left in step 05's shape misses tiles (or launches blocks past the matrix) whenever rows and cols differ
  return {course::blocks_for(rows, kTile), course::blocks_for(cols, kTile)};
  // STUB: return {0, 0};
  // END SOLUTION
}

// Step 05's kernel, given complete, with the tile origin from part 1 and kThreadsY rows of threads.
template <int kThreadsY>
__global__ void COURSE_LAUNCH_BOUNDS(kThreadsX * kThreadsY)
    transpose_block_order_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  constexpr int kRowsPerThread = kTile / kThreadsY;
  __shared__ float tile[kTile][kTile + 1];
  const TileOrigin origin = tile_of_block(blockIdx.x, blockIdx.y);  // consecutive blocks walk down the input
  const int tile_row = origin.row;
  const int tile_col = origin.col;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const bool vector_path = tile_row + kTile <= rows && tile_col + kTile <= cols && rows % kVector == 0 &&
                           cols % kVector == 0;

  // 1. Load: thread (tx, ty) owns columns 4tx..4tx+3 of tile rows ty, ty + kThreadsY, ...
  if (vector_path) {
    float4 loaded[kRowsPerThread];
    for (int j = 0; j < kRowsPerThread; ++j) {
      const float* row = in + static_cast<size_t>(tile_row + ty + j * kThreadsY) * cols + tile_col;
      loaded[j] = course::load_readonly(reinterpret_cast<const float4*>(row) + tx);
    }
    for (int j = 0; j < kRowsPerThread; ++j) {
      float* cell = &tile[ty + j * kThreadsY][kVector * tx];
      cell[0] = loaded[j].x;
      cell[1] = loaded[j].y;
      cell[2] = loaded[j].z;
      cell[3] = loaded[j].w;
    }
  } else {
    for (int j = 0; j < kRowsPerThread; ++j) {
      for (int k = 0; k < kVector; ++k) {
        const int r = ty + j * kThreadsY, c = kVector * tx + k;
        if (tile_row + r < rows && tile_col + c < cols) tile[r][c] = in[static_cast<size_t>(tile_row + r) * cols + tile_col + c];
      }
    }
  }
  __syncthreads();

  // 2. Store: output rows ty, ty + kThreadsY, ... (columns of in), float4 by float4.
  if (vector_path) {
    for (int j = 0; j < kRowsPerThread; ++j) {
      const int c = ty + j * kThreadsY;
      const float4 value = make_float4(tile[kVector * tx][c], tile[kVector * tx + 1][c], tile[kVector * tx + 2][c],
                                       tile[kVector * tx + 3][c]);
      reinterpret_cast<float4*>(out + static_cast<size_t>(tile_col + c) * rows + tile_row)[tx] = value;
    }
  } else {
    for (int j = 0; j < kRowsPerThread; ++j) {
      for (int k = 0; k < kVector; ++k) {
        const int c = ty + j * kThreadsY, r = kVector * tx + k;
        if (tile_col + c < cols && tile_row + r < rows) out[static_cast<size_t>(tile_col + c) * rows + tile_row + r] = tile[r][c];
      }
    }
  }
}

template <int kThreadsY>
void launch_block_order(const float* in, float* out, int rows, int cols) {
  // As in step 05: the float4 path needs in and out on 16-byte boundaries, checked before any launch.
  course::require_aligned(in, 16, "step 06 loads float4s from in");
  course::require_aligned(out, 16, "step 06 stores float4s to out");
  const auto [blocks_x, blocks_y] = block_order_grid(rows, cols);
  course::launch(transpose_block_order_kernel<kThreadsY>, {dim3(blocks_x, blocks_y), dim3(kThreadsX, kThreadsY)}, in, out,
                 rows, cols);
}

}  // namespace

void transpose_block_order(const float* in, float* out, int rows, int cols) {
  launch_block_order<16>(in, out, rows, cols);
}

void transpose_block_order_8_rows(const float* in, float* out, int rows, int cols) {
  launch_block_order<8>(in, out, rows, cols);
}

namespace parts {
std::pair<int, int> block_order_tile(unsigned block_x, unsigned block_y) {
  const TileOrigin origin = tile_of_block(block_x, block_y);
  return {origin.row, origin.col};
}
std::pair<unsigned, unsigned> block_order_blocks(int rows, int cols) { return block_order_grid(rows, cols); }
}  // namespace parts

}  // namespace ch01
