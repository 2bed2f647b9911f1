// Generated from solutions/04_coulomb/04_unrolled.cu by exercises/generate.py: edit the TODOs, not the solution.
// Step 04 — fewer instructions per evaluation, and the coarsening factor.
//
// What is left in step 03's loop besides the evaluations: per atom, four constant loads, dy, dy^2
// + dz^2, dx0, and the loop's counter and branch; per evaluation, the add for dx, the FMA for
// the squared distance, the reciprocal square root and the FMA that adds the term. Two changes:
//   - the atom loop is unrolled by 4, so the counter and branch come once per 4 atoms and the
//     compiler can schedule 4 atoms' loads and arithmetic together;
//   - dx is one FMA, 16 p h + dx0, with 16 p a constant, instead of an add of an offset held in
//     a register per point: 8 (or 16) registers fewer.
// And a variant with 16 points a thread instead of 8, which halves the per-atom work per
// evaluation but also halves the threads: at 512 x 512 points, 8 points a thread make 128
// blocks of 256 threads, one per multiprocessor (the H200 has 132), and 16 make 64, for half of
// the machine; at 2048 x 2048 both fill it many times over.
// Predicted: 8 points, a few percent over step 03, toward the rsqrt ceiling; 16 points, about
// half the speed at 512 x 512 and a little faster than 8 at 2048 x 2048.
// BEGIN MEASURED
// END MEASURED
#include "steps.hpp"

namespace ch04 {
namespace {

constexpr int kBlock = 16;

__constant__ SliceAtom chunk[kConstantAtoms];

template <int kPoints>
__global__ void unrolled_kernel(int count, float* __restrict__ out, Slice s, bool initialize) {
  const int i0 = blockIdx.x * kBlock * kPoints + threadIdx.x;
  const int j = blockIdx.y * kBlock + threadIdx.y;
  if (i0 >= s.nx || j >= s.ny) return;
  float* row = out + static_cast<long long>(j) * s.nx;
  // TODO: step 03's loop with dx = fmaf(16 p, h, dx0) and the atom loop unrolled by 4 (#pragma unroll 4)
}

template <int kPoints>
void launch_unrolled(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  for_each_constant_chunk(count, [&](int first, int n, bool initialize) {
    if (n > 0) GPU_CHECK(gpuMemcpyToSymbol(chunk, atoms + first, n * sizeof(SliceAtom), 0, gpuMemcpyDeviceToDevice));
    course::launch(unrolled_kernel<kPoints>,
                   {dim3(course::blocks_for(slice.nx, kBlock * kPoints), course::blocks_for(slice.ny, kBlock)),
                    dim3(kBlock, kBlock)},
                   n, out, slice, initialize);
  });
}

}  // namespace

void potential_unrolled_8_points(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_unrolled<8>(atoms, count, out, slice);
}

void potential_unrolled_16_points(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_unrolled<16>(atoms, count, out, slice);
}

}  // namespace ch04
