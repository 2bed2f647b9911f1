// Step 10 — asynchronous copies: planes land in shared memory without passing through registers.
//
// Step 09 stages its planes in flight in registers: several loads per thread per plane, each
// checked and addressed on its own, then as many stores into the tile; beside its FMAs, those
// are most of its instructions (the lesson's step 10). Ampere and Hopper copy from global to
// shared memory directly (cp.async, here through course::copy_async): a thread starts the copies
// of a plane and goes on computing.
//   - 16-byte copies (parts 1-2): a tile row starts 16 bytes left of the block's first column
//     (the x-halo rounded up to a whole copy; rows are 128-byte aligned); which copies fall
//     outside the array is worked out once per block, not per plane;
//   - a ring of 3 tiles (parts 3-5): while plane p is used, planes p+1 and p+2 are on their
//     way; one barrier per plane (after it plane p has landed and every thread is done with
//     plane p-1, whose tile the next copies reuse); the plane loop is unrolled by 3 so each
//     tile's address is a constant;
//   - 64x4 threads with 8 rows each (radius 2: 4 rows, whose 5-deep queues would not fit 8):
//     the x-halo costs 2 sectors per 8 instead of per 4;
//   - a register budget of 6 blocks per multiprocessor instead of step 09's 5: at most 40
//     registers a thread instead of 48.
// On AMD GPUs copy_async is a plain load and store: the step stays correct there but gains
// nothing from the ring. The CPU backend keeps the protocol (a copy lands when a wait covers it),
// so a wait too few fails there as on a GPU. The variants tried before this one are in the notes.
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

#include "parts.hpp"
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kBlockX = 64;
constexpr int kBlockY = 4;
constexpr int kThreads = kBlockX * kBlockY;
constexpr int kChunk = 32;
constexpr int kStages = 3;      // tiles in the ring: plane p in use, p+1 and p+2 on their way
constexpr int kMinBlocks = 6;   // per multiprocessor: 65536 / (6 * 256) = 42.7 registers, 40 at a granularity of 8
constexpr int kVector = 4;      // floats per 16-byte copy

// Rows of outputs per thread: 8 for radius 1; radius 2 keeps 5 partial sums per row, and 8 rows
// of those spill at this register budget. (At 40 registers the star's kernel spills too, 20 bytes
// a thread, nvcc 13.0's ptxas -v; the box's and the compounds' do not.)
template <class Stencil>
constexpr int kRowsPerThread = Stencil::rz == 1 ? 8 : 4;

// Copy number `copy` of a tile whose rows are kCopiesPerRow copies of kVector floats and whose
// corner is (x_left, y0): where it comes from, in floats from that corner within a plane, and
// whether it lies in the array. Every plane's copies are the same, a plane further. (The grid is taken
// by value, as the kernel holds it: a reference here changes the order of the kernel's instructions.)
template <int kCopiesPerRow, int kCopies>
__host__ __device__ __forceinline__ parts::Copy plan_copy(int copy, int x_left, int y0, Grid g) {
  // BEGIN SOLUTION: part 1 of 5, the copy plan: the idea is to decide once per block where each of this thread's 16-byte copies comes from and whether it may be made: every plane's copies are the same, a plane further. Copy c lands at float kVector * c of the tile, whose rows are kCopiesPerRow copies, so its tile row and column follow from c alone; from them come the point it starts at and its offset from the tile's corner within the plane. It is made when it exists (the last pass has spare threads, c >= kCopies), its row is one of the array's, and its four floats lie in the row's storage, which runs from -lead to pitch - lead (Grid), not only in the halo. Keep: a copy lies wholly inside a row's storage or wholly outside (rows are multiples of 16 bytes, x_left a multiple of 4), so no copy is partial; a copy not made has offset 0, an address that is never read. Avoid: bounding x by the halo (-hx .. dx + hx): the copy that holds the halo's float starts further left, in the padding, and must be made
  const int row = copy / kCopiesPerRow, x = x_left + kVector * (copy % kCopiesPerRow), y = y0 + row;
  const bool valid = copy < kCopies && y >= -g.hy && y < g.dy + g.hy && x >= -g.lead && x + kVector <= g.pitch - g.lead;
  return {valid ? row * g.pitch + (x - x_left) : 0, valid};  // 0: a harmless address, never read
  // STUB: (void)copy; (void)x_left; (void)y0; (void)g;
  // STUB: return {0, false};
  // END SOLUTION
}

