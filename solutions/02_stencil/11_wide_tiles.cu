// Step 11 — wide tiles: a tile row is read in one long run of bytes, and z is cut finer.
//
// Step 10 is limited by neither its arithmetic nor its shared memory (the README's traffic
// table: for the box DRAM 74% busy, shared memory and the FMA pipe 41%), and in an earlier
// session, timed as a plain copy through the same tiles, it was hardly faster (not re-measured
// for the recorded results). What limits it is how the cube is read, and most of all the
// x-halo: a tile row of step 10 is 288 contiguous bytes (64 floats and the halos), and its
// 16-byte halo copies add 2 sectors to 8, a quarter more L2 reads (the README's L2 model and
// its step 11 section). Here blocks are one row of 256 threads, each with 8 rows of outputs, so a
// tile row is 1056 contiguous bytes and the x-halo is 2 sectors in 32 instead of in 8. With the
// rows so wide, z is cut into 16-plane chunks: twice the blocks (4096 at 512^3) for the same
// machine, at 2 planes re-read in 16.
// Radius 2 keeps step 10's shape: its time is arithmetic (256-wide tiles were slightly slower in
// the session that wrote this step; not re-measured). The variants tried before this one are in
// the README.
// Predicted: the same bytes read in longer runs keep DRAM busier, and the box moves toward what
// plain tiled copies reached in that session (close to the copy ceiling; README, Variants tried).
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit fdd1c30eb23f, 2026-11-24):
//     11_wide_tiles  star7 512^3        0.4549 ms, 2360 GB/s (0.787 of copy), 4131 GFLOP/s (0.070 of FMA)
//     11_wide_tiles  box27 512^3        0.4209 ms, 2551 GB/s (0.851 of copy), 17219 GFLOP/s (0.291 of FMA)
//     11_wide_tiles  compound_r1 512^3  0.4206 ms, 2553 GB/s (0.851 of copy), 17233 GFLOP/s (0.291 of FMA)
//     11_wide_tiles  compound_r2 512^3  0.7272 ms, 1477 GB/s (0.492 of copy), 46141 GFLOP/s (0.779 of FMA)
//   NVIDIA H200 (commit b7bbf62a2ddd, 2026-11-22):
//     11_wide_tiles  star7 512^3        0.3290 ms, 3263 GB/s (0.776 of copy), 5711 GFLOP/s (0.098 of FMA)
//     11_wide_tiles  box27 512^3        0.3022 ms, 3553 GB/s (0.845 of copy), 23981 GFLOP/s (0.410 of FMA)
//     11_wide_tiles  compound_r1 512^3  0.3023 ms, 3552 GB/s (0.845 of copy), 23975 GFLOP/s (0.409 of FMA)
//     11_wide_tiles  compound_r2 512^3  0.7268 ms, 1477 GB/s (0.351 of copy), 46166 GFLOP/s (0.788 of FMA)
// END MEASURED
#include <type_traits>

#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kStages = 3;      // tiles in the ring: plane p in use, p+1 and p+2 on their way
constexpr int kMinBlocks = 6;   // per multiprocessor: at most 42 registers a thread
constexpr int kVector = 4;      // floats per 16-byte copy

// Radius 1: one row of 256 threads, 8 rows of outputs each, 16-plane chunks. Radius 2 keeps
// step 10's 64x4 threads with 4 rows (5 partial sums per row: 8 rows would spill) and 32-plane
// chunks (each chunk re-reads 2rz planes).
template <class Stencil>
struct Shape {
  static constexpr bool kWide = Stencil::rz == 1;
  static constexpr int kBlockX = kWide ? 256 : 64;
  static constexpr int kBlockY = kWide ? 1 : 4;
  static constexpr int kRows = kWide ? 8 : 4;
  static constexpr int kChunk = kWide ? 16 : 32;
};

template <class Stencil>
__global__ void COURSE_LAUNCH_BOUNDS(Shape<Stencil>::kBlockX * Shape<Stencil>::kBlockY, kMinBlocks)
    wide_tile_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // BEGIN SOLUTION: step 10's ring of 3 tiles and 16-byte copies, over Shape<Stencil>'s block, rows and chunks
  constexpr int kBlockX = Shape<Stencil>::kBlockX, kBlockY = Shape<Stencil>::kBlockY;
  constexpr int kThreads = kBlockX * kBlockY;
  constexpr int kChunk = Shape<Stencil>::kChunk;
  constexpr int kRows = Shape<Stencil>::kRows;
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
void stencil_wide_tiles(const float* in, float* out, const Grid& grid) {
  using S = Shape<Stencil>;
  require_halo<Stencil>(grid);
  require_16_byte_rows(in, grid, "step 11 copies 16 bytes at a time");
  course::launch(wide_tile_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, S::kBlockX), course::blocks_for(grid.dy, S::kBlockY * S::kRows),
                       course::blocks_for(grid.dz, S::kChunk)),
                  dim3(S::kBlockX, S::kBlockY)},
                 in, out, grid);
}

CH02_INSTANTIATE(stencil_wide_tiles)

}  // namespace ch02
