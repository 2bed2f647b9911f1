// Step 06 — keep loads in flight: the next plane is fetched into registers while this one is
// used, and each thread computes several rows.
//
// Step 05 ran the 7-point star, a quarter of the box's arithmetic, hardly faster than the
// 27-point box: the arithmetic is not the limit, and neither is shared memory; the block waits for each plane's
// loads, then computes, then waits again. 1024 blocks of 256 threads fill the H200 exactly once
// (8 per multiprocessor), so more blocks would not be resident: each thread must have more
// bytes in flight instead.
//   - Prefetch: right after the barrier that publishes plane p, each thread issues the loads of
//     its part of plane p+1 into registers; they travel while plane p is used, and are stored
//     into the tile at the top of the next iteration.
//   - kRows adjacent output rows per thread: the tile is 32 x (8 kRows) with its halo, so the
//     y-halo costs 2ry / (8 kRows) instead of 2ry / 8, and neighbouring rows share the shared-
//     memory reads of their windows.
// Predicted: the box toward the copy bandwidth (~3 TB/s: loads now overlap compute), the
// radius-2 compound toward its FMA limit.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     06_prefetch         star7 512^3        0.5579 ms, 1925 GB/s (0.642 of copy), 3368 GFLOP/s (0.057 of FMA)
//     06_prefetch_4_rows  star7 512^3        0.5973 ms, an experiment, 1798 GB/s (0.600 of copy), 3146 GFLOP/s (0.053 of FMA)
//     06_prefetch         box27 512^3        0.5611 ms, 1914 GB/s (0.638 of copy), 12918 GFLOP/s (0.218 of FMA)
//     06_prefetch_4_rows  box27 512^3        0.5914 ms, an experiment, 1815 GB/s (0.605 of copy), 12254 GFLOP/s (0.207 of FMA)
//     06_prefetch         compound_r1 512^3  0.5629 ms, 1908 GB/s (0.636 of copy), 12876 GFLOP/s (0.217 of FMA)
//     06_prefetch_4_rows  compound_r1 512^3  0.5919 ms, an experiment, 1814 GB/s (0.605 of copy), 12246 GFLOP/s (0.207 of FMA)
//     06_prefetch         compound_r2 512^3  0.8835 ms, 1215 GB/s (0.405 of copy), 37979 GFLOP/s (0.641 of FMA)
//     06_prefetch_4_rows  compound_r2 512^3  0.8888 ms, an experiment, 1208 GB/s (0.403 of copy), 37753 GFLOP/s (0.638 of FMA)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     06_prefetch         star7 512^3        0.4855 ms, 2211 GB/s (0.526 of copy), 3870 GFLOP/s (0.066 of FMA)
//     06_prefetch_4_rows  star7 512^3        0.5365 ms, an experiment, 2001 GB/s (0.476 of copy), 3502 GFLOP/s (0.060 of FMA)
//     06_prefetch         box27 512^3        0.4969 ms, 2161 GB/s (0.514 of copy), 14586 GFLOP/s (0.249 of FMA)
//     06_prefetch_4_rows  box27 512^3        0.5333 ms, an experiment, 2013 GB/s (0.479 of copy), 13591 GFLOP/s (0.232 of FMA)
//     06_prefetch         compound_r1 512^3  0.4980 ms, 2156 GB/s (0.513 of copy), 14553 GFLOP/s (0.249 of FMA)
//     06_prefetch_4_rows  compound_r1 512^3  0.5333 ms, an experiment, 2013 GB/s (0.479 of copy), 13589 GFLOP/s (0.232 of FMA)
//     06_prefetch         compound_r2 512^3  0.8853 ms, 1213 GB/s (0.288 of copy), 37903 GFLOP/s (0.647 of FMA)
//     06_prefetch_4_rows  compound_r2 512^3  0.8897 ms, an experiment, 1207 GB/s (0.287 of copy), 37714 GFLOP/s (0.644 of FMA)
// END MEASURED
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kThreads = kBlockX * kBlockY;

template <class Stencil, int kRows>
__global__ void COURSE_LAUNCH_BOUNDS(kThreads) prefetch_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // BEGIN SOLUTION: step 05 with kRows rows per thread and the next plane's loads issued into registers right after the barrier
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

  float sum[kRows][kQueue] = {};
  fetch(-Stencil::rz);
  for (int p = -Stencil::rz; p < g.dz + Stencil::rz; ++p) {
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
    const int z = p - Stencil::rz;
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const int y = y0 + Stencil::ry + first_row + r;
      if (x < g.dx && y < g.dy && z >= 0) out[g.at(x, y, z)] = sum[r][0];
#pragma unroll
      for (int q = 0; q + 1 < kQueue; ++q) sum[r][q] = sum[r][q + 1];
      sum[r][kQueue - 1] = 0.0f;
    }
    __syncthreads();  // the tile is overwritten by the next plane
  }
  // END SOLUTION
}

template <class Stencil, int kRows>
void launch_prefetch(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  course::launch(prefetch_kernel<Stencil, kRows>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY * kRows)),
                  dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

}  // namespace

template <class Stencil>
void stencil_prefetch(const float* in, float* out, const Grid& grid) {
  launch_prefetch<Stencil, 2>(in, out, grid);
}

template <class Stencil>
void stencil_prefetch_4_rows(const float* in, float* out, const Grid& grid) {
  launch_prefetch<Stencil, 4>(in, out, grid);
}

CH02_INSTANTIATE(stencil_prefetch)
CH02_INSTANTIATE(stencil_prefetch_4_rows)

}  // namespace ch02
