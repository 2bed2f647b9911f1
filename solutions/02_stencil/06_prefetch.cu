// Step 06 — keep loads in flight: the next plane is fetched into registers while this one is
// used, and each thread computes several rows.
//
// In step 05 a block waits for each plane's loads, then computes, then waits again: the lesson's
// step 05 shows the star, with a quarter of the box's arithmetic, hardly faster than the box. A
// 512^3 grid gives 1024 blocks of 256 threads, about 8 per multiprocessor, all the machine holds,
// so more blocks would not help: each thread must have more bytes in flight instead.
//   - Prefetch (parts 1-3): right after the barrier that publishes plane p, each thread issues
//     the loads of its share of plane p+1 into registers; they travel while plane p is used, and
//     are stored into the tile at the top of the next iteration.
//   - kRows adjacent output rows per thread (part 4): the tile is 32 x (8 kRows) with its halo,
//     so the y-halo costs 2ry / (8 kRows) instead of 2ry / 8, and neighbouring rows share the
//     shared-memory reads of their windows.
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
#include "parts.hpp"
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kThreads = kBlockX * kBlockY;

// The tile of a block whose threads compute kRows rows each, and the passes of step 04's coalesced
// plane load over it: thread Ind = tx + ty*32 reads column ix = Ind % kWidth of rows
// iy0 + pass * kRowsPerPass, iy0 = Ind / kWidth (the threads with iy0 >= kRowsPerPass read nothing).
template <class Stencil, int kRows>
struct PlaneLoad {
  static constexpr int kWidth = kBlockX + 2 * Stencil::rx;
  static constexpr int kHeight = kBlockY * kRows + 2 * Stencil::ry;
  static constexpr int kRowsPerPass = kThreads / kWidth;
  static constexpr int kPasses = (kHeight + kRowsPerPass - 1) / kRowsPerPass;
  using Staged = float[kPasses];  // a thread's share of a plane (named types: clang-15's HIP parser
  using Row = float[kWidth];      // misreads a template-id inside an array parameter's bound)
};

// This thread's share of plane z into registers: staged[pass] = the tile cell (iy0 + pass *
// kRowsPerPass, ix) of plane z.
template <class Stencil, int kRows>
__device__ __forceinline__ void fetch_plane(typename PlaneLoad<Stencil, kRows>::Staged& staged, const float* __restrict__ in,
                                            const Grid& g, int x0, int y0, int ix, int iy0, bool loads, int z) {
  constexpr int kHeight = PlaneLoad<Stencil, kRows>::kHeight;
  constexpr int kRowsPerPass = PlaneLoad<Stencil, kRows>::kRowsPerPass;
  constexpr int kPasses = PlaneLoad<Stencil, kRows>::kPasses;
  // BEGIN SOLUTION: part 1 of 4, fetch into registers: for each pass, staged[pass] = in at the tile cell (ix, iy = iy0 + pass * kRowsPerPass) of plane z, that is the point (x0 + ix, y0 + iy, z), or 0 when this thread reads nothing (loads false), the row is past the tile (iy >= kHeight) or the point is outside the array. Keep: the same cells as step 04's plane load, in registers instead of shared memory, so that the loads can travel while the last plane is used. Avoid: storing into the tile here: the tile still holds the plane in use
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int iy = iy0 + pass * kRowsPerPass;
    staged[pass] = loads && iy < kHeight && g.in_array(x0 + ix, y0 + iy, z) ? in[g.at(x0 + ix, y0 + iy, z)] : 0.0f;
  }
  // STUB: (void)staged; (void)in; (void)g; (void)x0; (void)y0; (void)ix; (void)iy0; (void)loads; (void)z;
  // END SOLUTION
}

// The staged plane into the tile, every cell where fetch_plane's pass read it.
template <class Stencil, int kRows>
__device__ __forceinline__ void publish_plane(typename PlaneLoad<Stencil, kRows>::Row* tile,
                                              const typename PlaneLoad<Stencil, kRows>::Staged& staged, int ix, int iy0,
                                              bool loads) {
  constexpr int kHeight = PlaneLoad<Stencil, kRows>::kHeight;
  constexpr int kRowsPerPass = PlaneLoad<Stencil, kRows>::kRowsPerPass;
  constexpr int kPasses = PlaneLoad<Stencil, kRows>::kPasses;
  // BEGIN SOLUTION: part 2 of 4, publish: store staged[pass] at tile[iy0 + pass * kRowsPerPass][ix], for the threads that read (loads) and the rows inside the tile (iy < kHeight). Keep: the cell each pass fetched. Avoid: writing rows past kHeight, which lie outside the tile
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int iy = iy0 + pass * kRowsPerPass;
    if (loads && iy < kHeight) tile[iy][ix] = staged[pass];
  }
  // STUB: (void)tile; (void)staged; (void)ix; (void)iy0; (void)loads;
  // END SOLUTION
}

