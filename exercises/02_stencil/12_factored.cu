// Generated from solutions/02_stencil/12_factored.cu by exercises/generate.py (fingerprint 457c3d365281): edit the TODOs.
// Step 12 — the operator one axis at a time: each term of its separable form is filtered along
// x, then y, then z, so a window is no longer multiplied weight by weight.
//
// Step 11 applies the weight table as it is: 125 FMAs a point for the radius-2 compound, which
// puts it above the machine's ridge point and bounds it by the FMA rate (the lesson's roofline
// table). But the operator is a sum of seven products of 1D filters (stencils.hpp: the Laplacian
// d2x + d2y + d2z, the mixed d1x d1y + d1y d1z + d1x d1z, and d1x d1y d1z). Applied one axis at a
// time, a term costs the taps of its filters, not their product:
//   1. along x: each window row that a term needs is filtered once, x_filtered[w];
//   2. along y: each output row combines the x-filtered rows, P[r] = sum_j fy(j) x_filtered[r+j];
//   3. along z: P[r] goes into the 2rz+1 running sums of row r with the term's z taps, as in
//      step 05's register queue.
// Terms that share a filter share its work (the compiler merges identical expressions), and
// course::separable_fmas gives the form's nominal count: 42 FMAs a point for the radius-2
// compound instead of 125, 9 for the box mean (a 3 x 3 x 3 sum of sums) instead of 27, 24
// instead of 27 for the radius-1 compound, 11 instead of 7 for the star, whose centre tap now
// comes once per axis (the kernel executes within about 10% of these: the x filter also runs on
// the tile's halo rows, and taps of 1 cost nothing).
// Step 11's copies and ring; radius 1 keeps its tiles, radius 2 now uses the wide ones too, with
// 4 rows a thread and 32-plane chunks (4 planes re-read in 32), and the register budget is 5
// blocks per multiprocessor (48 registers; at step 11's 6, nvcc -Xptxas -v reports spills for
// every operator, the most for the radius-1 compound, and at 5 still a small one for it: 8
// bytes stored and 24 loaded a thread, nvcc 13.0).
// The sums are added in a different order from the weight table's (the tests' tolerance allows
// for it): this is a different formulation of the same operator, not a different operator.
// Predicted: the radius-2 compound leaves the FMA bound (31.25 flops per byte becomes 10.5, below
// the ridge point of 14) and runs near the box's time, about 2.4x step 11; the radius-1
// operators, already bound by bytes, within a few percent of step 11.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 2 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include <type_traits>

#include "course/type_list.hpp"
#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kStages = 3;      // tiles in the ring: plane p in use, p+1 and p+2 on their way
constexpr int kMinBlocks = 5;   // per multiprocessor: at most 48 registers a thread
constexpr int kVector = 4;      // floats per 16-byte copy

// One row of 256 threads; 8 rows of outputs a thread for radius 1, 4 for radius 2 (5 running
// sums a row); chunks of 16 planes a unit of radius, so the re-read halo stays 1 plane in 8.
template <class Stencil>
struct Shape {
  static constexpr int kBlockX = 256;
  static constexpr int kBlockY = 1;
  static constexpr int kRows = Stencil::rz == 1 ? 8 : 4;
  static constexpr int kChunk = 16 * Stencil::rz;
};

// Whether window row w (tile row first_row + w) of a thread's kRows output rows feeds any of
// them through the y filter fy: output row r uses it with tap j = w - ry - r.
template <class Stencil, int kRows>
__host__ __device__ constexpr bool window_row_needed(course::Filter1D fy, int w) {
  for (int r = 0; r < kRows; ++r) {
    const int j = w - Stencil::ry - r;
    if (j >= -Stencil::ry && j <= Stencil::ry && course::tap(fy, j) != 0.0) return true;
  }
  return false;
}

template <class Stencil>
__global__ void COURSE_LAUNCH_BOUNDS(Shape<Stencil>::kBlockX * Shape<Stencil>::kBlockY, kMinBlocks)
    factored_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
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
  constexpr int kWindowRows = kRows + 2 * Stencil::ry;
  alignas(16) __shared__ float tiles[kStages][kHeight][kWidth];

  const int x_left = blockIdx.x * kBlockX - kLeft;
  const int y0 = blockIdx.y * kBlockY * kRows - Stencil::ry;
  const int z_begin = blockIdx.z * kChunk;
  const int z_end = min(g.dz, z_begin + kChunk);
  const int first_row = kRows * threadIdx.y;
  const int ind = threadIdx.x + threadIdx.y * kBlockX;

  // 1. Step 11's copies: where each of this thread's copies comes from, once per block.
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

  // 2. Prime the ring, as in step 11.
  const int steps = z_end - z_begin + 2 * Stencil::rz;
#pragma unroll
  for (int s = 0; s + 1 < kStages; ++s) {
    if (s < steps) start_copies(s);
    course::commit_copies();
  }

  // 3. One term of the separable form on one plane: along x, along y, into the queue along z.
  // (`tile` is a const float (*)[kWidth]; spelled `auto` because nvcc 13's front end crashes on a
  // lambda parameter whose type names the kernel's local constant.)
  auto apply_term = [&](auto tile, auto term_constant) {
    constexpr Term term = Stencil::term(decltype(term_constant)::value);
    float x_filtered[kWindowRows];
    // TODO: part 1 of 2, along x: for each window row w (tile row first_row + w) that the term's y filter needs (window_row_needed), x_filtered[w] = sum over i of tap(term.x, i) * tile[first_row + w][kLeft + tx + i], skipping the zero taps; start each sum with the first nonzero tap's product rather than 0 + ..., as the compiler would not drop the add. Keep: a row is filtered once for all the output rows that use it. Avoid: filtering the rows no output row needs, which costs FMAs the form was meant to save
    (void)tile;
    // TODO: part 2 of 2, along y, then into the queue along z: for each output row r, along_y = sum over j of tap(term.y, j) * x_filtered[r + ry + j] (nonzero taps only, started with the first product); then for each q, sum[r][q] += term.coefficient * tap(term.z, rz - q) * along_y, the register queue of step 05 with the term's z taps. Keep: sum[r][q] is row r's output at z = p - rz + q, so this plane is its neighbour rz - q along z. Avoid: tap(term.z, q - rz), the mirror image, which the odd first-derivative filters tell apart
    (void)x_filtered;
  };

  auto plane_step = [&](int s, auto slot_constant) {
    constexpr int slot = decltype(slot_constant)::value;
    // 4. Plane s has landed for every thread, and plane s-1's tile is free for plane s+2.
    course::wait_copies<kStages - 2>();
    __syncthreads();
    if (s + kStages - 1 < steps) start_copies((slot + kStages - 1) % kStages);
    course::commit_copies();

    // Every term of the separable form, each with its index as a compile-time constant.
    const float (*tile)[kWidth] = tiles[slot];
    course::static_for<Stencil::kTerms>([&](auto term_constant) { apply_term(tile, term_constant); });

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
void stencil_factored(const float* in, float* out, const Grid& grid) {
  using S = Shape<Stencil>;
  require_halo<Stencil>(grid);
  require_16_byte_rows(in, grid, "step 12 copies 16 bytes at a time");
  course::launch(factored_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, S::kBlockX), course::blocks_for(grid.dy, S::kBlockY * S::kRows),
                       course::blocks_for(grid.dz, S::kChunk)),
                  dim3(S::kBlockX, S::kBlockY)},
                 in, out, grid);
}

CH02_INSTANTIATE(stencil_factored)

}  // namespace ch02
