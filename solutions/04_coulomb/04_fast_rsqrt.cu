// Step 04 — the reciprocal square root in one instruction.
//
// Step 03's loop needs, per evaluation, an add for dx, an FMA for the squared distance, the
// reciprocal square root and the FMA that adds the term, and per atom a few more shared by its
// 8 points: about 4.5 instructions an evaluation. Nsight Compute counts 7.9 (NOTES.md's
// profile). Three of the 3.4 missing are rsqrtf() itself: to be right for denormal inputs
// (below 2^-126) it scales them before and after the multi-function unit's MUFU.RSQ, three
// instructions more around every one. A squared distance that small means an atom within 1e-19
// of a grid point, whose term (1e19 q) already swamps the sum; flushing it to zero turns that
// point's value into inf, as an atom exactly on the point does. So the hardware instruction alone
// (course::rsqrt_approx: rsqrt.approx.ftz on CUDA, as accurate as rsqrtf for normal inputs)
// does. dx is now one FMA, 16 p h + dx0, with 16 p a constant, instead of an add of an offset
// held in a register.
// Predicted: about 4.5 instructions an evaluation; then the multi-function unit, one warp
// instruction every 8 cycles per sub-partition, is the limit with issue slots to spare: near the
// rsqrt ceiling where the grid fills the machine (2048 x 2048), less at 512 x 512, where 128
// blocks of 8 warps leave 2 warps per sub-partition to hide the latencies.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     04_fast_rsqrt  512x512, 10000 atoms     0.8708 ms, 1 GB/s (0.000 of copy), 15051 GFLOP/s (0.255 of FMA), 3010 Grsqrt/s (0.733 of rsqrt)
//     04_fast_rsqrt  2048x2048, 100000 atoms  216.3112 ms, 0 GB/s (0.000 of copy), 9695 GFLOP/s (0.164 of FMA), 1939 Grsqrt/s (0.472 of rsqrt)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     04_fast_rsqrt  512x512, 10000 atoms     0.8772 ms, 1 GB/s (0.000 of copy), 14943 GFLOP/s (0.254 of FMA), 2989 Grsqrt/s (0.726 of rsqrt)
//     04_fast_rsqrt  2048x2048, 100000 atoms  215.6803 ms, 0 GB/s (0.000 of copy), 9723 GFLOP/s (0.166 of FMA), 1945 Grsqrt/s (0.473 of rsqrt)
// END MEASURED
#include "steps.hpp"

namespace ch04 {
namespace {

constexpr int kBlock = 16;
constexpr int kPoints = 8;  // per thread, kBlock apart along x

__constant__ SliceAtom chunk[kConstantAtoms];

__global__ void fast_rsqrt_kernel(int count, float* __restrict__ out, Slice s, bool initialize) {
  const int i0 = blockIdx.x * kBlock * kPoints + threadIdx.x;
  const int j = blockIdx.y * kBlock + threadIdx.y;
  if (i0 >= s.nx || j >= s.ny) return;
  float* row = out + static_cast<long long>(j) * s.nx;
  // BEGIN SOLUTION: step 03's loop with dx = fmaf(16 p, h, dx0) and course::rsqrt_approx instead of rsqrtf
  const float x0 = i0 * s.spacing, y = j * s.spacing;
  float potential[kPoints];
#pragma unroll
  for (int p = 0; p < kPoints; ++p) potential[p] = initialize || i0 + p * kBlock >= s.nx ? 0.0f : row[i0 + p * kBlock];
  for (int k = 0; k < count; ++k) {
    const float dy = y - chunk[k].y;
    const float dyz2 = fmaf(dy, dy, chunk[k].dz2);
    const float dx0 = x0 - chunk[k].x;
    const float q = chunk[k].q;
#pragma unroll
    for (int p = 0; p < kPoints; ++p) {
      const float dx = fmaf(static_cast<float>(p * kBlock), s.spacing, dx0);
      potential[p] = fmaf(q, course::rsqrt_approx(fmaf(dx, dx, dyz2)), potential[p]);
    }
  }
#pragma unroll
  for (int p = 0; p < kPoints; ++p) {
    if (i0 + p * kBlock < s.nx) row[i0 + p * kBlock] = potential[p];
  }
  // END SOLUTION
}

}  // namespace

void potential_fast_rsqrt(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  for_each_constant_chunk(count, [&](int first, int n, bool initialize) {
    if (n > 0) GPU_CHECK(gpuMemcpyToSymbol(chunk, atoms + first, n * sizeof(SliceAtom), 0, gpuMemcpyDeviceToDevice));
    course::launch(fast_rsqrt_kernel,
                   {dim3(course::blocks_for(slice.nx, kBlock * kPoints), course::blocks_for(slice.ny, kBlock)),
                    dim3(kBlock, kBlock)},
                   n, out, slice, initialize);
  });
}

}  // namespace ch04
