// Generated from solutions/01_transpose/05_vector_tile.cu by exercises/generate.py (fingerprint c9e2553d509e): edit the TODOs.
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
// float4 would be misaligned), take a scalar path in the same kernel.
//
// The streaming variant writes with store_streaming (st.global.cs on CUDA, a non-temporal store on
// HIP): the output is not read again, so it need not displace the input's lines in L2.
// Predicted: +5-10% over step 04 from fewer, wider accesses; streaming stores within noise.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 1 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "transpose.hpp"

namespace ch01 {
namespace {

constexpr int kTile = 64;
constexpr int kVector = 4;                     // floats per 16-byte access
constexpr int kThreadsX = kTile / kVector;     // 16 threads cover a tile row with float4s
constexpr int kThreadsY = 16;
constexpr int kRowsPerThread = kTile / kThreadsY;  // 4

template <bool kStreamingStores>
__global__ void COURSE_LAUNCH_BOUNDS(kThreadsX * kThreadsY)
    transpose_vector_tile_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  // TODO: four float4 loads per thread into a 64x65 shared tile; barrier; four float4 stores assembled from tile columns
}

void launch_vector_tile(void (*kernel)(const float*, float*, int, int), const float* in, float* out, int rows, int cols) {
  course::launch(kernel, {dim3(course::blocks_for(cols, kTile), course::blocks_for(rows, kTile)), dim3(kThreadsX, kThreadsY)},
                 in, out, rows, cols);
}

}  // namespace

void transpose_vector_tile(const float* in, float* out, int rows, int cols) {
  launch_vector_tile(transpose_vector_tile_kernel<false>, in, out, rows, cols);
}

void transpose_vector_tile_streaming(const float* in, float* out, int rows, int cols) {
  launch_vector_tile(transpose_vector_tile_kernel<true>, in, out, rows, cols);
}

}  // namespace ch01
