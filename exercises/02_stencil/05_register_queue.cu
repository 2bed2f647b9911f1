// Generated from solutions/02_stencil/05_register_queue.cu by exercises/generate.py (fingerprint 30c3f0f240aa): edit the TODOs.
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
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 2 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
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
