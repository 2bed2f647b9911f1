// Step 08 — fewer instructions per point: two tiles in turn, unguarded interior blocks, pointers
// that step instead of indices that are recomputed.
//
// The profile of step 07 (the lesson's step 08) shows no unit near its limit and many cycles
// between two instructions of a warp: the kernel is limited by latency and by how many
// instructions it issues. Three changes cut instructions and waits, none of them the arithmetic:
//   - two tiles used in turn (part 4): the barrier that protected the tile from the next plane's
//     store is gone (the next iteration stores into the other tile; one barrier per plane);
//   - blocks whose haloed tile lies inside the array (all but the edge blocks) load without the
//     six bounds comparisons per element (parts 1 and 3);
//   - the load and store addresses advance by a plane per step instead of being recomputed
//     from (x, y, z) with 64-bit multiplies (parts 2, 3 and 5).
// kRows = 4 rows per thread and 32-plane chunks, step 07's faster variant.
// Predicted: 10-20% over step 07.
// BEGIN FINDINGS
// Measured on the H200 against step 07's 4-row variant, the same shape (07_z_chunks_4_rows): the
// box +23%, the radius-2 compound +12.5%, the star +7.5% (below the range); the box's
// instructions a point 70.3 -> 58.3 (-17%). Against the taught step 07 (2 rows, 64-plane chunks)
// the gain mixes these changes with the shape's.
// END FINDINGS
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
#include "parts.hpp"
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kThreads = kBlockX * kBlockY;
constexpr int kRows = 4;
constexpr int kChunk = 32;

// Whether a kWidth x kHeight tile whose corner is (x0, y0) lies wholly inside the array in x and
// y, halo included (in z, the planes a chunk reads always do): its loads then need no bounds test.
template <int kWidth, int kHeight>
__host__ __device__ __forceinline__ bool tile_inside(int x0, int y0, const Grid& g) {
  // BEGIN SOLUTION: part 1 of 5, the interior test: the idea is that a block whose whole haloed tile lies in the array can load without any bounds test. The tile is kWidth columns and kHeight rows from its corner (x0, y0); it is inside when its first and its last column, and its first and its last row, are all within the array's bounds in x and y, halo included (the bounds Grid::in_array tests). Keep: exact, true for every tile that is inside (else no block gains) and false for every tile that is not (else a block reads outside the array). Avoid: testing only the corner, and an off-by-one at the far edge, where the last column is kWidth - 1 past the first
  return x0 >= -g.hx && x0 + kWidth <= g.dx + g.hx && y0 >= -g.hy && y0 + kHeight <= g.dy + g.hy;
  // STUB: (void)x0; (void)y0; (void)g;
  // STUB: return false;
  // END SOLUTION
}

template <class Stencil>
__global__ void COURSE_LAUNCH_BOUNDS(kThreads) fewer_instructions_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                                      Grid g) {
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
  const bool inside = tile_inside<kWidth, kHeight>(x0, y0, g);

  // 1. Addresses that step: this thread's first load, and its first output, at the chunk's start.
  // BEGIN SOLUTION: part 2 of 5, the first addresses: source points at this thread's first load, the tile cell (ix, iy0) of the chunk's first plane, z_begin - rz; target at its first output, the point (x, first row y_first) of plane z_begin. From here on both only move: by a row (g.pitch) between passes or rows, by a plane (g.plane) between planes. Keep: x and y_first as in step 07. Avoid: computing an address the thread never uses before checking it: a pointer itself is harmless, a load through it outside the array is not
  const float* source = in + g.at(x0 + ix, y0 + iy0, z_begin - Stencil::rz);
  const int x = x0 + Stencil::rx + threadIdx.x;
  const int y_first = y0 + Stencil::ry + first_row;
  float* target = out + g.at(x, y_first, z_begin);
  // STUB: const float* source = in;
  // STUB: const int x = 0, y_first = 0;
  // STUB: float* target = out;
  // END SOLUTION

  float staged[kPasses];
  auto fetch = [&](int z) {
    // BEGIN SOLUTION: part 3 of 5, the fetch through a stepping pointer: step 07's prefetch of this thread's share of plane z, but each pass's element is source[pass * kRowsPerPass * g.pitch] (kRowsPerPass rows further down), and in_array is asked only when the tile is not inside; afterwards source moves on a plane. Keep: the same cells and the same zeros as step 07's fetch. Avoid: moving source only when a load was made: it must advance once per plane, loads or not
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int iy = iy0 + pass * kRowsPerPass;
      const bool wanted = loads && iy < kHeight && (inside || g.in_array(x0 + ix, y0 + iy, z));
      staged[pass] = wanted ? source[pass * kRowsPerPass * g.pitch] : 0.0f;
    }
    source += g.plane;
    // STUB: (void)z;
    // END SOLUTION
  };

  float sum[kRows][kQueue] = {};
  fetch(z_begin - Stencil::rz);
  for (int p = z_begin - Stencil::rz; p < z_end + Stencil::rz; ++p) {
    // 2. Publish plane p into this iteration's tile, then start fetching plane p+1.
    // BEGIN SOLUTION: part 4 of 5, two tiles in turn: plane p goes into tiles[p & 1]; publish it there, one barrier, then fetch plane p + 1 unless p is the chunk's last plane (p + 1 < z_end + rz: the plane after it may lie past the array). Keep: the tile written now was last read two planes ago, and every thread has passed a barrier since, so the barrier at the end of step 07's loop is no longer needed. Avoid: one tile for every plane without that second barrier
    float (*tile)[kWidth] = tiles[p & 1];
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int iy = iy0 + pass * kRowsPerPass;
      if (loads && iy < kHeight) tile[iy][ix] = staged[pass];
    }
    __syncthreads();
    if (p + 1 < z_end + Stencil::rz) fetch(p + 1);  // no plane past the chunk's last: it may lie past the array
    // STUB: float (*tile)[kWidth] = tiles[0];
    // END SOLUTION

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
    // BEGIN SOLUTION: part 5 of 5, the writes through a stepping pointer: once the chunk's outputs begin (p - rz >= z_begin), row r's output is target[r * g.pitch], for the points inside the grid; then target moves on a plane; shift every row's queue as before. Keep: target advances once per written plane. Avoid: advancing target on the planes before the chunk's first output, which writes every plane one or more planes too deep
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
    // STUB: (void)target; (void)x; (void)y_first;
    // END SOLUTION
  }
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

namespace parts {

template <class Stencil>
Tile tile_08() {
  return {kBlockX, kBlockY * kRows, Stencil::rx, Stencil::ry, kBlockX + 2 * Stencil::rx, kBlockY * kRows + 2 * Stencil::ry};
}

template <class Stencil>
bool tile_inside_08(int bx, int by, const Grid& grid) {
  return tile_inside<kBlockX + 2 * Stencil::rx, kBlockY * kRows + 2 * Stencil::ry>(
      bx * kBlockX - Stencil::rx, by * kBlockY * kRows - Stencil::ry, grid);
}

#define CH02_PARTS_08(Op, ...)  \
  template Tile tile_08<Op>(); \
  template bool tile_inside_08<Op>(int, int, const Grid&);
CH02_OPERATORS(CH02_PARTS_08)
#undef CH02_PARTS_08

}  // namespace parts

CH02_INSTANTIATE(stencil_fewer_instructions)

}  // namespace ch02
