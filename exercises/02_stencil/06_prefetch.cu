// Generated from solutions/02_stencil/06_prefetch.cu by exercises/generate.py (fingerprint dc3832452dcd): edit the TODOs.
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
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 2 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
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
