// Generated from solutions/02_stencil/07_z_chunks.cu by exercises/generate.py: edit the TODOs, not the solution.
// Step 07 — z-chunks: more blocks, so that every multiprocessor is full.
//
// Step 06 gives each block a 32 x 16 column of the grid: at 512^3 that is 16 x 32 = 512 blocks
// for 132 multiprocessors, 3.9 blocks (1000 threads) on each where 8 (2048) would fit, and the
// 4-row variant half that — which is why it lost. Here the z-range is cut into chunks of
// kChunk planes and every (column, chunk) is a block: 512 x 8 = 4096 blocks at 512^3. Each
// chunk re-reads the 2rz planes around it: 2rz / kChunk more reads (3% for rz = 1, 64 planes).
// The rest is step 06.
// Predicted: occupancy from ~50% to the register limit, the box from 2.2 toward 3.5 TB/s.
// Measured (H200, 512^3, commit 4aa540c): box27 0.46 ms (2 rows, 64-plane chunks) and 0.44 ms
// (4 rows, 32-plane chunks: 2462 GB/s, 0.58 of the copy); compound_r2 unchanged (37.8 TFLOP/s).
#include "stencils.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kThreads = kBlockX * kBlockY;

template <class Stencil, int kRows, int kChunk>
__global__ void __launch_bounds__(kThreads) z_chunk_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // TODO: step 06's kernel over planes z_begin - rz .. z_end + rz - 1 of chunk blockIdx.z, writing z_begin .. z_end - 1
}

template <class Stencil, int kRows, int kChunk>
void launch_z_chunks(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  course::launch(z_chunk_kernel<Stencil, kRows, kChunk>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY * kRows),
                       course::blocks_for(grid.dz, kChunk)),
                  dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

}  // namespace

template <class Stencil>
void stencil_z_chunks(const float* in, float* out, const Grid& grid) {
  launch_z_chunks<Stencil, 2, 64>(in, out, grid);
}

template <class Stencil>
void stencil_z_chunks_4_rows(const float* in, float* out, const Grid& grid) {
  launch_z_chunks<Stencil, 4, 32>(in, out, grid);
}

CH02_INSTANTIATE_FOR_EVERY_STENCIL(stencil_z_chunks)
CH02_INSTANTIATE_FOR_EVERY_STENCIL(stencil_z_chunks_4_rows)

}  // namespace ch02
