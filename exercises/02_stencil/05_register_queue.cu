// Generated from solutions/02_stencil/05_register_queue.cu by exercises/generate.py (fingerprint 2960a5e6c063): edit the TODOs.
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
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 2 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
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
  // TODO: part 1 of 2, add the window: the idea is that each value of plane p is read from shared memory once and then feeds every running sum that weighs it. Walk this thread's window of the tile (the (2rx+1) x (2ry+1) values around its point, halo offsets included) and add each value, weighted, into the sums whose output it is a neighbour of; skip the zero weights and, with column_used, the window columns no plane uses. Keep: sum[q] is the output at z = p - rz + q, so plane p is its neighbour k = p - z along z; work k out from q. Avoid: the mirrored k (its sign flipped), which only the compounds' odd derivatives tell apart
  (void)sum; (void)tile;
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
    // TODO: part 2 of 2, write and shift: sum[0] now has all its 2rz+1 planes: write it as out(x, y, p - rz) when that is an interior plane (z >= 0) and the point is inside; shift the queue down one (sum[q] = sum[q + 1]) and start the newest at 0; then a barrier, because the next plane is loaded over this tile. Keep: after the shift, sum[q] is again the output at z = (p + 1) - rz + q. Avoid: writing before z >= 0 (the sums of planes above the grid) and leaving out the barrier
    (void)inside;
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
