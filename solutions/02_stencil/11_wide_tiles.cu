// Step 11 — wide tiles: a tile row is read in one long run of bytes, and z is cut finer.
//
// Step 10 is limited by neither its arithmetic nor its shared memory (the lesson's step 11).
// Our hypothesis: what limits it is how the cube is read, and most of all the x-halo. A tile
// row of step 10 is 288 contiguous bytes (64 floats and the halos), and its 16-byte halo copies
// add 2 sectors to 8, a quarter more L2 reads. Here (part 1) blocks are one row of 256 threads, each with 8 rows
// of outputs, so a tile row is 1056 contiguous bytes and the x-halo is 2 sectors in 32 instead
// of in 8. With the rows so wide, z is cut into 16-plane chunks: twice the blocks (4096 at
// 512^3) for the same machine, at 2 planes re-read in 16. Step 10's ring is given; the copy
// plan (part 2) and the launch (part 3) follow the new shape.
// Radius 2 keeps step 10's shape: its time is arithmetic. The variants tried before this one are
// in the notes.
// Predicted: the same bytes read in longer runs keep DRAM busier, and the box moves toward what
// plain tiled copies of the same tiles do (close to the copy ceiling in the session that wrote
// this step; those copies are not in the recording: the notes, "Variants tried").
// BEGIN FINDINGS
// Measured (the box on the H200, NOTES.md "Step 11"): not fewer bytes. L2 reads rose from 1.41 to
// 1.47 cubes and DRAM traffic from 2.11 to 2.16 (the taller tiles and 16-plane chunks re-read more
// y- and z-halo than the x-halo saves); DRAM delivered them faster, 80% busy instead of 74%.
// END FINDINGS
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

#include "parts.hpp"
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kStages = 3;      // tiles in the ring: plane p in use, p+1 and p+2 on their way
constexpr int kMinBlocks = 6;   // per multiprocessor: 65536 / (6 * 256) = 42.7 registers, 40 at a granularity of 8
constexpr int kVector = 4;      // floats per 16-byte copy

// Radius 1: one row of 256 threads, 8 rows of outputs each, 16-plane chunks. Radius 2 keeps
// step 10's 64x4 threads with 4 rows (5 partial sums per row: 8 rows would spill) and 32-plane
// chunks (each chunk re-reads 2rz planes).
template <class Stencil>
struct Shape {
  // BEGIN SOLUTION: part 1 of 3, the shape: for radius 1 (kWide), blocks of one row of 256 threads (kBlockX 256, kBlockY 1), 8 rows of outputs a thread and 16-plane chunks; for radius 2, step 10's 64 x 4 threads, 4 rows and 32-plane chunks. Keep: a tile row is kLeft + kBlockX + kLeft floats, so the 16-byte x-halo is 2 sectors of kBlockX / 8 + 2. Avoid: 8 rows a thread for radius 2, whose 5-deep queues spill
  static constexpr bool kWide = Stencil::rz == 1;
  static constexpr int kBlockX = kWide ? 256 : 64;
  static constexpr int kBlockY = kWide ? 1 : 4;
  static constexpr int kRows = kWide ? 8 : 4;
  static constexpr int kChunk = kWide ? 16 : 32;
  // STUB: static constexpr int kBlockX = 64, kBlockY = 4, kRows = 4, kChunk = 32;
  // END SOLUTION
};

