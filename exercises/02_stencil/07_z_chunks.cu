// Generated from solutions/02_stencil/07_z_chunks.cu by exercises/generate.py (fingerprint 0b16446f7c50): edit the TODOs.
// Step 07 — z-chunks: more blocks, so that every multiprocessor is full.
//
// Step 06 gives each block a 32 x 16 column of the grid: at 512^3 that is 16 x 32 = 512 blocks
// for 132 multiprocessors, 3.9 blocks (1000 threads) on each where 8 (2048) would fit, and the
// 4-row variant half that — which is why it lost. Here the z-range is cut into chunks of
// kChunk planes and every (column, chunk) is a block: 512 x 8 = 4096 blocks at 512^3. Each
// chunk re-reads the 2rz planes around it: 2rz / kChunk more reads (3% for rz = 1, 64 planes).
// The rest is step 06.
// Predicted: occupancy from ~50% to the register limit, the box from 2.2 toward 3.5 TB/s.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 2 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kThreads = kBlockX * kBlockY;

template <class Stencil, int kRows, int kChunk>
__global__ void COURSE_LAUNCH_BOUNDS(kThreads) z_chunk_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
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

CH02_INSTANTIATE(stencil_z_chunks)
CH02_INSTANTIATE(stencil_z_chunks_4_rows)

}  // namespace ch02
