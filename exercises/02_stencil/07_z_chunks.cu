// Generated from solutions/02_stencil/07_z_chunks.cu by exercises/generate.py (fingerprint edccaae722a7): edit the TODOs.
// Step 07 — z-chunks: more blocks, so that every multiprocessor is full.
//
// Step 06 gives each block a 32 x 16 column of the grid: at 512^3 that is 16 x 32 = 512 blocks
// for 132 multiprocessors, 3.9 blocks (1000 threads) on each where 8 (2048) would fit, and the
// 4-row variant half that — which is why it lost. Here the z-range is cut into chunks of
// kChunk planes and every (column, chunk) is a block: 512 x 8 = 4096 blocks at 512^3. Each
// chunk re-reads the 2rz planes around it: 2rz / kChunk more reads (3% for rz = 1, 64 planes).
// The rest is step 06.
// Predicted: occupancy from ~50% to the register limit, the box from 2.2 toward 3.5 TB/s.
// BEGIN MEASURED by profiling/report.py from the chapter's results/ (NVIDIA H200, commit 804991811aee, 2026-11-22):
//   07_z_chunks         star7 512^3        0.4430 ms, 2424 GB/s (0.571 of copy), 4241 GFLOP/s (0.072 of FMA)
//   07_z_chunks_4_rows  star7 512^3        0.3724 ms, 2883 GB/s (0.679 of copy), 5045 GFLOP/s (0.086 of FMA)
//   07_z_chunks         box27 512^3        0.4568 ms, 2350 GB/s (0.554 of copy), 15865 GFLOP/s (0.269 of FMA)
//   07_z_chunks_4_rows  box27 512^3        0.4361 ms, 2462 GB/s (0.580 of copy), 16618 GFLOP/s (0.282 of FMA)
//   07_z_chunks         compound_r1 512^3  0.4566 ms, 2351 GB/s (0.554 of copy), 15872 GFLOP/s (0.270 of FMA)
//   07_z_chunks_4_rows  compound_r1 512^3  0.4358 ms, 2464 GB/s (0.580 of copy), 16632 GFLOP/s (0.283 of FMA)
//   07_z_chunks         compound_r2 512^3  0.8870 ms, 1211 GB/s (0.285 of copy), 37831 GFLOP/s (0.643 of FMA)
//   07_z_chunks_4_rows  compound_r2 512^3  0.8957 ms, 1199 GB/s (0.282 of copy), 37463 GFLOP/s (0.636 of FMA)
// END MEASURED
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
