// Generated from solutions/02_stencil/09_deeper_prefetch.cu by exercises/generate.py (fingerprint 639cde4ed6be): edit the TODOs.
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
  // TODO: part 1 of 3, two planes in flight from the start: fetch the chunk's first kDepth planes, z_begin - rz + d, into register set staged[d], each only if it is a plane of the chunk (< p_end). Keep: plane p is always in set (p - (z_begin - rz)) % kDepth, the set plane_step(p, ...) publishes. Avoid: priming one plane, as step 08 did: the plane after it would never be fetched
  // One plane: `slot` (a compile-time constant) names the register set that holds plane p.
  auto plane_step = [&](int p, auto slot_constant) {
    constexpr int slot = decltype(slot_constant)::value;
    float (*tile)[kWidth] = tiles[p & 1];
    // 3. Publish plane p, then refill its register set with plane p+2.
    // TODO: part 2 of 3, publish and refill: store register set staged[slot] (plane p) into the tile as in step 08, one barrier, then refill that same set with plane p + kDepth, if the chunk has it. Keep: the set is refilled only after its values are in the tile, and the other set, plane p + 1, stays in flight meanwhile. Avoid: refilling staged[slot] before publishing it, or refilling the other set (plane p + 1 not yet published)

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
  // TODO: part 3 of 3, the loop unrolled by two: walk p from z_begin - rz to p_end in steps of kDepth, calling plane_step(p, std::integral_constant<int, 0>{}) and, if p + 1 is still a plane of the chunk, plane_step(p + 1, std::integral_constant<int, 1>{}). Keep: the register set is a compile-time constant, so staged[slot] stays in registers. Avoid: one call with a run-time slot, p % 2, which puts staged in local memory
  (void)plane_step;
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
