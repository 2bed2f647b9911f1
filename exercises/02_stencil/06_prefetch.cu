// Generated from solutions/02_stencil/06_prefetch.cu by exercises/generate.py (fingerprint 088727a6526e): edit the TODOs.
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
// BEGIN MEASURED by profiling/report.py from the chapter's results/ (NVIDIA H200, commit 804991811aee, 2026-11-22):
//   06_prefetch         star7 512^3        0.4786 ms, 2244 GB/s (0.528 of copy), 3926 GFLOP/s (0.067 of FMA)
//   06_prefetch_4_rows  star7 512^3        0.5268 ms, 2038 GB/s (0.480 of copy), 3567 GFLOP/s (0.061 of FMA)
//   06_prefetch         box27 512^3        0.4902 ms, 2190 GB/s (0.516 of copy), 14785 GFLOP/s (0.251 of FMA)
//   06_prefetch_4_rows  box27 512^3        0.5241 ms, 2049 GB/s (0.483 of copy), 13830 GFLOP/s (0.235 of FMA)
//   06_prefetch         compound_r1 512^3  0.4911 ms, 2187 GB/s (0.515 of copy), 14760 GFLOP/s (0.251 of FMA)
//   06_prefetch_4_rows  compound_r1 512^3  0.5238 ms, 2050 GB/s (0.483 of copy), 13836 GFLOP/s (0.235 of FMA)
//   06_prefetch         compound_r2 512^3  0.8788 ms, 1222 GB/s (0.288 of copy), 38183 GFLOP/s (0.649 of FMA)
//   06_prefetch_4_rows  compound_r2 512^3  0.8889 ms, 1208 GB/s (0.285 of copy), 37749 GFLOP/s (0.641 of FMA)
// END MEASURED
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kThreads = kBlockX * kBlockY;

template <class Stencil, int kRows>
__global__ void COURSE_LAUNCH_BOUNDS(kThreads) prefetch_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // TODO: step 05 with kRows rows per thread and the next plane's loads issued into registers right after the barrier
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
