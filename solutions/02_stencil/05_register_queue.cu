// Step 05 — the queue moves into registers: one plane in shared memory, partial sums in registers.
//
// In step 04 every output reads its whole box, (2rx+1)(2ry+1)(2rz+1) values, from shared memory:
// 27 reads per point for the box, 125 for the radius-2 compound — shared memory, not DRAM, is
// the limit. Here a plane is read from shared memory once, when it arrives, and each value is
// multiplied into every output plane that needs it: thread (tx, ty) keeps 2rz+1 running sums in
// registers, for the outputs at z = p-rz .. p+rz while plane p is in shared memory, and writes
// the oldest when its last plane has arrived. The circular queue now holds partial outputs.
//   1. load plane p (step 04's coalesced plane load), barrier
//   2. read the (2rx+1)(2ry+1) window once; add weight(i, j, k) * value into sum q, the output
//      at z = p - rz + q, for which plane p is the neighbour k = rz - q
//   3. write out(p - rz) if it is an interior plane; shift the queue; barrier
// Shared reads per point: 9 instead of 27 (r = 1), 25 instead of 125 (r = 2); the FMAs are the
// same; the sums are added in a different order (the tests' tolerance allows for it).
// Predicted: the 27-point box near the copy bandwidth; the radius-2 compound limited by its 125
// FMAs per point.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     05_register_queue  star7 512^3        0.7084 ms, 1516 GB/s (0.505 of copy), 2652 GFLOP/s (0.045 of FMA)
//     05_register_queue  box27 512^3        0.7527 ms, 1427 GB/s (0.476 of copy), 9630 GFLOP/s (0.163 of FMA)
//     05_register_queue  compound_r1 512^3  0.7527 ms, 1426 GB/s (0.476 of copy), 9629 GFLOP/s (0.163 of FMA)
//     05_register_queue  compound_r2 512^3  1.1995 ms, 895 GB/s (0.299 of copy), 27974 GFLOP/s (0.472 of FMA)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     05_register_queue  star7 512^3        0.6635 ms, 1618 GB/s (0.385 of copy), 2832 GFLOP/s (0.048 of FMA)
//     05_register_queue  box27 512^3        0.7154 ms, 1501 GB/s (0.357 of copy), 10131 GFLOP/s (0.173 of FMA)
//     05_register_queue  compound_r1 512^3  0.7155 ms, 1501 GB/s (0.357 of copy), 10130 GFLOP/s (0.173 of FMA)
//     05_register_queue  compound_r2 512^3  1.2004 ms, 894 GB/s (0.213 of copy), 27952 GFLOP/s (0.477 of FMA)
// END MEASURED
#include "parts.hpp"
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kThreads = kBlockX * kBlockY;

// Step 04's coalesced plane load.
template <class Stencil, int kWidth>
__device__ void load_plane(float (*tile)[kWidth], const float* __restrict__ in, const Grid& g, int x0, int y0, int z) {
  constexpr int kHeight = kBlockY + 2 * Stencil::ry;
  constexpr int kRowsPerPass = kThreads / kWidth;
  constexpr int kPasses = (kHeight + kRowsPerPass - 1) / kRowsPerPass;
  const int ind = threadIdx.x + threadIdx.y * kBlockX;
  const int ix = ind % kWidth;
  int iy = ind / kWidth;
  if (iy >= kRowsPerPass) return;
  for (int pass = 0; pass < kPasses; ++pass, iy += kRowsPerPass) {
    if (iy < kHeight) tile[iy][ix] = g.in_array(x0 + ix, y0 + iy, z) ? in[g.at(x0 + ix, y0 + iy, z)] : 0.0f;
  }
}

// Plane p's window, in `tile`, into this thread's running sums: sum[q] is the partial output at
// z = p - rz + q, and plane p is its neighbour k = p - z = rz - q.
template <class Stencil, int kWidth>
__device__ __forceinline__ void add_window(float (&sum)[2 * Stencil::rz + 1], const float (*tile)[kWidth]) {
  constexpr int kQueue = 2 * Stencil::rz + 1;
  // BEGIN SOLUTION: part 1 of 2, add the window: the idea is that each value of plane p is read from shared memory once and then feeds every running sum that weighs it. Walk this thread's window of the tile (the (2rx+1) x (2ry+1) values around its point, halo offsets included) and add each value, weighted, into the sums whose output it is a neighbour of; skip the zero weights and, with column_used, the window columns no plane uses. Keep: sum[q] is the output at z = p - rz + q, so plane p is its neighbour k = p - z along z; work k out from q. Avoid: the mirrored k (its sign flipped), which only the compounds' odd derivatives tell apart
#pragma unroll
  for (int j = -Stencil::ry; j <= Stencil::ry; ++j) {
#pragma unroll
    for (int i = -Stencil::rx; i <= Stencil::rx; ++i) {
      if (!column_used<Stencil>(i, j)) continue;
      const float value = tile[threadIdx.y + Stencil::ry + j][threadIdx.x + Stencil::rx + i];
#pragma unroll
      for (int q = 0; q < kQueue; ++q) {
        if (Stencil::weight(i, j, Stencil::rz - q) != 0.0)
          sum[q] = fmaf(static_cast<float>(Stencil::weight(i, j, Stencil::rz - q)), value, sum[q]);
      }
    }
  }
  // STUB: (void)sum; (void)tile;
  // END SOLUTION
}

