// Generated from solutions/04_coulomb/02_coarsening.cu by exercises/generate.py (fingerprint e004467a7253): edit the TODOs.
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
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 4 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "steps.hpp"

namespace ch04 {
namespace {

constexpr int kBlock = 16;
constexpr int kPoints = 8;  // per thread, consecutive along x

__constant__ SliceAtom chunk[kConstantAtoms];

__global__ void coarsening_kernel(int count, float* __restrict__ out, Slice s, bool initialize) {
  // TODO: part 1 of 3, the thread's points: thread (threadIdx.x, threadIdx.y) of block (blockIdx.x, blockIdx.y) computes kPoints consecutive points of row j, from column i0. Invariant: the block's 16 threads of a row cover 16 x kPoints consecutive columns between them, every column of the slice once. Mistake to avoid: i0 = blockIdx.x * kBlock + threadIdx.x (one point a thread's spacing), which makes neighbouring threads compute the same points and leaves most of the row unwritten.
  const int i0 = 0;
  const int j = blockIdx.y * kBlock + threadIdx.y;
  if (i0 >= s.nx || j >= s.ny) return;
  float* row = out + static_cast<long long>(j) * s.nx;
  // TODO: part 2 of 3, the sums: kPoints running sums in registers, for points i0 .. i0 + 7, each starting from 0 (the first chunk, or a point past nx) or from row[i0 + p]; then per atom of the chunk, dy^2 + dz^2 and x0 - x once, and for each point dx = that + p h and the term. Invariant: the atom's loads and its dy^2 + dz^2 shared by the thread's 8 points, the loop over points unrolled (#pragma unroll) so that the sums stay in registers. Mistake to avoid: reading row[i0 + p] for a point past nx (the tests' widths are not multiples of 128).
  (void)row; (void)initialize;
  // TODO: part 3 of 3, the stores: row[i0 + p] = the sum, for each of the thread's points inside the slice. Invariant: each point written once per launch. Mistake to avoid: writing points past nx (a write past the row changes the next row, or a sentinel past the array).
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
