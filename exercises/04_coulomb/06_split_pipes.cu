// Generated from solutions/04_coulomb/06_split_pipes.cu by exercises/generate.py: edit the TODOs, not the solution.
// Step 06 — past the rsqrt ceiling: some of the reciprocal square roots on the FMA pipe.
//
// With one instruction per root (step 04), the multi-function unit (XU) is the limit: it
// finishes one warp instruction every 8 cycles per sub-partition, a quarter of the rate at which
// the FMA pipe adds and multiplies. An evaluation issues about 4.5 instructions, 3.5 of them not
// on the XU, so in those 8 cycles the 32 evaluations take about 4.5 of the 8 issue slots: the
// FMA pipe and the issue slots have room left. A reciprocal square root can also be computed on
// the FMA pipe alone: a first guess from the float's bits (halve the exponent with an integer
// shift and subtract from a magic constant), refined by Newton steps y <- y (1.5 - x/2 y^2), each
// three FMA-pipe instructions. Three steps bring the error to 1.32e-7 at most (measured over
// every float in [1, 4), which by the exponent's periodicity covers every normal float; the tests
// check it again), within the 2 ulp (2.4e-7) documented for rsqrtf and the instruction under
// it; two steps leave 4.7e-6. A thread computes k of its points this way and the others on the
// XU, so the two work side by side: on step 05's kernels, with 8 points (k = 1, 2, 3) and with
// 16 (k = 2, 3), whose per-atom work weighs less per evaluation.
// Cost model, per 8 cycles of one sub-partition: the XU's 32 evaluations take about 4.5 issue
// slots (4.35 with 16 points); an evaluation on the FMA pipe about 15 (12 for the root, 2 of
// them integer). The 3.5 spare slots hold about 7 more evaluations: at best about 1.2x the rsqrt
// ceiling with every slot issued, with a share f near 18%; at the 85-90% of slots that a
// scheduler issues in practice, 1.1x around f = 2/16.
// An atom exactly on a grid point makes x = 0: the XU gives inf, the FMA-pipe path a large finite
// number (about 2e19).
// Predicted: 1 of 8 and 2 of 16 faster than step 05 where the machine is full (up to 1.1x the
// rsqrt ceiling), 3 of 8 slower again (issue-bound).
// BEGIN MEASURED by profiling/report.py from the chapter's results/ (NVIDIA H200, commit 856dabb66c45, 2026-11-22):
//   06_split_1_of_8   512x512, 10000 atoms     0.7119 ms, 2 GB/s (0.000 of copy), 18411 GFLOP/s (0.313 of FMA), 3682 Grsqrt/s (0.892 of rsqrt)
//   06_split_2_of_8   512x512, 10000 atoms     0.7660 ms, 2 GB/s (0.000 of copy), 17111 GFLOP/s (0.290 of FMA), 3422 Grsqrt/s (0.829 of rsqrt)
//   06_split_3_of_8   512x512, 10000 atoms     0.8891 ms, 1 GB/s (0.000 of copy), 14743 GFLOP/s (0.250 of FMA), 2949 Grsqrt/s (0.714 of rsqrt)
//   06_split_2_of_16  512x512, 10000 atoms     1.5091 ms, 1 GB/s (0.000 of copy), 8685 GFLOP/s (0.147 of FMA), 1737 Grsqrt/s (0.421 of rsqrt)
//   06_split_3_of_16  512x512, 10000 atoms     1.6690 ms, 1 GB/s (0.000 of copy), 7854 GFLOP/s (0.133 of FMA), 1571 Grsqrt/s (0.381 of rsqrt)
//   06_split_1_of_8   2048x2048, 100000 atoms  101.6523 ms, 0 GB/s (0.000 of copy), 20631 GFLOP/s (0.350 of FMA), 4126 Grsqrt/s (1.000 of rsqrt)
//   06_split_2_of_8   2048x2048, 100000 atoms  110.9744 ms, 0 GB/s (0.000 of copy), 18898 GFLOP/s (0.321 of FMA), 3780 Grsqrt/s (0.916 of rsqrt)
//   06_split_3_of_8   2048x2048, 100000 atoms  131.0248 ms, 0 GB/s (0.000 of copy), 16006 GFLOP/s (0.272 of FMA), 3201 Grsqrt/s (0.776 of rsqrt)
//   06_split_2_of_16  2048x2048, 100000 atoms  116.2630 ms, 0 GB/s (0.000 of copy), 18038 GFLOP/s (0.306 of FMA), 3608 Grsqrt/s (0.874 of rsqrt)
//   06_split_3_of_16  2048x2048, 100000 atoms  125.3667 ms, 0 GB/s (0.000 of copy), 16728 GFLOP/s (0.284 of FMA), 3346 Grsqrt/s (0.811 of rsqrt)
// END MEASURED
#include "steps.hpp"

