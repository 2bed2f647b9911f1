// Generated from solutions/02_stencil/11_wide_tiles.cu by exercises/generate.py (fingerprint e9069bfdcdbd): edit the TODOs.
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
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 2 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
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
  // TODO: part 1 of 3, the shape: for radius 1 (kWide), blocks of one row of 256 threads (kBlockX 256, kBlockY 1), 8 rows of outputs a thread and 16-plane chunks; for radius 2, step 10's 64 x 4 threads, 4 rows and 32-plane chunks. Keep: a tile row is kLeft + kBlockX + kLeft floats, so the 16-byte x-halo is 2 sectors of kBlockX / 8 + 2. Avoid: 8 rows a thread for radius 2, whose 5-deep queues spill
  static constexpr int kBlockX = 64, kBlockY = 4, kRows = 4, kChunk = 32;
};

// Step 10's copy plan: copy number `copy` of a tile whose rows are kCopiesPerRow copies and whose
// corner is (x_left, y0), where it comes from and whether it lies in the array (the grid by value,
// as the kernel holds it).
template <int kCopiesPerRow, int kCopies>
__host__ __device__ __forceinline__ parts::Copy plan_copy(int copy, int x_left, int y0, Grid g) {
  // TODO: part 2 of 3, the copy plan for wide rows: step 10's plan, for a tile row of 66 copies (264 floats). If your step 10 plan works from the copy number alone, it is right here unchanged; this part checks that it does. The idea to check: a pass of 256 threads now ends inside a row, so a thread's copies change tile row and column from pass to pass. Keep: step 10's rule, a copy made when it exists, its row is in the array and its 16 bytes lie in the row's storage. Avoid: deriving a copy's row and column from the thread's index, as if every pass started a row
  (void)copy; (void)x_left; (void)y0; (void)g;
  return {0, false};
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
  // TODO: part 3 of 3, the launch: from the Shape, blocks of S::kBlockX x S::kBlockY threads, each covering S::kBlockX columns, S::kBlockY * S::kRows rows and S::kChunk planes of the interior (course::blocks_for rounds up). Keep: the same Shape the kernel reads. Avoid: step 10's constants, which cover the grid with the wrong blocks
  (void)in; (void)out;
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