template <class Stencil>
__global__ void COURSE_LAUNCH_BOUNDS(kThreads, kMinBlocks)
    async_copy_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
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
    const parts::Copy plan = plan_copy<kCopiesPerRow, kCopies>(ind + pass * kThreads, x_left, y0, g);
    valid[pass] = plan.valid;
    offset[pass] = plan.offset;
  }
  const float* plane_source = in + g.at(x_left, y0, z_begin - Stencil::rz);
  auto start_copies = [&](int slot) {
    float* tile = &tiles[slot][0][0];
    // BEGIN SOLUTION: part 2 of 5, start a plane's copies: for each pass whose copy exists (ind + pass * kThreads < kCopies), course::copy_async 16 bytes, as float4, from plane_source + offset[pass] to the tile's floats kVector * copy onwards, with valid[pass] (an invalid copy writes zeros and reads nothing); then plane_source moves on a plane. Keep: copy c lands at float 4c of the tile, so a tile row is kWidth floats, as the window reads it. Avoid: a plain load and store here, which would wait for the data in registers
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int copy = ind + pass * kThreads;
      if (copy < kCopies)
        course::copy_async(reinterpret_cast<float4*>(tile + kVector * copy),
                           reinterpret_cast<const float4*>(plane_source + offset[pass]), valid[pass]);
    }
    plane_source += g.plane;
    // STUB: (void)tile;
    // END SOLUTION
  };

  const int x = x_left + kLeft + threadIdx.x;
  const int y_first = y0 + Stencil::ry + first_row;
  const int rows_inside = x < g.dx ? min(kRows, g.dy - y_first) : 0;
  float* target = out + g.at(x, y_first, z_begin);
  float sum[kRows][kQueue] = {};

  // 2. Prime the ring. Every step commits a group, empty or not, so that "plane s has landed" is
  //    always "at most kStages-2 groups pending".
  const int steps = z_end - z_begin + 2 * Stencil::rz;  // planes z_begin-rz .. z_end+rz-1
  // BEGIN SOLUTION: part 3 of 5, prime the ring: start the copies of the chunk's first kStages - 1 planes, plane s into tile s, each followed by course::commit_copies(), which closes a group; commit even when the chunk has no such plane (s >= steps). Keep: one group per plane, so that "plane s has landed" is "at most kStages - 2 groups pending". Avoid: skipping the commit of an empty group, which shifts every later wait by one
#pragma unroll
  for (int s = 0; s + 1 < kStages; ++s) {
    if (s < steps) start_copies(s);
    course::commit_copies();
  }
  // END SOLUTION
  // Step s uses plane z_begin-rz+s from tile s % kStages, a compile-time constant `slot`.
  auto plane_step = [&](int s, auto slot_constant) {
    constexpr int slot = decltype(slot_constant)::value;
    // 3. Plane s has landed for every thread, and plane s-1's tile is free for plane s+2.
    // BEGIN SOLUTION: part 4 of 5, wait, barrier, start the next: course::wait_copies<kStages - 2>() (this thread's copies of plane s have landed; plane s + 1's may still travel), __syncthreads() (everyone's have, and everyone is done with plane s - 1), then start plane s + kStages - 1 into tile (slot + kStages - 1) % kStages, the one plane s - 1 used, if the chunk has it, and commit a group either way. Keep: one barrier per plane says both things. Avoid: wait_copies<0>, which waits for the planes in flight too, and starting the copies before the barrier, over a tile another thread may still read
    course::wait_copies<kStages - 2>();
    __syncthreads();
    if (s + kStages - 1 < steps) start_copies((slot + kStages - 1) % kStages);
    course::commit_copies();
    // END SOLUTION

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
  // BEGIN SOLUTION: part 5 of 5, the loop unrolled by three: s from 0 to steps in steps of kStages, calling plane_step(s + k, std::integral_constant<int, k>{}) for k = 0, 1, 2 while s + k < steps. Keep: step s uses tile s % 3, a compile-time constant, so every tile address is a constant. Avoid: a run-time slot, which costs the instructions this step removes
  for (int s = 0; s < steps; s += kStages) {
    plane_step(s, std::integral_constant<int, 0>{});
    if (s + 1 < steps) plane_step(s + 1, std::integral_constant<int, 1>{});
    if (s + 2 < steps) plane_step(s + 2, std::integral_constant<int, 2>{});
  }
  // STUB: (void)plane_step;
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

namespace parts {

template <class Stencil>
CopiedTile copied_tile_10() {
  constexpr int kLeft = (Stencil::rx + kVector - 1) / kVector * kVector;
  constexpr int kWidth = kLeft + kBlockX + kLeft;
  constexpr int kHeight = kBlockY * kRowsPerThread<Stencil> + 2 * Stencil::ry;
  constexpr int kCopies = kHeight * kWidth / kVector;
  return {{kBlockX, kBlockY * kRowsPerThread<Stencil>, kLeft, Stencil::ry, kWidth, kHeight}, kVector, kCopies};
}

template <class Stencil>
Copy copy_10(int copy, int bx, int by, const Grid& grid) {
  constexpr int kLeft = (Stencil::rx + kVector - 1) / kVector * kVector;
  constexpr int kWidth = kLeft + kBlockX + kLeft;
  constexpr int kHeight = kBlockY * kRowsPerThread<Stencil> + 2 * Stencil::ry;
  return plan_copy<kWidth / kVector, kHeight * kWidth / kVector>(copy, bx * kBlockX - kLeft,
                                                                  by * kBlockY * kRowsPerThread<Stencil> - Stencil::ry, grid);
}

#define CH02_PARTS_10(Op, ...)               \
  template CopiedTile copied_tile_10<Op>(); \
  template Copy copy_10<Op>(int, int, int, const Grid&);
CH02_OPERATORS(CH02_PARTS_10)
#undef CH02_PARTS_10

}  // namespace parts

CH02_INSTANTIATE(stencil_async_copy)

}  // namespace ch02
