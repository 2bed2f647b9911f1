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
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     10_async_copy  star7 512^3        0.4588 ms, 2340 GB/s (0.781 of copy), 4096 GFLOP/s (0.069 of FMA)
//     10_async_copy  box27 512^3        0.4257 ms, 2522 GB/s (0.841 of copy), 17026 GFLOP/s (0.288 of FMA)
//     10_async_copy  compound_r1 512^3  0.4259 ms, 2521 GB/s (0.841 of copy), 17018 GFLOP/s (0.287 of FMA)
//     10_async_copy  compound_r2 512^3  0.7273 ms, 1476 GB/s (0.492 of copy), 46134 GFLOP/s (0.779 of FMA)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     10_async_copy  star7 512^3        0.3352 ms, 3203 GB/s (0.762 of copy), 5606 GFLOP/s (0.096 of FMA)
//     10_async_copy  box27 512^3        0.3182 ms, 3375 GB/s (0.802 of copy), 22780 GFLOP/s (0.389 of FMA)
//     10_async_copy  compound_r1 512^3  0.3180 ms, 3377 GB/s (0.803 of copy), 22792 GFLOP/s (0.389 of FMA)
//     10_async_copy  compound_r2 512^3  0.7269 ms, 1477 GB/s (0.351 of copy), 46159 GFLOP/s (0.788 of FMA)
// END MEASURED
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
  // BEGIN SOLUTION: a ring of 3 tiles filled by 16-byte copy_async; wait, barrier, start plane p+2, compute plane p
  constexpr int kRows = kRowsPerThread<Stencil>;
  constexpr int kLeft = (Stencil::rx + kVector - 1) / kVector * kVector;  // the x-halo in whole copies
  constexpr int kWidth = kLeft + kBlockX + kLeft;
  constexpr int kCopiesPerRow = kWidth / kVector;
  constexpr int kHeight = kBlockY * kRows + 2 * Stencil::ry;
  constexpr int kCopies = kHeight * kCopiesPerRow;
  constexpr int kPasses = (kCopies + kThreads - 1) / kThreads;
  constexpr int kQueue = 2 * Stencil::rz + 1;
  alignas(16) __shared__ float tiles[kStages][kHeight][kWidth];

  const int x_left = blockIdx.x * kBlockX - kLeft;
  const int y0 = blockIdx.y * kBlockY * kRows - Stencil::ry;
  const int z_begin = blockIdx.z * kChunk;
  const int z_end = min(g.dz, z_begin + kChunk);
  const int first_row = kRows * threadIdx.y;
  const int ind = threadIdx.x + threadIdx.y * kBlockX;

  // 1. This thread's copies, the same in every plane: where each comes from (relative to the
  //    tile's corner in the plane), and whether it lies in the array (in z every plane does).
  //    A copy is wholly inside a row or wholly outside: rows are multiples of 16 bytes.
  int offset[kPasses];
  bool valid[kPasses];
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int copy = ind + pass * kThreads;
    const int row = copy / kCopiesPerRow, x = x_left + kVector * (copy % kCopiesPerRow), y = y0 + row;
    valid[pass] = copy < kCopies && y >= -g.hy && y < g.dy + g.hy && x >= -g.lead && x + kVector <= g.pitch - g.lead;
    offset[pass] = valid[pass] ? row * g.pitch + (x - x_left) : 0;  // 0: a harmless address, never read
  }
  const float* plane_source = in + g.at(x_left, y0, z_begin - Stencil::rz);
  auto start_copies = [&](int slot) {
    float* tile = &tiles[slot][0][0];
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int copy = ind + pass * kThreads;
      if (copy < kCopies)
        course::copy_async(reinterpret_cast<float4*>(tile + kVector * copy),
                           reinterpret_cast<const float4*>(plane_source + offset[pass]), valid[pass]);
    }
    plane_source += g.plane;
  };

  const int x = x_left + kLeft + threadIdx.x;
  const int y_first = y0 + Stencil::ry + first_row;
  const int rows_inside = x < g.dx ? min(kRows, g.dy - y_first) : 0;
  float* target = out + g.at(x, y_first, z_begin);
  float sum[kRows][kQueue] = {};

  // 2. Prime the ring. Every step commits a group, empty or not, so that "plane s has landed" is
  //    always "at most kStages-2 groups pending".
  const int steps = z_end - z_begin + 2 * Stencil::rz;  // planes z_begin-rz .. z_end+rz-1
#pragma unroll
  for (int s = 0; s + 1 < kStages; ++s) {
    if (s < steps) start_copies(s);
    course::commit_copies();
  }
  // Step s uses plane z_begin-rz+s from tile s % kStages, a compile-time constant `slot`.
  auto plane_step = [&](int s, auto slot_constant) {
    constexpr int slot = decltype(slot_constant)::value;
    // 3. Plane s has landed for every thread, and plane s-1's tile is free for plane s+2.
    course::wait_copies<kStages - 2>();
    __syncthreads();
    if (s + kStages - 1 < steps) start_copies((slot + kStages - 1) % kStages);
    course::commit_copies();

    // 4. Each window row is read once and feeds every output row and plane that weighs it.
    const float (*tile)[kWidth] = tiles[slot];
#pragma unroll
    for (int wy = -Stencil::ry; wy < kRows + Stencil::ry; ++wy) {
#pragma unroll
      for (int i = -Stencil::rx; i <= Stencil::rx; ++i) {
        const float value = tile[first_row + Stencil::ry + wy][kLeft + threadIdx.x + i];
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

    // 5. Write the completed outputs, shift the queues.
    if (s >= 2 * Stencil::rz) {
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        if (r < rows_inside) target[r * g.pitch] = sum[r][0];
      }
      target += g.plane;
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
#pragma unroll
      for (int q = 0; q + 1 < kQueue; ++q) sum[r][q] = sum[r][q + 1];
      sum[r][kQueue - 1] = 0.0f;
    }
  };
  static_assert(kStages == 3, "the plane loop below is unrolled by kStages");
  for (int s = 0; s < steps; s += kStages) {
    plane_step(s, std::integral_constant<int, 0>{});
    if (s + 1 < steps) plane_step(s + 1, std::integral_constant<int, 1>{});
    if (s + 2 < steps) plane_step(s + 2, std::integral_constant<int, 2>{});
  }
  // END SOLUTION
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
