// Generated from solutions/02_stencil/09_deeper_prefetch.cu by exercises/generate.py: edit the TODOs, not the solution.
// Step 09 — two planes in flight, and a register budget for occupancy.
//
// Step 08's profile: DRAM at 65% of its peak and no unit saturated, with 60% occupancy (the
// 4-row kernels take up to 72 registers a thread: 3 blocks per multiprocessor). Two changes:
//   - the loads of plane p+2 are issued while plane p is used, not only those of p+1: each
//     thread keeps two planes of its share in registers (the loop is unrolled by two so that
//     the two register sets are named at compile time, not indexed at run time);
//   - __launch_bounds__(256, 5) asks the compiler for at most 51 registers, 5 blocks per
//     multiprocessor (no spills: the resource report shows no local memory).
// Tried alongside on the H200 (one run, 10 repetitions, box27 512^3): the register cap alone
// +6%, the deeper prefetch alone +2%, both with a cap of 6 blocks +9%, this one +11%.
// Predicted: +10% over step 08 for the box; the radius-2 compound unchanged (bound by its FMAs).
// Measured (H200, 512^3, commit 4aa540c): box27 0.33 ms, 3248 GB/s (+8% over step 08, 0.77 of the
// copy); star7 3327 GB/s; compound_r2 0.78 ms, 42.8 TFLOP/s (+2%). DRAM 71%, shared 33%, FMA 40%,
// occupancy 60%: still no unit at its limit.
#include <type_traits>

#include "stencils.hpp"

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
__global__ void __launch_bounds__(kThreads, kMinBlocks)
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

CH02_INSTANTIATE_FOR_EVERY_STENCIL(stencil_deeper_prefetch)

}  // namespace ch02
