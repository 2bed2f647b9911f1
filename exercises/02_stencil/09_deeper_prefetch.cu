// Generated from solutions/02_stencil/09_deeper_prefetch.cu by exercises/generate.py (fingerprint fbb484bd4c31): edit the TODOs.
// Step 09 — two planes in flight, and a register budget for occupancy.
//
// Step 08's profile: DRAM at two thirds of its peak and no unit saturated, at 60% occupancy. Two
// changes:
//   - the loads of plane p+2 are issued while plane p is used, not only those of p+1: each
//     thread keeps two planes of its share in registers (the loop is unrolled by two so that
//     the two register sets are named at compile time, not indexed at run time);
//   - COURSE_LAUNCH_BOUNDS(256, 5) budgets registers for 5 blocks per multiprocessor: 65536 /
//     (5 x 256) = 51, which the allocation granularity makes 48. Step 08's radius-2 kernel took
//     64 (4 blocks); its box kernel already took 48, so for the box only the prefetch changes.
// Predicted: +10% over step 08 for the box; the radius-2 compound unchanged (bound by its FMAs).
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 2 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include <type_traits>

#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kThreads = kBlockX * kBlockY;
constexpr int kRows = 4;
constexpr int kChunk = 32;
constexpr int kDepth = 2;      // planes in flight per thread
constexpr int kMinBlocks = 5;  // per multiprocessor: caps registers at 65536 / (5 * 256)

template <class Stencil>
__global__ void COURSE_LAUNCH_BOUNDS(kThreads, kMinBlocks)
    deeper_prefetch_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // TODO: step 08 with two register sets of staged loads, plane p+2 fetched while plane p is used
}

}  // namespace

template <class Stencil>
void stencil_deeper_prefetch(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  course::launch(deeper_prefetch_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY * kRows),
                       course::blocks_for(grid.dz, kChunk)),
                  dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

CH02_INSTANTIATE(stencil_deeper_prefetch)

}  // namespace ch02
