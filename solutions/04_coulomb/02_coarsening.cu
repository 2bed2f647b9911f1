// Step 02 — thread coarsening: each thread computes 8 points of a row.
//
// The 8 points of a row share their y: for each atom, dy^2 + dz^2 is worked out once and used 8
// times, and the atom is read once for 8 evaluations instead of once per evaluation. A thread
// takes points 8t .. 8t+7 of its row (consecutive), so a 16 x 16 block covers 128 x 16 points;
// x of point p is x0 + p h, with p h worked out once per thread.
// Predicted: per evaluation, the atom's loads and dy fall from 1 each to 1/8 and the squared
// distance from 2 operations to 1; only the subtraction for dx, one FMA for the distance, the
// reciprocal square root and the FMA that adds the term remain: near the rsqrt ceiling. The
// writes are another matter (step 03): a warp's 32 threads write 8 floats each, 32 bytes apart.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     02_coarsening  512x512, 10000 atoms     1.0542 ms, 1 GB/s (0.000 of copy), 12434 GFLOP/s (0.211 of FMA), 2487 Grsqrt/s (0.606 of rsqrt)
//     02_coarsening  2048x2048, 100000 atoms  191.8535 ms, 0 GB/s (0.000 of copy), 10931 GFLOP/s (0.185 of FMA), 2186 Grsqrt/s (0.533 of rsqrt)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     02_coarsening  512x512, 10000 atoms     1.0498 ms, 1 GB/s (0.000 of copy), 12485 GFLOP/s (0.213 of FMA), 2497 Grsqrt/s (0.607 of rsqrt)
//     02_coarsening  2048x2048, 100000 atoms  192.8015 ms, 0 GB/s (0.000 of copy), 10877 GFLOP/s (0.185 of FMA), 2175 Grsqrt/s (0.529 of rsqrt)
// END MEASURED
#include "steps.hpp"

namespace ch04 {
namespace {

constexpr int kBlock = 16;
constexpr int kPoints = 8;  // per thread, consecutive along x

__constant__ SliceAtom chunk[kConstantAtoms];

__global__ void coarsening_kernel(int count, float* __restrict__ out, Slice s, bool initialize) {
  // BEGIN SOLUTION: part 1 of 3, the thread's points: thread (threadIdx.x, threadIdx.y) of block (blockIdx.x, blockIdx.y) computes kPoints consecutive points of row j, from column i0. Invariant: the block's 16 threads of a row cover 16 x kPoints consecutive columns between them, every column of the slice once. Mistake to avoid: i0 = blockIdx.x * kBlock + threadIdx.x (one point a thread's spacing), which makes neighbouring threads compute the same points and leaves most of the row unwritten.
  const int i0 = (blockIdx.x * kBlock + threadIdx.x) * kPoints;
  // STUB: const int i0 = 0;
  // END SOLUTION
  const int j = blockIdx.y * kBlock + threadIdx.y;
  if (i0 >= s.nx || j >= s.ny) return;
  float* row = out + static_cast<long long>(j) * s.nx;
  // BEGIN SOLUTION: part 2 of 3, the sums: kPoints running sums in registers, for points i0 .. i0 + 7, each starting from 0 (the first chunk, or a point past nx) or from row[i0 + p]; then per atom of the chunk, dy^2 + dz^2 and x0 - x once, and for each point dx = that + p h and the term. Invariant: the atom's loads and its dy^2 + dz^2 shared by the thread's 8 points, the loop over points unrolled (#pragma unroll) so that the sums stay in registers. Mistake to avoid: reading row[i0 + p] for a point past nx (the tests' widths are not multiples of 128).
  const float x0 = i0 * s.spacing, y = j * s.spacing;
  float offset[kPoints], potential[kPoints];
#pragma unroll
  for (int p = 0; p < kPoints; ++p) {
    offset[p] = p * s.spacing;
    potential[p] = initialize || i0 + p >= s.nx ? 0.0f : row[i0 + p];
  }
  for (int k = 0; k < count; ++k) {
    const float dy = y - chunk[k].y;
    const float dyz2 = dy * dy + chunk[k].dz2;
    const float dx0 = x0 - chunk[k].x;
    const float q = chunk[k].q;
#pragma unroll
    for (int p = 0; p < kPoints; ++p) {
      const float dx = dx0 + offset[p];
      potential[p] += q * rsqrtf(dx * dx + dyz2);
    }
  }
  // STUB: (void)row; (void)initialize;
  // END SOLUTION
  // BEGIN SOLUTION: part 3 of 3, the stores: row[i0 + p] = the sum, for each of the thread's points inside the slice. Invariant: each point written once per launch. Mistake to avoid: writing points past nx (a write past the row changes the next row, or a sentinel past the array).
#pragma unroll
  for (int p = 0; p < kPoints; ++p) {
    if (i0 + p < s.nx) row[i0 + p] = potential[p];
  }
  // END SOLUTION
}

}  // namespace

void potential_coarsening(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  for_each_constant_chunk(count, [&](int first, int n, bool initialize) {
    if (n > 0) GPU_CHECK(gpuMemcpyToSymbol(chunk, atoms + first, n * sizeof(SliceAtom), 0, gpuMemcpyDeviceToDevice));
    course::launch(coarsening_kernel,
                   {dim3(course::blocks_for(slice.nx, kBlock * kPoints), course::blocks_for(slice.ny, kBlock)),
                    dim3(kBlock, kBlock)},
                   n, out, slice, initialize);
  });
}

}  // namespace ch04
