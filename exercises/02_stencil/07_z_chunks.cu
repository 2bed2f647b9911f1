// Generated from solutions/02_stencil/07_z_chunks.cu by exercises/generate.py (fingerprint 49e0798f0521): edit the TODOs.
// Step 07 — z-chunks: more blocks, so that every multiprocessor is full.
//
// Step 06 gives each block a 32 x 16 column of the grid: at 512^3 that is 16 x 32 = 512 blocks
// for 132 multiprocessors, 3.9 blocks (1000 threads) on each where 8 (2048) would fit, and the
// 4-row variant half that — which is why it lost. Here the z-range is cut into chunks of
// kChunk planes and every (column, chunk) is a block: 512 x 8 = 4096 blocks at 512^3. Each
// chunk re-reads the 2rz planes around it: 2rz / kChunk more reads (3% for rz = 1, 64 planes).
// It also redoes their arithmetic: every plane a chunk reads is added into its running sums, so
// a chunk does (kChunk + 2rz) / kChunk of the FMAs its outputs need (radius 2: 6% more at 64
// planes, 12.5% at 32).
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
  constexpr int kWidth = kBlockX + 2 * Stencil::rx;
  constexpr int kHeight = kBlockY * kRows + 2 * Stencil::ry;
  constexpr int kQueue = 2 * Stencil::rz + 1;
  constexpr int kRowsPerPass = kThreads / kWidth;  // the coalesced plane load of step 04
  constexpr int kPasses = (kHeight + kRowsPerPass - 1) / kRowsPerPass;
  __shared__ float tile[kHeight][kWidth];

  const int x0 = blockIdx.x * kBlockX - Stencil::rx;
  const int y0 = blockIdx.y * kBlockY * kRows - Stencil::ry;
  const int x = x0 + Stencil::rx + threadIdx.x;
  const int first_row = kRows * threadIdx.y;  // this thread's outputs: tile rows first_row + ry + r
  const int ind = threadIdx.x + threadIdx.y * kBlockX;
  const int ix = ind % kWidth, iy0 = ind / kWidth;
  const bool loads = iy0 < kRowsPerPass;

  float staged[kPasses];  // this thread's elements of the next plane
  auto fetch = [&](int z) {
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int iy = iy0 + pass * kRowsPerPass;
      staged[pass] = loads && iy < kHeight && g.in_array(x0 + ix, y0 + iy, z) ? in[g.at(x0 + ix, y0 + iy, z)] : 0.0f;
    }
  };

  // TODO: part 1 of 3, the chunk: block (x, y, c) writes the output planes z_begin .. z_end - 1 of chunk c = blockIdx.z, kChunk planes from c * kChunk, the last chunk cut at g.dz; the plane loop below then reads planes z_begin - rz .. z_end + rz - 1, the chunk and the 2rz planes around it that its outputs need. Keep: the chunks cover 0 .. dz - 1 once. Avoid: letting the last chunk run past dz
  const int z_begin = 0, z_end = 0;
  float sum[kRows][kQueue] = {};
  fetch(z_begin - Stencil::rz);
  for (int p = z_begin - Stencil::rz; p < z_end + Stencil::rz; ++p) {
    // 1. Publish plane p, then start fetching plane p+1.
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int iy = iy0 + pass * kRowsPerPass;
      if (loads && iy < kHeight) tile[iy][ix] = staged[pass];
    }
    __syncthreads();
    fetch(p + 1);

    // 2. Each window row is read once and feeds every output row and plane that weighs it.
#pragma unroll
    for (int wy = -Stencil::ry; wy < kRows + Stencil::ry; ++wy) {
#pragma unroll
      for (int i = -Stencil::rx; i <= Stencil::rx; ++i) {
        const float value = tile[first_row + Stencil::ry + wy][threadIdx.x + Stencil::rx + i];
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          const int j = wy - r;
          if (j < -Stencil::ry || j > Stencil::ry || !column_used<Stencil>(i, j)) continue;
#pragma unroll
          for (int q = 0; q < kQueue; ++q) {
            if (Stencil::weight(i, j, Stencil::rz - q) != 0.0)
              sum[r][q] = fmaf(static_cast<float>(Stencil::weight(i, j, Stencil::rz - q)), value, sum[r][q]);
          }
        }
      }
    }

    // 3. Write the completed outputs, shift the queues.
    // TODO: part 2 of 3, write only the chunk's outputs: as in step 06, sum[r][0] is complete for the output plane z = p - rz of each row r: write it for the points inside the grid, but only for the chunk's own planes, z >= z_begin (the loop ends at the chunk's last); then shift the queues and start each newest sum at 0. Keep: every output plane written by exactly one chunk. Avoid: z >= 0, which lets a chunk write the sums of the 2rz planes before it, whose queues never saw the planes below the chunk
    (void)x; (void)y0; (void)first_row;
    __syncthreads();  // the tile is overwritten by the next plane
  }
}

template <class Stencil, int kRows, int kChunk>
void launch_z_chunks(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  // TODO: part 3 of 3, the launch: step 06's grid of columns, 32 x (8 kRows) outputs a block, with a third dimension: one block per chunk of kChunk planes (course::blocks_for rounds up). Keep: 32 x 8 threads a block. Avoid: a grid of dz / kChunk chunks, which leaves out the last, partial one
  (void)in; (void)out;
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
