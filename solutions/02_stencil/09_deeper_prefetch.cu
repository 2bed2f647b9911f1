// Step 09 — two planes in flight, and a register budget for occupancy.
//
// The profile of step 08 (the lesson's step 09) shows DRAM busier but no unit saturated. Two
// changes:
//   - the loads of plane p+2 are issued while plane p is used, not only those of p+1 (parts
//     1-3): each thread keeps two planes of its share in registers, and the loop is unrolled by
//     two so that the two register sets are named at compile time, not indexed at run time;
//   - COURSE_LAUNCH_BOUNDS(256, 5) budgets registers for 5 blocks per multiprocessor: 65536 /
//     (5 * 256) = 51 registers a thread, which the allocation granularity makes 48.
// Predicted: +10% over step 08 for the box; the radius-2 compound unchanged (bound by its FMAs).
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     09_deeper_prefetch  star7 512^3        0.4217 ms, 2546 GB/s (0.849 of copy), 4455 GFLOP/s (0.075 of FMA)
//     09_deeper_prefetch  box27 512^3        0.4250 ms, 2527 GB/s (0.843 of copy), 17055 GFLOP/s (0.288 of FMA)
//     09_deeper_prefetch  compound_r1 512^3  0.4254 ms, 2524 GB/s (0.842 of copy), 17039 GFLOP/s (0.288 of FMA)
//     09_deeper_prefetch  compound_r2 512^3  0.7848 ms, 1368 GB/s (0.456 of copy), 42757 GFLOP/s (0.722 of FMA)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     09_deeper_prefetch  star7 512^3        0.3239 ms, 3315 GB/s (0.788 of copy), 5801 GFLOP/s (0.099 of FMA)
//     09_deeper_prefetch  box27 512^3        0.3298 ms, 3256 GB/s (0.774 of copy), 21977 GFLOP/s (0.375 of FMA)
//     09_deeper_prefetch  compound_r1 512^3  0.3291 ms, 3262 GB/s (0.776 of copy), 22021 GFLOP/s (0.376 of FMA)
//     09_deeper_prefetch  compound_r2 512^3  0.7843 ms, 1369 GB/s (0.326 of copy), 42782 GFLOP/s (0.731 of FMA)
// END MEASURED
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
  constexpr int kWidth = kBlockX + 2 * Stencil::rx;
  constexpr int kHeight = kBlockY * kRows + 2 * Stencil::ry;
  constexpr int kQueue = 2 * Stencil::rz + 1;
  constexpr int kRowsPerPass = kThreads / kWidth;
  constexpr int kPasses = (kHeight + kRowsPerPass - 1) / kRowsPerPass;
  __shared__ float tiles[2][kHeight][kWidth];

  const int x0 = blockIdx.x * kBlockX - Stencil::rx;
  const int y0 = blockIdx.y * kBlockY * kRows - Stencil::ry;
  const int z_begin = blockIdx.z * kChunk;
  const int z_end = min(g.dz, z_begin + kChunk);
  const int first_row = kRows * threadIdx.y;
  const int ind = threadIdx.x + threadIdx.y * kBlockX;
  const int ix = ind % kWidth, iy0 = ind / kWidth;
  const bool loads = iy0 < kRowsPerPass;
  // The tile lies inside the array in x and y (in z, planes z_begin-rz .. z_end+rz-1 always do).
  const bool inside = x0 >= -g.hx && x0 + kWidth <= g.dx + g.hx && y0 >= -g.hy && y0 + kHeight <= g.dy + g.hy;

  // 1. Addresses that step: this thread's first load, and its first output, at the chunk's start.
  const float* source = in + g.at(x0 + ix, y0 + iy0, z_begin - Stencil::rz);
  const int x = x0 + Stencil::rx + threadIdx.x;
  const int y_first = y0 + Stencil::ry + first_row;
  float* target = out + g.at(x, y_first, z_begin);

  // 2. Two register sets of this thread's share of a plane: the planes p+1 and p+2 in flight.
  float staged[kDepth][kPasses];
  auto fetch = [&](int z, float* into) {
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int iy = iy0 + pass * kRowsPerPass;
      const bool wanted = loads && iy < kHeight && (inside || g.in_array(x0 + ix, y0 + iy, z));
      into[pass] = wanted ? source[pass * kRowsPerPass * g.pitch] : 0.0f;
    }
    source += g.plane;
  };

  float sum[kRows][kQueue] = {};
  const int p_end = z_end + Stencil::rz;
  // BEGIN SOLUTION: part 1 of 3, two planes in flight from the start: fetch the chunk's first kDepth planes, z_begin - rz + d, into register set staged[d], each only if it is a plane of the chunk (< p_end). Keep: plane p is always in set (p - (z_begin - rz)) % kDepth, the set plane_step(p, ...) publishes. Avoid: priming one plane, as step 08 did: the plane after it would never be fetched
#pragma unroll
  for (int d = 0; d < kDepth; ++d)  // prime: the chunk's first two planes
    if (z_begin - Stencil::rz + d < p_end) fetch(z_begin - Stencil::rz + d, staged[d]);
  // END SOLUTION
  // One plane: `slot` (a compile-time constant) names the register set that holds plane p.
  auto plane_step = [&](int p, auto slot_constant) {
    constexpr int slot = decltype(slot_constant)::value;
    float (*tile)[kWidth] = tiles[p & 1];
    // 3. Publish plane p, then refill its register set with plane p+2.
    // BEGIN SOLUTION: part 2 of 3, publish and refill: store register set staged[slot] (plane p) into the tile as in step 08, one barrier, then refill that same set with plane p + kDepth, if the chunk has it. Keep: the set is refilled only after its values are in the tile, and the other set, plane p + 1, stays in flight meanwhile. Avoid: refilling staged[slot] before publishing it, or refilling the other set (plane p + 1 not yet published)
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int iy = iy0 + pass * kRowsPerPass;
      if (loads && iy < kHeight) tile[iy][ix] = staged[slot][pass];
    }
    __syncthreads();
    if (p + kDepth < p_end) fetch(p + kDepth, staged[slot]);
    // END SOLUTION

    // 4. Each window row is read once and feeds every output row and plane that weighs it.
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

    // 5. Write the completed outputs, shift the queues.
    if (p - Stencil::rz >= z_begin) {
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        if (x < g.dx && y_first + r < g.dy) target[r * g.pitch] = sum[r][0];
      }
      target += g.plane;
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
#pragma unroll
      for (int q = 0; q + 1 < kQueue; ++q) sum[r][q] = sum[r][q + 1];
      sum[r][kQueue - 1] = 0.0f;
    }
  };
  // The plane loop, unrolled by two so that each plane's register set is named statically.
  // BEGIN SOLUTION: part 3 of 3, the loop unrolled by two: walk p from z_begin - rz to p_end in steps of kDepth, calling plane_step(p, std::integral_constant<int, 0>{}) and, if p + 1 is still a plane of the chunk, plane_step(p + 1, std::integral_constant<int, 1>{}). Keep: the register set is a compile-time constant, so staged[slot] stays in registers. Avoid: one call with a run-time slot, p % 2, which puts staged in local memory
  for (int p = z_begin - Stencil::rz; p < p_end; p += kDepth) {
    plane_step(p, std::integral_constant<int, 0>{});
    if (p + 1 < p_end) plane_step(p + 1, std::integral_constant<int, 1>{});
  }
  // STUB: (void)plane_step;
  // END SOLUTION
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
