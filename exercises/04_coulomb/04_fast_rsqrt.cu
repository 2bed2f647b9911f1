// Generated from solutions/04_coulomb/04_fast_rsqrt.cu by exercises/generate.py (fingerprint e076287ab937): edit the TODOs.
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
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 4 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
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
  // TODO: step 03's loop with dx = fmaf(16 p, h, dx0) and course::rsqrt_approx instead of rsqrtf
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
