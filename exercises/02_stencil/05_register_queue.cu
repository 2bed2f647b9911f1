// Generated from solutions/02_stencil/05_register_queue.cu by exercises/generate.py (fingerprint 82777af4b469): edit the TODOs.
// Step 05 — the queue moves into registers: one plane in shared memory, partial sums in registers.
//
// In step 04 every output reads its whole box, (2rx+1)(2ry+1)(2rz+1) values, from shared memory:
// 27 reads per point for the box, 125 for the radius-2 compound — shared memory, not DRAM, is
// the limit. Here a plane is read from shared memory once, when it arrives, and each value is
// multiplied into every output plane that needs it: thread (tx, ty) keeps 2rz+1 running sums in
// registers, for the outputs at z = p-rz .. p+rz while plane p is in shared memory, and writes
// the oldest when its last plane has arrived. The circular queue now holds partial outputs.
//   1. load plane p (step 04's coalesced plane load), barrier
//   2. read the (2rx+1)(2ry+1) window once; add weight(i, j, k) * value into sum k
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

template <class Stencil>
__global__ void register_queue_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // TODO: for p = -rz .. dz+rz-1: load plane p, barrier, add its window into the 2rz+1 sums, write sum[0] as out(p-rz), shift, barrier
}

}  // namespace

template <class Stencil>
void stencil_register_queue(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  course::launch(register_queue_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY)), dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

CH02_INSTANTIATE(stencil_register_queue)

}  // namespace ch02
