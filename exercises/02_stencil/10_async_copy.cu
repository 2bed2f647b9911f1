// Generated from solutions/02_stencil/10_async_copy.cu by exercises/generate.py: edit the TODOs, not the solution.
// Step 10 — asynchronous copies: planes land in shared memory without passing through registers.
//
// Step 09 stages its planes in flight in registers: 5 loads per thread per plane, each checked
// and addressed on its own, then 5 stores into the tile; its loop issues 62 instructions per
// output point, 27 of them the FMAs, and Nsight Compute shows the SM issuing in 72% of cycles.
// Ampere and Hopper copy from global to shared memory directly (cp.async, here through
// course::copy_async): a thread starts the copies of a plane and goes on computing.
//   - a ring of 3 tiles: while plane p is used, planes p+1 and p+2 are on their way; one barrier
//     per plane (after it plane p has landed and every thread is done with plane p-1, whose tile
//     the next copies reuse); the plane loop is unrolled by 3 so each tile's address is a constant;
//   - 16-byte copies: a tile row starts 16 bytes left of the block's first column (the x-halo
//     rounded up to a whole copy; rows are 128-byte aligned); which copies fall outside the array
//     is worked out once per block, not per plane;
//   - 64x4 threads with 8 rows each (radius 2: 4 rows, whose 5-deep queues would not fit 8):
//     the x-halo costs 2 sectors per 8 instead of per 4, and L2 reads drop from 1.69 to 1.41 cubes.
// On AMD GPUs and the CPU backend copy_async is a plain load and store: the step stays correct
// there but gains nothing from the ring.
// Predicted: a third fewer instructions per point and the box near the copy bandwidth.
// Measured (H200, 512^3, commit 33ec57b): the plane loop's SASS has 41 instructions per output
// point (27 FMAs; step 09: 62). box27 0.318 ms, 3378 GB/s (+5% over step 09, 0.80 of the copy
// ceiling); compound_r2 0.727 ms, 46.2 TFLOP/s (+8%, 0.78 of the FMA ceiling); star7 3208 GB/s,
// 3% slower than step 09 (ptxas spills 20 bytes of its 8-row queues at this register budget).
// Box profile: DRAM 74%, shared 41%, FMA 41%, occupancy 67%, L2 reads 1.41 cubes, HBM 2.11.
// Tried on the H200 (box27 512^3, one run of 20 repetitions each, before this version):
//   - 16-byte copies through cuda_pipeline's __pipeline_memcpy_async (cp.async.cg, past L1):
//     0.38-0.40 ms, L2 reads 2.8 cubes instead of 1.7, HBM 2.24-2.38; cp.async.ca: 0.32 ms;
//   - 32x8 threads x 4 rows: 0.335 ms with 3 tiles, 0.321 ms with 4; 64x4 x 8 rows with 4 tiles
//     (5 blocks per multiprocessor): 0.414 ms; 3 tiles indexed at run time (loop not unrolled): 0.320 ms;
//   - odd z-chunks walking down with chunks launched next to each other (so that two chunks read
//     their shared planes at the same moment): 0.353 ms, HBM 2.17 cubes instead of 2.11.
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "stencils.hpp"

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
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    async_copy_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // TODO: a ring of 3 tiles filled by 16-byte copy_async; wait, barrier, start plane p+2, compute plane p
}

}  // namespace

template <class Stencil>
void stencil_async_copy(const float* in, float* out, const Grid& grid) {
  require_halo<Stencil>(grid);
  if (reinterpret_cast<std::uintptr_t>(in) % 16 != 0)
    throw std::invalid_argument("step 10 copies 16 bytes at a time: the input must be 16-byte aligned");
  course::launch(async_copy_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, kBlockX),
                       course::blocks_for(grid.dy, kBlockY * kRowsPerThread<Stencil>),
                       course::blocks_for(grid.dz, kChunk)),
                  dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

CH02_INSTANTIATE_FOR_EVERY_STENCIL(stencil_async_copy)

}  // namespace ch02
