// Generated from solutions/04_coulomb/06_split_pipes.cu by exercises/generate.py: edit the TODOs, not the solution.
// Step 06 — past the rsqrt ceiling: some of the reciprocal square roots on the FMA pipe.
//
// Step 04 is held by the multi-function unit (XU), which computes reciprocal square roots at a
// quarter of the rate at which the FMA pipes add and multiply; per evaluation it also issues
// about three instructions to the FMA pipe, so that pipe and the issue slots have room left.
// A reciprocal square root can also be computed on the FMA pipe alone: a first guess from the
// float's bits (halve the exponent with an integer shift and subtract from a magic constant),
// refined by Newton steps y <- y (1.5 - x/2 y^2), each three FMA-pipe instructions. Three steps
// bring the error to 1.32e-7 at most (measured over every float in [1, 4), which by the
// exponent's periodicity covers every normal float; the tests check it again), within the 2
// ulp, 2.4e-7, of the hardware instruction; two steps leave 4.7e-6. A thread computes k of its 8
// points this way and the other 8 - k with rsqrtf, so the two pipes work side by side.
// Cost model, per 8 cycles of one SM sub-partition: the XU finishes one warp instruction (32
// evaluations), using 4 of the 8 issue slots with their 3 FMA-pipe instructions; an evaluation
// on the FMA pipe takes about 15 instructions (12 for the root, 2 INT among them). The 4 spare
// slots hold about a quarter more evaluations: at best 1.25-1.3x the rsqrt ceiling, with k
// around 2 of 8 (f = k/8 near 20%), less whatever the per-atom work takes.
// An atom exactly on a grid point makes x = 0: rsqrtf gives inf, the FMA-pipe path a large
// finite number (about 2e19).
// Predicted: k = 1 and 2 faster than step 04 (1.1-1.25x), k = 3 slower again (issue-bound).
// BEGIN MEASURED
// END MEASURED
#include "steps.hpp"

namespace ch04 {
namespace {

constexpr int kBlock = 16;
constexpr int kPoints = 8;  // per thread, kBlock apart along x

__constant__ SliceAtom chunk[kConstantAtoms];

// 1/sqrt(x) for a positive normal float, on the FMA pipe.
__host__ __device__ inline float rsqrt_newton(float x) {
  // TODO: y = float_from_bits(0x5f3759df - (float_bits(x) >> 1)); then three times y = y * (1.5 - (x/2) y^2), the bracket as one fmaf
  return 0.0f * x;
}

template <int kSoftware>
__global__ void split_kernel(int count, float* __restrict__ out, Slice s, bool initialize) {
  const int i0 = blockIdx.x * kBlock * kPoints + threadIdx.x;
  const int j = blockIdx.y * kBlock + threadIdx.y;
  if (i0 >= s.nx || j >= s.ny) return;
  float* row = out + static_cast<long long>(j) * s.nx;
  const float x0 = i0 * s.spacing, y = j * s.spacing;
  float potential[kPoints];
#pragma unroll
  for (int p = 0; p < kPoints; ++p) potential[p] = initialize || i0 + p * kBlock >= s.nx ? 0.0f : row[i0 + p * kBlock];
#pragma unroll 4
  for (int k = 0; k < count; ++k) {
    const float dy = y - chunk[k].y;
    const float dyz2 = fmaf(dy, dy, chunk[k].dz2);
    const float dx0 = x0 - chunk[k].x;
    const float q = chunk[k].q;
#pragma unroll
    for (int p = 0; p < kPoints; ++p) {
      const float dx = fmaf(static_cast<float>(p * kBlock), s.spacing, dx0);
      const float r2 = fmaf(dx, dx, dyz2);
      // The first kSoftware points on the FMA pipe, the others on the multi-function unit.
      potential[p] = fmaf(q, p < kSoftware ? rsqrt_newton(r2) : rsqrtf(r2), potential[p]);
    }
  }
#pragma unroll
  for (int p = 0; p < kPoints; ++p) {
    if (i0 + p * kBlock < s.nx) row[i0 + p * kBlock] = potential[p];
  }
}

template <int kSoftware>
void launch_split(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  for_each_constant_chunk(count, [&](int first, int n, bool initialize) {
    if (n > 0) GPU_CHECK(gpuMemcpyToSymbol(chunk, atoms + first, n * sizeof(SliceAtom), 0, gpuMemcpyDeviceToDevice));
    course::launch(split_kernel<kSoftware>,
                   {dim3(course::blocks_for(slice.nx, kBlock * kPoints), course::blocks_for(slice.ny, kBlock)),
                    dim3(kBlock, kBlock)},
                   n, out, slice, initialize);
  });
}

}  // namespace

float rsqrt_on_fma_pipe(float x) { return rsqrt_newton(x); }

void potential_split_1_of_8(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_split<1>(atoms, count, out, slice);
}
void potential_split_2_of_8(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_split<2>(atoms, count, out, slice);
}
void potential_split_3_of_8(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_split<3>(atoms, count, out, slice);
}

}  // namespace ch04