namespace ch04 {
namespace {

constexpr int kBlock = 16;
constexpr int kTile = kBlock * kBlock;  // atoms per shared tile

// 1/sqrt(x) for a positive normal float, on the FMA pipe.
__host__ __device__ inline float rsqrt_newton(float x) {
  // TODO: y = float_from_bits(0x5f3759df - (float_bits(x) >> 1)); then three times y = y * (1.5 - (x/2) y^2), the bracket as one fmaf
  return 0.0f * x;
}

// kPoints per thread, kBlock apart along x; the first kSoftware of them on the FMA pipe.
template <int kPoints, int kSoftware>
__global__ void split_kernel(const SliceAtom* __restrict__ atoms, int count, float* __restrict__ out, Slice s) {
  __shared__ SliceAtom tile[kTile];
  const int i0 = blockIdx.x * kBlock * kPoints + threadIdx.x;
  const int j = blockIdx.y * kBlock + threadIdx.y;
  const int t = threadIdx.y * kBlock + threadIdx.x;
  const float x0 = i0 * s.spacing, y = j * s.spacing;
  float potential[kPoints] = {};
  for (int base = 0; base < count; base += kTile) {
    __syncthreads();  // the previous tile is no longer read
    if (base + t < count) tile[t] = atoms[base + t];
    __syncthreads();
    const int n = min(kTile, count - base);
#pragma unroll 4
    for (int k = 0; k < n; ++k) {
      const float dy = y - tile[k].y;
      const float dyz2 = fmaf(dy, dy, tile[k].dz2);
      const float dx0 = x0 - tile[k].x;
      const float q = tile[k].q;
#pragma unroll
      for (int p = 0; p < kPoints; ++p) {
        const float dx = fmaf(static_cast<float>(p * kBlock), s.spacing, dx0);
        const float r2 = fmaf(dx, dx, dyz2);
        // The first kSoftware points on the FMA pipe, the others on the multi-function unit.
        potential[p] = fmaf(q, p < kSoftware ? rsqrt_newton(r2) : course::rsqrt_approx(r2), potential[p]);
      }
    }
  }
  if (j < s.ny) {
    float* row = out + static_cast<long long>(j) * s.nx;
#pragma unroll
    for (int p = 0; p < kPoints; ++p) {
      if (i0 + p * kBlock < s.nx) row[i0 + p * kBlock] = potential[p];
    }
  }
}

template <int kPoints, int kSoftware>
void launch_split(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  course::launch(split_kernel<kPoints, kSoftware>,
                 {dim3(course::blocks_for(slice.nx, kBlock * kPoints), course::blocks_for(slice.ny, kBlock)),
                  dim3(kBlock, kBlock)},
                 atoms, count, out, slice);
}

}  // namespace

float rsqrt_on_fma_pipe(float x) { return rsqrt_newton(x); }

void potential_split_1_of_8(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_split<8, 1>(atoms, count, out, slice);
}
void potential_split_2_of_8(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_split<8, 2>(atoms, count, out, slice);
}
void potential_split_3_of_8(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_split<8, 3>(atoms, count, out, slice);
}
void potential_split_2_of_16(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_split<16, 2>(atoms, count, out, slice);
}
void potential_split_3_of_16(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_split<16, 3>(atoms, count, out, slice);
}

}  // namespace ch04
