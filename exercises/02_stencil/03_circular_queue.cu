// Generated from solutions/02_stencil/03_circular_queue.cu by exercises/generate.py (fingerprint 032a939e8596): edit the TODOs.
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
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

// Copies plane z of the block's haloed tile into `tile`: each thread its own point and the halo
// strips the block does not cover (0 outside the array).
template <class Stencil, int kWidth>
__device__ void load_tile(float (*tile)[kWidth], const float* __restrict__ in, const Grid& g, int x0, int y0, int z) {
  // TODO: covering loops over the (8+2ry) x (32+2rx) tile, as in step 02
}

template <class Stencil>
__global__ void circular_queue_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // TODO: prime 2rz planes; per z: barrier, load plane z+rz into slot[0], rotate the slot pointers, barrier, apply, write
}

}  // namespace

template <class Stencil>
void stencil_circular_queue(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  course::launch(circular_queue_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY)), dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

CH02_INSTANTIATE(stencil_circular_queue)

}  // namespace ch02