// Step 10's copy plan: copy number `copy` of a tile whose rows are kCopiesPerRow copies and whose
// corner is (x_left, y0), where it comes from and whether it lies in the array (the grid by value,
// as the kernel holds it).
template <int kCopiesPerRow, int kCopies>
__host__ __device__ __forceinline__ parts::Copy plan_copy(int copy, int x_left, int y0, Grid g) {
  // BEGIN SOLUTION: part 2 of 3, the copy plan for wide rows: step 10's plan, for a tile row of 66 copies (264 floats). If your step 10 plan works from the copy number alone, it is right here unchanged; this part checks that it does. The idea to check: a pass of 256 threads now ends inside a row, so a thread's copies change tile row and column from pass to pass. Keep: step 10's rule, a copy made when it exists, its row is in the array and its 16 bytes lie in the row's storage. Avoid: deriving a copy's row and column from the thread's index, as if every pass started a row
  const int row = copy / kCopiesPerRow, x = x_left + kVector * (copy % kCopiesPerRow), y = y0 + row;
  const bool valid = copy < kCopies && y >= -g.hy && y < g.dy + g.hy && x >= -g.lead && x + kVector <= g.pitch - g.lead;
  return {valid ? row * g.pitch + (x - x_left) : 0, valid};  // 0: a harmless address, never read
  // STUB: (void)copy; (void)x_left; (void)y0; (void)g;
  // STUB: return {0, false};
  // END SOLUTION
}

template <class Stencil>
__global__ void COURSE_LAUNCH_BOUNDS(Shape<Stencil>::kBlockX * Shape<Stencil>::kBlockY, kMinBlocks)
    wide_tile_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
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
    const parts::Copy plan = plan_copy<kCopiesPerRow, kCopies>(ind + pass * kThreads, x_left, y0, g);
    valid[pass] = plan.valid;
    offset[pass] = plan.offset;
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
}

}  // namespace

template <class Stencil>
void stencil_wide_tiles(const float* in, float* out, const Grid& grid) {
  using S = Shape<Stencil>;
  require_halo<Stencil>(grid);
  require_16_byte_rows(in, grid, "step 11 copies 16 bytes at a time");
  // BEGIN SOLUTION: part 3 of 3, the launch: from the Shape, blocks of S::kBlockX x S::kBlockY threads, each covering S::kBlockX columns, S::kBlockY * S::kRows rows and S::kChunk planes of the interior (course::blocks_for rounds up). Keep: the same Shape the kernel reads. Avoid: step 10's constants, which cover the grid with the wrong blocks
  course::launch(wide_tile_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, S::kBlockX), course::blocks_for(grid.dy, S::kBlockY * S::kRows),
                       course::blocks_for(grid.dz, S::kChunk)),
                  dim3(S::kBlockX, S::kBlockY)},
                 in, out, grid);
  // STUB: (void)in; (void)out;
  // END SOLUTION
}

namespace parts {

template <class Stencil>
CopiedTile copied_tile_11() {
  using S = Shape<Stencil>;
  constexpr int kLeft = (Stencil::rx + kVector - 1) / kVector * kVector;
  constexpr int kWidth = kLeft + S::kBlockX + kLeft;
  constexpr int kHeight = S::kBlockY * S::kRows + 2 * Stencil::ry;
  constexpr int kCopies = kHeight * kWidth / kVector;
  return {{S::kBlockX, S::kBlockY * S::kRows, kLeft, Stencil::ry, kWidth, kHeight}, kVector, kCopies};
}

template <class Stencil>
Copy copy_11(int copy, int bx, int by, const Grid& grid) {
  using S = Shape<Stencil>;
  constexpr int kLeft = (Stencil::rx + kVector - 1) / kVector * kVector;
  constexpr int kWidth = kLeft + S::kBlockX + kLeft;
  constexpr int kHeight = S::kBlockY * S::kRows + 2 * Stencil::ry;
  return plan_copy<kWidth / kVector, kHeight * kWidth / kVector>(copy, bx * S::kBlockX - kLeft,
                                                                  by * S::kBlockY * S::kRows - Stencil::ry, grid);
}

#define CH02_PARTS_11(Op, ...)               \
  template CopiedTile copied_tile_11<Op>(); \
  template Copy copy_11<Op>(int, int, int, const Grid&);
CH02_OPERATORS(CH02_PARTS_11)
#undef CH02_PARTS_11

}  // namespace parts

CH02_INSTANTIATE(stencil_wide_tiles)

}  // namespace ch02
