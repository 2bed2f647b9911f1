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
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     07_z_chunks         star7 512^3        0.5269 ms, 2038 GB/s (0.680 of copy), 3566 GFLOP/s (0.060 of FMA)
//     07_z_chunks_4_rows  star7 512^3        0.4704 ms, an experiment, 2283 GB/s (0.761 of copy), 3994 GFLOP/s (0.067 of FMA)
//     07_z_chunks         box27 512^3        0.5350 ms, 2007 GB/s (0.669 of copy), 13548 GFLOP/s (0.229 of FMA)
//     07_z_chunks_4_rows  box27 512^3        0.5131 ms, an experiment, 2093 GB/s (0.698 of copy), 14127 GFLOP/s (0.239 of FMA)
//     07_z_chunks         compound_r1 512^3  0.5346 ms, 2008 GB/s (0.670 of copy), 13556 GFLOP/s (0.229 of FMA)
//     07_z_chunks_4_rows  compound_r1 512^3  0.5132 ms, an experiment, 2092 GB/s (0.698 of copy), 14121 GFLOP/s (0.238 of FMA)
//     07_z_chunks         compound_r2 512^3  0.8868 ms, 1211 GB/s (0.404 of copy), 37838 GFLOP/s (0.639 of FMA)
//     07_z_chunks_4_rows  compound_r2 512^3  0.8974 ms, an experiment, 1197 GB/s (0.399 of copy), 37392 GFLOP/s (0.631 of FMA)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     07_z_chunks         star7 512^3        0.4508 ms, 2382 GB/s (0.566 of copy), 4168 GFLOP/s (0.071 of FMA)
//     07_z_chunks_4_rows  star7 512^3        0.3767 ms, an experiment, 2850 GB/s (0.678 of copy), 4988 GFLOP/s (0.085 of FMA)
//     07_z_chunks         box27 512^3        0.4638 ms, 2315 GB/s (0.551 of copy), 15628 GFLOP/s (0.267 of FMA)
//     07_z_chunks_4_rows  box27 512^3        0.4418 ms, an experiment, 2431 GB/s (0.578 of copy), 16406 GFLOP/s (0.280 of FMA)
//     07_z_chunks         compound_r1 512^3  0.4630 ms, 2319 GB/s (0.551 of copy), 15654 GFLOP/s (0.267 of FMA)
//     07_z_chunks_4_rows  compound_r1 512^3  0.4420 ms, an experiment, 2429 GB/s (0.578 of copy), 16397 GFLOP/s (0.280 of FMA)
//     07_z_chunks         compound_r2 512^3  0.8876 ms, 1210 GB/s (0.288 of copy), 37804 GFLOP/s (0.646 of FMA)
//     07_z_chunks_4_rows  compound_r2 512^3  0.8966 ms, an experiment, 1198 GB/s (0.285 of copy), 37424 GFLOP/s (0.639 of FMA)
// END MEASURED
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

  // BEGIN SOLUTION: part 1 of 3, the chunk: block (x, y, c) writes the output planes z_begin .. z_end - 1 of chunk c = blockIdx.z, kChunk planes from c * kChunk, the last chunk cut at g.dz; the plane loop below then reads planes z_begin - rz .. z_end + rz - 1, the chunk and the 2rz planes around it that its outputs need. Keep: the chunks cover 0 .. dz - 1 once. Avoid: letting the last chunk run past dz
  const int z_begin = blockIdx.z * kChunk;
  const int z_end = min(g.dz, z_begin + kChunk);
  // STUB: const int z_begin = 0, z_end = 0;
  // END SOLUTION
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
    // BEGIN SOLUTION: part 2 of 3, write only the chunk's outputs: as in step 06, sum[r][0] is complete for the output plane z = p - rz of each row r: write it for the points inside the grid, but only for the chunk's own planes, z >= z_begin (the loop ends at the chunk's last); then shift the queues and start each newest sum at 0. Keep: every output plane written by exactly one chunk. Avoid: z >= 0, which lets a chunk write the sums of the 2rz planes before it, whose queues never saw the planes below the chunk
    const int z = p - Stencil::rz;
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const int y = y0 + Stencil::ry + first_row + r;
      if (x < g.dx && y < g.dy && z >= z_begin) out[g.at(x, y, z)] = sum[r][0];
#pragma unroll
      for (int q = 0; q + 1 < kQueue; ++q) sum[r][q] = sum[r][q + 1];
      sum[r][kQueue - 1] = 0.0f;
    }
    // STUB: (void)x; (void)y0; (void)first_row;
    // END SOLUTION
    __syncthreads();  // the tile is overwritten by the next plane
  }
}

template <class Stencil, int kRows, int kChunk>
void launch_z_chunks(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  // BEGIN SOLUTION: part 3 of 3, the launch: step 06's grid of columns, 32 x (8 kRows) outputs a block, with a third dimension: one block per chunk of kChunk planes (course::blocks_for rounds up). Keep: 32 x 8 threads a block. Avoid: a grid of dz / kChunk chunks, which leaves out the last, partial one
  course::launch(z_chunk_kernel<Stencil, kRows, kChunk>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY * kRows),
                       course::blocks_for(grid.dz, kChunk)),
                  dim3(kBlockX, kBlockY)},
                 in, out, grid);
  // STUB: (void)in; (void)out;
  // END SOLUTION
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
