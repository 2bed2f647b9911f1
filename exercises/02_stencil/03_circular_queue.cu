// Generated from solutions/02_stencil/03_circular_queue.cu by exercises/generate.py (fingerprint 103654256814): edit the TODOs.
// Step 03 — the circular queue of planes (the USTB patent's method).
//
// A 32x8 block now owns a 32x8 column of the grid and walks it from z = 0 to dz-1. It keeps the
// 2rz+1 haloed tiles its current outputs need in shared memory — for rz = 2 the patent's five
// planes s_mm, s_m, s_c, s_p, s_pp — and for each output plane it loads one new plane into the
// slot of the oldest one and rotates the slot pointers, so the newest becomes s_pp. Box
// stencils work as well as stars: every tile holds its corners.
//   1. prime the queue with planes -rz .. rz-1
//   2. per output plane z: barrier, load plane z+rz into the oldest slot, rotate, barrier
//   3. apply F over the box from the slots, write out(z)
// Predicted: each plane is loaded once per block instead of 2rz+1 times: L2 reads fall to the
// tile's halo overhead (~1.3x the cube for r = 1); still the classic halo loading of step 02.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 2 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "parts.hpp"
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

// Copies plane z of the block's haloed tile into `tile`: each thread its own point and the halo
// strips the block does not cover (0 outside the array).
template <class Stencil, int kWidth>
__device__ void load_tile(float (*tile)[kWidth], const float* __restrict__ in, const Grid& g, int x0, int y0, int z) {
  // TODO: part 1 of 3, the tile load: as in step 02, the 32x8 threads cover the (8+2ry) x (32+2rx) tile in a loop that steps by the block (ly += 8, lx += 32); every cell gets in(x0+lx, y0+ly, z), or 0 where g.in_array says the point is outside the array. Keep: (x0, y0) is the tile's corner, halo included. Avoid: stepping by the tile's size, which skips the halo rows and columns
}

// The queue: slot[rz + k] points at the tile that holds plane z + k of the current output plane z.
template <class Stencil, int kWidth>
using Slots = float (*[2 * Stencil::rz + 1])[kWidth];

// Before the first output plane: planes -rz .. rz-1 into slots 1 .. 2rz (slot 0 is loaded by
// the first advance).
template <class Stencil, int kWidth>
__device__ __forceinline__ void prime_queue(Slots<Stencil, kWidth>& slot, const float* __restrict__ in, const Grid& g,
                                            int x0, int y0) {
  constexpr int kPlanes = 2 * Stencil::rz + 1;
  // TODO: part 2 of 3, prime the queue: load planes -rz .. rz-1 into slots 1 .. 2rz with load_tile, so that the first advance, which loads plane rz into slot 0 and rotates, leaves slot[rz + k] holding plane k. Keep: slot q holds plane q - 1 - rz here. Avoid: starting at plane -rz + 1 or at slot 0, which shifts every plane of the queue by one
  (void)slot; (void)in; (void)g; (void)x0; (void)y0;
}

// One step along z, to output plane z: the oldest plane out, plane z + rz in.
template <class Stencil, int kWidth>
__device__ __forceinline__ void advance_queue(Slots<Stencil, kWidth>& slot, const float* __restrict__ in, const Grid& g,
                                              int x0, int y0, int z) {
  constexpr int kPlanes = 2 * Stencil::rz + 1;
  // TODO: part 3 of 3, advance the queue: barrier (every thread is done with the oldest plane, slot[0]); load plane z + rz into slot[0]; rotate the pointers, slot[p] = slot[p + 1] and the loaded tile becomes slot[2rz], the patent's s_pp; barrier (the new plane is in). Keep: planes stay in the tile they were loaded into; only the pointers move. Avoid: loading into slot[2rz] (the newest plane still in use) or leaving out either barrier
  (void)slot; (void)in; (void)g; (void)x0; (void)y0; (void)z;
}