template <class Stencil, int kRows>
__global__ void COURSE_LAUNCH_BOUNDS(kThreads) prefetch_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
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
  auto fetch = [&](int z) { fetch_plane<Stencil, kRows>(staged, in, g, x0, y0, ix, iy0, loads, z); };

  float sum[kRows][kQueue] = {};
  fetch(-Stencil::rz);
  for (int p = -Stencil::rz; p < g.dz + Stencil::rz; ++p) {
    // 1. Publish plane p, then start fetching plane p+1.
    // BEGIN SOLUTION: part 3 of 4, the plane loop's order: publish plane p (staged since the last iteration) into the tile, a barrier so that every thread's share is in, and only then fetch plane p + 1 into the same registers: its loads travel while plane p is used below. Keep: one fetch in flight, issued right after the barrier. Avoid: fetching before publishing (it overwrites plane p's values) and leaving out the barrier
    publish_plane<Stencil, kRows>(tile, staged, ix, iy0, loads);
    __syncthreads();
    fetch(p + 1);
    // END SOLUTION

    // 2. Each window row is read once and feeds every output row and plane that weighs it.
    // BEGIN SOLUTION: part 4 of 4, several rows a thread: this thread's outputs are the kRows rows first_row + r of the block; walk the window rows they share, wy = -ry .. kRows + ry - 1 (tile row first_row + ry + wy), read each value once, tile[first_row + ry + wy][tx + rx + i], and add it into sum[r][q] of every row r it is a neighbour of, with j = wy - r and the weight of (i, j, rz - q). Keep: step 05's sums, one queue per row. Avoid: reading the window again for each row, which gives back what sharing the rows saves
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
    // END SOLUTION

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
}

// For the part tests (parts.hpp): plane z fetched and each staged value copied out where its pass
// read it (fetch_plane alone), and plane z staged by a plain loop and published (publish_plane alone).
template <class Stencil, int kRows, bool kPublish>
__global__ void prefetch_probe_kernel(const float* __restrict__ in, float* __restrict__ tiles, Grid g, int z) {
  using Load = PlaneLoad<Stencil, kRows>;
  __shared__ float tile[Load::kHeight][Load::kWidth];
  const int x0 = blockIdx.x * kBlockX - Stencil::rx;
  const int y0 = blockIdx.y * kBlockY * kRows - Stencil::ry;
  const int ind = threadIdx.x + threadIdx.y * kBlockX;
  const int ix = ind % Load::kWidth, iy0 = ind / Load::kWidth;
  const bool loads = iy0 < Load::kRowsPerPass;
  float* mine = tiles + (static_cast<long long>(blockIdx.y) * gridDim.x + blockIdx.x) * Load::kHeight * Load::kWidth;
  float staged[Load::kPasses];
  if constexpr (!kPublish) {
    fetch_plane<Stencil, kRows>(staged, in, g, x0, y0, ix, iy0, loads, z);
    for (int pass = 0; pass < Load::kPasses; ++pass) {
      const int iy = iy0 + pass * Load::kRowsPerPass;
      if (loads && iy < Load::kHeight) mine[iy * Load::kWidth + ix] = staged[pass];
    }
  } else {
    for (int pass = 0; pass < Load::kPasses; ++pass) {
      const int iy = iy0 + pass * Load::kRowsPerPass;
      staged[pass] = g.in_array(x0 + ix, y0 + iy, z) ? in[g.at(x0 + ix, y0 + iy, z)] : 0.0f;
    }
    publish_plane<Stencil, kRows>(tile, staged, ix, iy0, loads);
    __syncthreads();
    for (int ly = threadIdx.y; ly < Load::kHeight; ly += kBlockY)
      for (int lx = threadIdx.x; lx < Load::kWidth; lx += kBlockX) mine[ly * Load::kWidth + lx] = tile[ly][lx];
  }
}

template <class Stencil, bool kPublish>
void launch_prefetch_probe(const float* in, float* tiles, const Grid& grid, int z) {
  constexpr int kRows = 2;  // the taught variant's
  course::launch(prefetch_probe_kernel<Stencil, kRows, kPublish>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY * kRows)),
                  dim3(kBlockX, kBlockY)},
                 in, tiles, grid, z);
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

namespace parts {

template <class Stencil>
Tile tile_06() {
  return {kBlockX, kBlockY * 2, Stencil::rx, Stencil::ry, kBlockX + 2 * Stencil::rx, kBlockY * 2 + 2 * Stencil::ry};
}

template <class Stencil>
void fetch_06(const float* in, float* tiles, const Grid& grid, int z) {
  launch_prefetch_probe<Stencil, false>(in, tiles, grid, z);
}

template <class Stencil>
void publish_06(const float* in, float* tiles, const Grid& grid, int z) {
  launch_prefetch_probe<Stencil, true>(in, tiles, grid, z);
}

#define CH02_PARTS_06(Op, ...)                                           \
  template Tile tile_06<Op>();                                           \
  template void fetch_06<Op>(const float*, float*, const Grid&, int);    \
  template void publish_06<Op>(const float*, float*, const Grid&, int);
CH02_OPERATORS(CH02_PARTS_06)
#undef CH02_PARTS_06

}  // namespace parts

CH02_INSTANTIATE(stencil_prefetch)
CH02_INSTANTIATE(stencil_prefetch_4_rows)

}  // namespace ch02
