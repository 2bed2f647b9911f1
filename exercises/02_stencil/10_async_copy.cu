// Generated from solutions/02_stencil/10_async_copy.cu by exercises/generate.py (fingerprint 473c5944a5e9): edit the TODOs.
// Step 10 — asynchronous copies: planes land in shared memory without passing through registers.
//
// Step 09 stages its planes in flight in registers: 5 loads per thread per plane, each checked
// and addressed on its own, then 5 stores into the tile; it executes 55 instructions per output
// point for the box, 27 of them the FMAs (the README's stall table). Ampere and Hopper copy from global to shared memory
// directly (cp.async, here through course::copy_async): a thread starts the copies of a plane
// and goes on computing.
//   - a ring of 3 tiles: while plane p is used, planes p+1 and p+2 are on their way; one barrier
//     per plane (after it plane p has landed and every thread is done with plane p-1, whose tile
//     the next copies reuse); the plane loop is unrolled by 3 so each tile's address is a constant;
//   - 16-byte copies: a tile row starts 16 bytes left of the block's first column (the x-halo
//     rounded up to a whole copy; rows are 128-byte aligned); which copies fall outside the array
//     is worked out once per block, not per plane;
//   - 64x4 threads with 8 rows each (radius 2: 4 rows, whose 5-deep queues would not fit 8):
//     the x-halo costs 2 sectors per 8 instead of per 4.
// On AMD GPUs copy_async is a plain load and store: the step stays correct there but gains
// nothing from the ring. The CPU backend keeps the protocol (a copy lands when a wait covers it),
// so a wait too few fails there as on a GPU. The variants tried before this one are in the README.
// Predicted: a third fewer instructions per point, fewer L2 reads, and the box near the copy
// bandwidth.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 2 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include <type_traits>

#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 64;
constexpr int kBlockY = 4;
constexpr int kThreads = kBlockX * kBlockY;
constexpr int kChunk = 32;
constexpr int kStages = 3;      // tiles in the ring: plane p in use, p+1 and p+2 on their way
constexpr int kMinBlocks = 6;   // per multiprocessor: at most 42 registers a thread
constexpr int kVector = 4;      // floats per 16-byte copy

// Rows of outputs per thread: 8 for radius 1; radius 2 keeps 5 partial sums per row, and 8 rows
// of those spill at this register budget.
template <class Stencil>
constexpr int kRowsPerThread = Stencil::rz == 1 ? 8 : 4;

template <class Stencil>
__global__ void COURSE_LAUNCH_BOUNDS(kThreads, kMinBlocks)
    async_copy_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // TODO: a ring of 3 tiles filled by 16-byte copy_async; wait, barrier, start plane p+2, compute plane p
}

}  // namespace

template <class Stencil>
void stencil_async_copy(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  require_16_byte_rows(in, grid, "step 10 copies 16 bytes at a time");
  course::launch(async_copy_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX),
                       course::blocks_for(grid.dy, kBlockY * kRowsPerThread<Stencil>),
                       course::blocks_for(grid.dz, kChunk)),
                  dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

CH02_INSTANTIATE(stencil_async_copy)

}  // namespace ch02