template <class Stencil>
__global__ void register_queue_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  constexpr int kWidth = kBlockX + 2 * Stencil::rx;
  constexpr int kHeight = kBlockY + 2 * Stencil::ry;
  constexpr int kQueue = 2 * Stencil::rz + 1;
  __shared__ float tile[kHeight][kWidth];
  const int x0 = blockIdx.x * kBlockX - Stencil::rx;
  const int y0 = blockIdx.y * kBlockY - Stencil::ry;
  const int x = x0 + Stencil::rx + threadIdx.x, y = y0 + Stencil::ry + threadIdx.y;
  const bool inside = x < g.dx && y < g.dy;

  // sum[q] is the partial output at z = p - rz + q; plane p adds to it with weight k = rz - q.
  float sum[kQueue] = {};
  for (int p = -Stencil::rz; p < g.dz + Stencil::rz; ++p) {
    // 1. Load plane p.
    load_plane<Stencil, kWidth>(tile, in, g, x0, y0, p);
    __syncthreads();

    // 2. Read the window once; every value goes into every output plane that weighs it.
    add_window<Stencil, kWidth>(sum, tile);

    // 3. The oldest output has all its planes: write it, and shift the queue.
    // BEGIN SOLUTION: part 2 of 2, write and shift: sum[0] now has all its 2rz+1 planes: write it as out(x, y, p - rz) when that is an interior plane (z >= 0) and the point is inside; shift the queue down one (sum[q] = sum[q + 1]) and start the newest at 0; then a barrier, because the next plane is loaded over this tile. Keep: after the shift, sum[q] is again the output at z = (p + 1) - rz + q. Avoid: writing before z >= 0 (the sums of planes above the grid) and leaving out the barrier
    const int z = p - Stencil::rz;
    if (inside && z >= 0) out[g.at(x, y, z)] = sum[0];
#pragma unroll
    for (int q = 0; q + 1 < kQueue; ++q) sum[q] = sum[q + 1];
    sum[kQueue - 1] = 0.0f;
    __syncthreads();  // the tile is overwritten by the next plane
    // STUB: (void)inside;
    // END SOLUTION
  }
}

// For the part test (parts.hpp): one plane's window added into zeroed sums, every sum written.
template <class Stencil>
__global__ void window_probe_kernel(const float* __restrict__ in, float* __restrict__ sums, Grid g, int p) {
  constexpr int kWidth = kBlockX + 2 * Stencil::rx;
  constexpr int kHeight = kBlockY + 2 * Stencil::ry;
  constexpr int kQueue = 2 * Stencil::rz + 1;
  __shared__ float tile[kHeight][kWidth];
  const int x0 = blockIdx.x * kBlockX - Stencil::rx;
  const int y0 = blockIdx.y * kBlockY - Stencil::ry;
  const int x = x0 + Stencil::rx + threadIdx.x, y = y0 + Stencil::ry + threadIdx.y;
  load_plane<Stencil, kWidth>(tile, in, g, x0, y0, p);
  __syncthreads();
  float sum[kQueue] = {};
  add_window<Stencil, kWidth>(sum, tile);
  if (x < g.dx && y < g.dy)
    for (int q = 0; q < kQueue; ++q) sums[q * g.size + g.at(x, y, 0)] = sum[q];
}

}  // namespace

template <class Stencil>
void stencil_register_queue(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  course::launch(register_queue_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY)), dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

namespace parts {

template <class Stencil>
void window_05(const float* in, float* sums, const Grid& grid, int p) {
  course::launch(window_probe_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY)), dim3(kBlockX, kBlockY)},
                 in, sums, grid, p);
}

#define CH02_PARTS_05(Op, ...) template void window_05<Op>(const float*, float*, const Grid&, int);
CH02_OPERATORS(CH02_PARTS_05)
#undef CH02_PARTS_05

}  // namespace parts

CH02_INSTANTIATE(stencil_register_queue)

}  // namespace ch02
