// Generated from solutions/04_coulomb/07_constant_coarsening.cu by exercises/generate.py (fingerprint f68cec5bdf76): edit the TODOs.
// Step 07 — the document's own techniques taken further: constant memory, coarsening to 8 x 4
// points a thread, coalesced writes, and the one-instruction root; nothing else (no shared tiles).
//
// Steps 01-04 read each atom from constant memory for 1 or 8 evaluations; the profile says every
// multiprocessor then gets one warp's atom every 30-35 cycles, whatever else the kernel does,
// and that the constant path, not issue or the XU, is their common limit. With 8 x 4 points a
// thread (step 05's shape: 8 columns 16 apart, 4 rows 16 apart), a warp's atom read feeds 32
// evaluations a thread, about 32 x 3.6 = 115 issue slots and 32 roots: 32 x 8 = 256 cycles of its
// sub-partition's XU. The four XUs of a multiprocessor then need one warp's atom every 64
// cycles, half the rate the constant path was seen to deliver. Predicted: XU-bound, at 2048 x
// 2048 near step 05's 8 x 4 (0.96 of the rsqrt ceiling), less the chunks' 25 launches (a few
// microseconds each); at 512 x 512 as few blocks as step 05's 8 x 4 (0.24).
// Two experiments on step 01's shape (one point a thread, here with the one-instruction root, so
// that `constant_1_point` is their baseline) test why its constant reads miss: chunks of 128
// atoms instead of 4096 (every warp's atoms then fit in any cache, at 782 launches for 100,000
// atoms), and a barrier every 32 atoms, which keeps a block's 8 warps at the same atoms.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 4 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "steps.hpp"

namespace ch04 {
namespace {

constexpr int kBlock = 16;

__constant__ SliceAtom chunk[kConstantAtoms];

// kPoints x kRows points a thread, columns i0 + 16 p and rows j0 + 16 r of its block's stretch;
// with kBarrierEvery > 0, the block's threads wait for each other every kBarrierEvery atoms.
template <int kPoints, int kRows, int kBarrierEvery>
__global__ void constant_coarsening_kernel(int count, float* __restrict__ out, Slice s, bool initialize) {
  const int i0 = blockIdx.x * kBlock * kPoints + threadIdx.x;
  const int j0 = blockIdx.y * kBlock * kRows + threadIdx.y;
  const float x0 = i0 * s.spacing, y0 = j0 * s.spacing;
  float potential[kRows][kPoints];
  // TODO: part 1 of 3, the starting sums: for each of the thread's kPoints x kRows points (column i0 + 16 p, row j0 + 16 r), 0 in the first chunk's launch (initialize) or for a point outside the slice, else the earlier chunks' sum, read from out. Invariant: no early return for the threads past the slice's edge (the barrier variants need every thread), so every read of out is guarded instead. Mistake to avoid: reading out in the first launch, where it holds garbage, or reading a point past nx or ny (an out-of-bounds read on the tests' ragged sizes).
  (void)initialize;
  for (int k = 0; k < count; ++k) {
    if (kBarrierEvery > 0 && k % kBarrierEvery == 0) __syncthreads();
    const SliceAtom a = chunk[k];
    // TODO: part 2 of 3, one atom's terms: step 05's, with the atom from constant memory (one address for the whole warp, broadcast): dx once per column and dy^2 + dz^2 once per row, then for every point fmaf(dx, dx, dyz2), course::rsqrt_approx and the term added with fmaf. Invariant: kPoints + kRows differences an atom, not kPoints x kRows; every loop over points unrolled. Mistake to avoid: indexing chunk by the point or the thread (the address must be the same across the warp, or the constant cache serves it once per distinct address).
    (void)a; (void)x0; (void)y0;
  }
  // TODO: part 3 of 3, the stores: each of the thread's points inside the slice gets its sum, row j0 + 16 r, column i0 + 16 p. Invariant: for each p, the 16 threads of a warp's row store 16 consecutive floats (coalesced). Mistake to avoid: storing past nx or ny.
}

template <int kPoints, int kRows, int kBarrierEvery = 0>
void launch_constant(const SliceAtom* atoms, int count, float* out, const Slice& slice, int atoms_per_chunk = kConstantAtoms) {
  for_each_constant_chunk(
      count,
      [&](int first, int n, bool initialize) {
        if (n > 0) GPU_CHECK(gpuMemcpyToSymbol(chunk, atoms + first, n * sizeof(SliceAtom), 0, gpuMemcpyDeviceToDevice));
        course::launch(constant_coarsening_kernel<kPoints, kRows, kBarrierEvery>,
                       {dim3(course::blocks_for(slice.nx, kBlock * kPoints), course::blocks_for(slice.ny, kBlock * kRows)),
                        dim3(kBlock, kBlock)},
                       n, out, slice, initialize);
      },
      atoms_per_chunk);
}

}  // namespace

void potential_constant_1_point(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_constant<1, 1>(atoms, count, out, slice);
}
void potential_constant_1_point_chunks_of_128(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_constant<1, 1>(atoms, count, out, slice, 128);
}
void potential_constant_1_point_barrier_every_32(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_constant<1, 1, 32>(atoms, count, out, slice);
}
void potential_constant_8x4_points(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_constant<8, 4>(atoms, count, out, slice);
}
void potential_constant_8x4_points_barrier_every_32(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_constant<8, 4, 32>(atoms, count, out, slice);
}

}  // namespace ch04
