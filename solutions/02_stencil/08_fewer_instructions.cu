// Step 08 — fewer instructions per point: double-buffered tile, unguarded interior blocks,
// pointers that step instead of indices that are recomputed.
//
// Nsight Compute on step 07 (the README's traffic table): no unit near its limit — DRAM about
// half busy, shared memory and the FMA pipe less — with many cycles between two instructions of
// a warp: the kernel is limited by latency and by how many instructions it issues, not by any
// one unit. Three changes cut instructions and waits, none of them the arithmetic:
//   - two tiles used in turn: the barrier that protected the tile from the next plane's store is
//     gone (the next iteration stores into the other tile; the one barrier per plane orders it);
//   - blocks whose haloed tile lies inside the array (all but the edge blocks) load without the
//     six bounds comparisons per element;
//   - the load and store addresses advance by a plane per step instead of being recomputed
//     from (x, y, z) with 64-bit multiplies.
// kRows = 4 rows per thread and 32-plane chunks, step 07's faster variant.
// Predicted: 10-20% over step 07.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     08_fewer_instructions  star7 512^3        0.4332 ms, 2478 GB/s (0.827 of copy), 4337 GFLOP/s (0.073 of FMA)
//     08_fewer_instructions  box27 512^3        0.4385 ms, 2449 GB/s (0.817 of copy), 16529 GFLOP/s (0.279 of FMA)
//     08_fewer_instructions  compound_r1 512^3  0.4376 ms, 2453 GB/s (0.818 of copy), 16561 GFLOP/s (0.280 of FMA)
//     08_fewer_instructions  compound_r2 512^3  0.7980 ms, 1345 GB/s (0.449 of copy), 42046 GFLOP/s (0.710 of FMA)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     08_fewer_instructions  star7 512^3        0.3504 ms, 3065 GB/s (0.729 of copy), 5363 GFLOP/s (0.092 of FMA)
//     08_fewer_instructions  box27 512^3        0.3597 ms, 2985 GB/s (0.710 of copy), 20151 GFLOP/s (0.344 of FMA)
//     08_fewer_instructions  compound_r1 512^3  0.3590 ms, 2991 GB/s (0.711 of copy), 20188 GFLOP/s (0.345 of FMA)
//     08_fewer_instructions  compound_r2 512^3  0.7971 ms, 1347 GB/s (0.320 of copy), 42097 GFLOP/s (0.719 of FMA)
// END MEASURED
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kThreads = kBlockX * kBlockY;
constexpr int kRows = 4;
constexpr int kChunk = 32;

template <class Stencil>
__global__ void COURSE_LAUNCH_BOUNDS(kThreads) fewer_instructions_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                                      Grid g) {
  // BEGIN SOLUTION: step 07 with two tiles (one barrier per plane), unguarded loads when the tile is inside the array, stepping pointers
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

  float staged[kPasses];
  auto fetch = [&](int z) {
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int iy = iy0 + pass * kRowsPerPass;
      const bool wanted = loads && iy < kHeight && (inside || g.in_array(x0 + ix, y0 + iy, z));
      staged[pass] = wanted ? source[pass * kRowsPerPass * g.pitch] : 0.0f;
    }
    source += g.plane;
  };

  float sum[kRows][kQueue] = {};
  fetch(z_begin - Stencil::rz);
  for (int p = z_begin - Stencil::rz; p < z_end + Stencil::rz; ++p) {
    float (*tile)[kWidth] = tiles[p & 1];
    // 2. Publish plane p into this iteration's tile, then start fetching plane p+1.
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int iy = iy0 + pass * kRowsPerPass;
      if (loads && iy < kHeight) tile[iy][ix] = staged[pass];
    }
    __syncthreads();
    if (p + 1 < z_end + Stencil::rz) fetch(p + 1);  // no plane past the chunk's last: it may lie past the array

    // 3. Each window row is read once and feeds every output row and plane that weighs it.
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

    // 4. Write the completed outputs, shift the queues. No second barrier: the next plane goes
    //    into the other tile.
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
  }
  // END SOLUTION
}

}  // namespace

template <class Stencil>
void stencil_fewer_instructions(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  course::launch(fewer_instructions_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY * kRows),
                       course::blocks_for(grid.dz, kChunk)),
                  dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

CH02_INSTANTIATE(stencil_fewer_instructions)

}  // namespace ch02