template <class Stencil>
__global__ void circular_queue_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  constexpr int kWidth = kBlockX + 2 * Stencil::rx;
  constexpr int kHeight = kBlockY + 2 * Stencil::ry;
  constexpr int kPlanes = 2 * Stencil::rz + 1;
  __shared__ float planes[kPlanes][kHeight][kWidth];
  const int x0 = blockIdx.x * kBlockX - Stencil::rx;
  const int y0 = blockIdx.y * kBlockY - Stencil::ry;
  const int x = x0 + Stencil::rx + threadIdx.x, y = y0 + Stencil::ry + threadIdx.y;

  // slot[rz + k] holds plane z + k of the current output plane z; slot[0] is the oldest.
  Slots<Stencil, kWidth> slot;
  for (int p = 0; p < kPlanes; ++p) slot[p] = planes[p];

  // 1. Prime the queue: planes -rz .. rz-1 into slots 1 .. 2rz.
  prime_queue<Stencil, kWidth>(slot, in, g, x0, y0);

  for (int z = 0; z < g.dz; ++z) {
    // 2. The oldest plane is no longer needed: load plane z + rz over it, then rotate.
    advance_queue<Stencil, kWidth>(slot, in, g, x0, y0, z);

    // 3. Apply F over the whole box and write.
    if (x < g.dx && y < g.dy) {
      out[g.at(x, y, z)] = apply<Stencil, float>([&](int i, int j, int k) {
        return slot[Stencil::rz + k][threadIdx.y + Stencil::ry + j][threadIdx.x + Stencil::rx + i];
      });
    }
  }
}

// For the part tests (parts.hpp): the tile load alone, each block's tile of plane z copied out;
// and the queue alone, the plane each slot holds at each output plane.
template <class Stencil>
__global__ void tile_probe_kernel(const float* __restrict__ in, float* __restrict__ tiles, Grid g, int z) {
  constexpr int kWidth = kBlockX + 2 * Stencil::rx;
  constexpr int kHeight = kBlockY + 2 * Stencil::ry;
  __shared__ float tile[kHeight][kWidth];
  load_tile<Stencil, kWidth>(tile, in, g, blockIdx.x * kBlockX - Stencil::rx, blockIdx.y * kBlockY - Stencil::ry, z);
  __syncthreads();
  float* mine = tiles + (static_cast<long long>(blockIdx.y) * gridDim.x + blockIdx.x) * kHeight * kWidth;
  for (int ly = threadIdx.y; ly < kHeight; ly += kBlockY)
    for (int lx = threadIdx.x; lx < kWidth; lx += kBlockX) mine[ly * kWidth + lx] = tile[ly][lx];
}

template <class Stencil>
__global__ void queue_probe_kernel(const float* __restrict__ in, float* __restrict__ seen, Grid g) {
  constexpr int kWidth = kBlockX + 2 * Stencil::rx;
  constexpr int kHeight = kBlockY + 2 * Stencil::ry;
  constexpr int kPlanes = 2 * Stencil::rz + 1;
  __shared__ float planes[kPlanes][kHeight][kWidth];
  const int x0 = blockIdx.x * kBlockX - Stencil::rx;
  const int y0 = blockIdx.y * kBlockY - Stencil::ry;
  const int x = x0 + Stencil::rx + threadIdx.x, y = y0 + Stencil::ry + threadIdx.y;
  Slots<Stencil, kWidth> slot;
  for (int p = 0; p < kPlanes; ++p) slot[p] = planes[p];
  // What slot q holds at this thread's point, in seen[q] at (x, y, z); z = -1 after priming.
  auto record = [&](int z, int first_slot) {
    for (int q = first_slot; q < kPlanes; ++q)
      if (x < g.dx && y < g.dy) seen[q * g.size + g.at(x, y, z)] = slot[q][threadIdx.y + Stencil::ry][threadIdx.x + Stencil::rx];
  };
  prime_queue<Stencil, kWidth>(slot, in, g, x0, y0);
  __syncthreads();
  record(-1, 1);
  for (int z = 0; z < g.dz; ++z) {
    advance_queue<Stencil, kWidth>(slot, in, g, x0, y0, z);
    record(z, 0);
  }
}

}  // namespace

template <class Stencil>
void stencil_circular_queue(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  course::launch(circular_queue_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY)), dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

namespace parts {

template <class Stencil>
Tile tile_03() {
  return {kBlockX, kBlockY, Stencil::rx, Stencil::ry, kBlockX + 2 * Stencil::rx, kBlockY + 2 * Stencil::ry};
}

template <class Stencil>
void tile_load_03(const float* in, float* tiles, const Grid& grid, int z) {
  course::launch(tile_probe_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY)), dim3(kBlockX, kBlockY)},
                 in, tiles, grid, z);
}

template <class Stencil>
void queue_03(const float* in, float* seen, const Grid& grid) {
  course::launch(queue_probe_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY)), dim3(kBlockX, kBlockY)},
                 in, seen, grid);
}

#define CH02_PARTS_03(Op, ...)                                                        \
  template Tile tile_03<Op>();                                                        \
  template void tile_load_03<Op>(const float*, float*, const Grid&, int);             \
  template void queue_03<Op>(const float*, float*, const Grid&);
CH02_OPERATORS(CH02_PARTS_03)
#undef CH02_PARTS_03

}  // namespace parts

CH02_INSTANTIATE(stencil_circular_queue)

}  // namespace ch02
