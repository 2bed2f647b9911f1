// Runs one part of a tiled transpose on its own, so that a test can check that part alone and the
// grader can name it (test_transpose.cpp, course::register_part_test). A step file describes its
// parts in a struct:
//
//   struct Parts {
//     static constexpr int kTile = 32, kPitch = 33;  // the shared tile: float[kTile][kPitch]
//     static dim3 threads();                          // the step's block
//     __device__ static void load(float (&tile)[kTile][kPitch], const float* in, int rows, int cols,
//                                 int tile_row, int tile_col);        // the step's tile load
//     __device__ static void store(const float (&tile)[kTile][kPitch], float* out, int rows, int cols,
//                                  int tile_row, int tile_col);       // its transposed store
//   };
//
// and these kernels do the rest: one thread of each block fills or empties the tile element by
// element, so neither kernel leans on the part it does not test.
#pragma once

#include "course/gpu.hpp"

namespace ch01 {

// The load alone: the tile starts as NaN, the part loads it, and one thread writes every element
// back where it came from, out[tile_row + i][tile_col + j] = tile[i][j]. With a right load, out
// is a copy of in; an element the load missed is NaN.
template <class Parts>
__global__ void tile_load_alone_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[Parts::kTile][Parts::kPitch];
  const int tile_row = blockIdx.y * Parts::kTile, tile_col = blockIdx.x * Parts::kTile;
  const bool first = threadIdx.x == 0 && threadIdx.y == 0;
  if (first) {
    for (int i = 0; i < Parts::kTile; ++i)
      for (int j = 0; j < Parts::kPitch; ++j) tile[i][j] = nanf("");
  }
  __syncthreads();
  Parts::load(tile, in, rows, cols, tile_row, tile_col);
  __syncthreads();
  if (first) {
    for (int i = 0; i < Parts::kTile && tile_row + i < rows; ++i)
      for (int j = 0; j < Parts::kTile && tile_col + j < cols; ++j)
        out[static_cast<size_t>(tile_row + i) * cols + tile_col + j] = tile[i][j];
  }
}

// The store alone: one thread fills the tile from in (NaN where the tile overhangs the matrix),
// then the part writes it transposed into out (cols x rows). With a right store, out is the
// transpose of in.
template <class Parts>
__global__ void tile_store_alone_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[Parts::kTile][Parts::kPitch];
  const int tile_row = blockIdx.y * Parts::kTile, tile_col = blockIdx.x * Parts::kTile;
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    for (int i = 0; i < Parts::kTile; ++i)
      for (int j = 0; j < Parts::kPitch; ++j)
        tile[i][j] = tile_row + i < rows && tile_col + j < cols && j < Parts::kTile
                         ? in[static_cast<size_t>(tile_row + i) * cols + tile_col + j]
                         : nanf("");
  }
  __syncthreads();
  Parts::store(tile, out, rows, cols, tile_row, tile_col);
}

template <class Parts>
void run_tile_load_alone(const float* in, float* out, int rows, int cols) {
  course::launch(tile_load_alone_kernel<Parts>,
                 {dim3(course::blocks_for(cols, Parts::kTile), course::blocks_for(rows, Parts::kTile)), Parts::threads()},
                 in, out, rows, cols);
}

template <class Parts>
void run_tile_store_alone(const float* in, float* out, int rows, int cols) {
  course::launch(tile_store_alone_kernel<Parts>,
                 {dim3(course::blocks_for(cols, Parts::kTile), course::blocks_for(rows, Parts::kTile)), Parts::threads()},
                 in, out, rows, cols);
}

}  // namespace ch01
