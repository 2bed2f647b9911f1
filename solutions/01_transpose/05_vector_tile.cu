// Step 05 — 16-byte accesses and a wider tile.
//
// A 64x64 tile moved by a 16x16 block: each thread loads four float4s (16 bytes each, one per
// tile row it owns) before it stores anything, and writes four float4s of the output. A warp
// now reads and writes 2 rows x 256 contiguous bytes per instruction, a quarter of the load and
// store instructions of step 04, and each thread keeps 64 bytes in flight instead of 16.
// The shared tile stays 1-padded (64x65): the float4 is split into scalars on its way through
// shared memory, which leaves 2-way bank conflicts (lanes tx and tx+8 of the column read share a
// bank); shared memory has ~4x the bandwidth this kernel needs, so they cost little.
// Tiles cut by the matrix edge, and matrices whose rows are not a multiple of 4 floats (where a
// float4 would be misaligned), take a scalar path in the same kernel; in and out must start on a
// 16-byte boundary, which the host code checks before the launch.
//
// The streaming variant writes with store_streaming (st.global.cs on CUDA, a non-temporal store on
// HIP): the output is not read again, so it need not displace the input's lines in L2.
// Predicted: +5-10% over step 04 from fewer, wider accesses; streaming stores within noise.
// The exercise: part 1 the float4 load, part 2 the scalar load, part 3 the float4 store, part 4
// the scalar store, each tested alone; the kernel that picks between them is given.
// BEGIN FINDINGS
// Measured: +21.7% on the H200 (+5.3% on the H100), well above the prediction, which counted
// only the instructions saved. The float4s also quadrupled the bytes in flight; which of the two
// gave the gain is not separated (NOTES.md, "05" and "Not measured; to do"). Streaming stores
// within noise, as predicted.
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     05_vector_tile            transpose 16384x16384  0.7375 ms, 2912 GB/s (0.975 of copy)
//     05_vector_tile_streaming  transpose 16384x16384  0.7383 ms, an experiment, 2909 GB/s (0.974 of copy)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     05_vector_tile            transpose 16384x16384  0.5324 ms, 4034 GB/s (0.957 of copy)
//     05_vector_tile_streaming  transpose 16384x16384  0.5340 ms, an experiment, 4022 GB/s (0.954 of copy)
// END MEASURED
#include "parts.hpp"
#include "tile_parts.cuh"
#include "transpose.hpp"

namespace ch01 {
namespace {

constexpr int kTile = 64;
constexpr int kVector = 4;                     // floats per 16-byte access
constexpr int kThreadsX = kTile / kVector;     // 16 threads cover a tile row with float4s
constexpr int kThreadsY = 16;
constexpr int kRowsPerThread = kTile / kThreadsY;  // 4

// Thread (tx, ty) of the 16 x 16 block owns columns 4tx .. 4tx+3 of tile rows ty, ty+16, ty+32 and
// ty+48 when it loads, and elements 4tx .. 4tx+3 of output rows ty, ty+16, ... when it stores.
__device__ __forceinline__ void load_float4s(float (&tile)[kTile][kTile + 1], const float* __restrict__ in, int cols,
                                             int tile_row, int tile_col) {
  // Part 1, the float4 load. Idea: a thread reads columns 4tx .. 4tx+3 of its four tile rows as one
  // float4 each (course::load_readonly on a const float4*), so a warp reads two whole 256-byte tile
  // rows per instruction. Keep: all four loads issued into registers before any is stored into the
  // tile, so that four are in flight; the tile holds floats, so each float4 goes in as four floats.
  // Avoid: storing a float4 into a 65-float row (misaligned), and putting a float4's floats at
  // column tx instead of 4tx.
  // BEGIN SOLUTION: part 1 of 4, the float4 load: the idea, what to keep and what to avoid are in the comment above
  const int tx = threadIdx.x, ty = threadIdx.y;
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
  // END SOLUTION
}

__device__ __forceinline__ void load_scalars(float (&tile)[kTile][kTile + 1], const float* __restrict__ in, int rows,
                                             int cols, int tile_row, int tile_col) {
  // BEGIN SOLUTION: part 2 of 4, the scalar load for tiles that cannot take float4s: the same elements as part 1 (tile rows ty + 16j, columns 4tx + k), one float at a time, each checked against rows and cols; forget a check and a tile cut by the matrix's edge reads past the end of in
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int j = 0; j < kRowsPerThread; ++j) {
    for (int k = 0; k < kVector; ++k) {
      const int r = ty + j * kThreadsY, c = kVector * tx + k;
      if (tile_row + r < rows && tile_col + c < cols) tile[r][c] = in[static_cast<size_t>(tile_row + r) * cols + tile_col + c];
    }
  }
  // END SOLUTION
}

template <bool kStreamingStores>
__device__ __forceinline__ void store_float4s(const float (&tile)[kTile][kTile + 1], float* __restrict__ out, int rows,
                                              int tile_row, int tile_col) {
  // Part 3, the float4 store. Idea: output row tile_col + c is column c of the tile, so a thread
  // gathers four floats down that column (tile rows 4tx .. 4tx+3) into one float4 and stores it as
  // the tx-th float4 of the output row's piece; a warp writes two 256-byte pieces. Keep: the output
  // has `rows` columns; kStreamingStores chooses course::store_streaming over a plain store.
  // Avoid: four neighbours along a tile row, which stores the tile untransposed.
  // BEGIN SOLUTION: part 3 of 4, the float4 store: the idea, what to keep and what to avoid are in the comment above
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int j = 0; j < kRowsPerThread; ++j) {
    const int c = ty + j * kThreadsY;
    const float4 value = make_float4(tile[kVector * tx][c], tile[kVector * tx + 1][c], tile[kVector * tx + 2][c],
                                     tile[kVector * tx + 3][c]);
    float4* target = reinterpret_cast<float4*>(out + static_cast<size_t>(tile_col + c) * rows + tile_row) + tx;
    if constexpr (kStreamingStores) {
      course::store_streaming(target, value);
    } else {
      *target = value;
    }
  }
  // END SOLUTION
}

__device__ __forceinline__ void store_scalars(const float (&tile)[kTile][kTile + 1], float* __restrict__ out, int rows,
                                              int cols, int tile_row, int tile_col) {
  // BEGIN SOLUTION: part 4 of 4, the scalar store for tiles that cannot take float4s: the same elements as part 3 one float at a time, out[tile_col + c][tile_row + r] = tile[r][c], with the output row checked against cols and the output column against rows (out is cols x rows)
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int j = 0; j < kRowsPerThread; ++j) {
    for (int k = 0; k < kVector; ++k) {
      const int c = ty + j * kThreadsY, r = kVector * tx + k;
      if (tile_col + c < cols && tile_row + r < rows) out[static_cast<size_t>(tile_col + c) * rows + tile_row + r] = tile[r][c];
    }
  }
  // END SOLUTION
}

template <bool kStreamingStores>
__global__ void COURSE_LAUNCH_BOUNDS(kThreadsX * kThreadsY)
    transpose_vector_tile_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];  // 1-padded: the float4s are split into floats on their way through
  const int tile_row = blockIdx.y * kTile;
  const int tile_col = blockIdx.x * kTile;
  // float4s only where the whole tile lies inside the matrix and every row of in and of out starts on
  // a 16-byte boundary (rows and cols multiples of 4 floats); the other tiles move floats one by one.
  const bool vector_path = tile_row + kTile <= rows && tile_col + kTile <= cols && rows % kVector == 0 &&
                           cols % kVector == 0;

  // 1. Load: thread (tx, ty) owns columns 4tx..4tx+3 of tile rows ty, ty+16, ty+32, ty+48.
  if (vector_path) {
    load_float4s(tile, in, cols, tile_row, tile_col);
  } else {
    load_scalars(tile, in, rows, cols, tile_row, tile_col);
  }
  __syncthreads();

  // 2. Store: thread (tx, ty) writes output rows ty, ty+16, ... (columns of in), elements
  //    4tx..4tx+3 of each, gathered from one column of the shared tile.
  if (vector_path) {
    store_float4s<kStreamingStores>(tile, out, rows, tile_row, tile_col);
  } else {
    store_scalars(tile, out, rows, cols, tile_row, tile_col);
  }
}

void launch_vector_tile(void (*kernel)(const float*, float*, int, int), const float* in, float* out, int rows, int cols) {
  // The float4 path reads in and writes out 16 bytes at a time: refused, before any launch, off a
  // 16-byte boundary (every course allocation starts on one).
  course::require_aligned(in, 16, "step 05 loads float4s from in");
  course::require_aligned(out, 16, "step 05 stores float4s to out");
  course::launch(kernel, {dim3(course::blocks_for(cols, kTile), course::blocks_for(rows, kTile)), dim3(kThreadsX, kThreadsY)},
                 in, out, rows, cols);
}

// Parts 1-4 alone, for their tests (tile_parts.cuh): the float4 parts on matrices whose tiles all
// take float4s, the scalar parts on any matrix.
struct Float4Parts {
  static constexpr int kTile = ::ch01::kTile, kPitch = kTile + 1;
  static dim3 threads() { return dim3(kThreadsX, kThreadsY); }
  __device__ static void load(float (&tile)[kTile][kPitch], const float* in, int, int cols, int tile_row, int tile_col) {
    load_float4s(tile, in, cols, tile_row, tile_col);
  }
  __device__ static void store(const float (&tile)[kTile][kPitch], float* out, int rows, int, int tile_row, int tile_col) {
    store_float4s<false>(tile, out, rows, tile_row, tile_col);
  }
};
struct ScalarParts {
  static constexpr int kTile = ::ch01::kTile, kPitch = kTile + 1;
  static dim3 threads() { return dim3(kThreadsX, kThreadsY); }
  __device__ static void load(float (&tile)[kTile][kPitch], const float* in, int rows, int cols, int tile_row,
                              int tile_col) {
    load_scalars(tile, in, rows, cols, tile_row, tile_col);
  }
  __device__ static void store(const float (&tile)[kTile][kPitch], float* out, int rows, int cols, int tile_row,
                               int tile_col) {
    store_scalars(tile, out, rows, cols, tile_row, tile_col);
  }
};

}  // namespace

void transpose_vector_tile(const float* in, float* out, int rows, int cols) {
  launch_vector_tile(transpose_vector_tile_kernel<false>, in, out, rows, cols);
}

void transpose_vector_tile_streaming(const float* in, float* out, int rows, int cols) {
  launch_vector_tile(transpose_vector_tile_kernel<true>, in, out, rows, cols);
}

namespace parts {
void vector_tile_load_float4s(const float* in, float* out, int rows, int cols) {
  run_tile_load_alone<Float4Parts>(in, out, rows, cols);
}
void vector_tile_load_scalars(const float* in, float* out, int rows, int cols) {
  run_tile_load_alone<ScalarParts>(in, out, rows, cols);
}
void vector_tile_store_float4s(const float* in, float* out, int rows, int cols) {
  run_tile_store_alone<Float4Parts>(in, out, rows, cols);
}
void vector_tile_store_scalars(const float* in, float* out, int rows, int cols) {
  run_tile_store_alone<ScalarParts>(in, out, rows, cols);
}
}  // namespace parts

}  // namespace ch01
