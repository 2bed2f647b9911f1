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
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     07_constant_1_point                      512x512, 10000 atoms     7.9445 ms, an experiment, 0 GB/s (0.000 of copy), 1650 GFLOP/s (0.028 of FMA), 330 Grsqrt/s (0.080 of rsqrt)
//     07_constant_1_point_chunks_of_128        512x512, 10000 atoms     6.0630 ms, an experiment, 0 GB/s (0.000 of copy), 2162 GFLOP/s (0.037 of FMA), 432 Grsqrt/s (0.105 of rsqrt)
//     07_constant_1_point_barrier_every_32     512x512, 10000 atoms     3.1477 ms, an experiment, 0 GB/s (0.000 of copy), 4164 GFLOP/s (0.071 of FMA), 833 Grsqrt/s (0.203 of rsqrt)
//     07_constant_8x4_points                   512x512, 10000 atoms     2.9300 ms, 0 GB/s (0.000 of copy), 4474 GFLOP/s (0.076 of FMA), 895 Grsqrt/s (0.218 of rsqrt)
//     07_constant_8x4_points_barrier_every_32  512x512, 10000 atoms     3.0347 ms, an experiment, 0 GB/s (0.000 of copy), 4319 GFLOP/s (0.073 of FMA), 864 Grsqrt/s (0.210 of rsqrt)
//     07_constant_1_point                      2048x2048, 100000 atoms  1440.2000 ms, an experiment, 0 GB/s (0.000 of copy), 1456 GFLOP/s (0.025 of FMA), 291 Grsqrt/s (0.071 of rsqrt)
//     07_constant_1_point_chunks_of_128        2048x2048, 100000 atoms  920.9073 ms, an experiment, 0 GB/s (0.000 of copy), 2277 GFLOP/s (0.039 of FMA), 455 Grsqrt/s (0.111 of rsqrt)
//     07_constant_1_point_barrier_every_32     2048x2048, 100000 atoms  572.7393 ms, an experiment, 0 GB/s (0.000 of copy), 3662 GFLOP/s (0.062 of FMA), 732 Grsqrt/s (0.178 of rsqrt)
//     07_constant_8x4_points                   2048x2048, 100000 atoms  110.0462 ms, 0 GB/s (0.000 of copy), 19057 GFLOP/s (0.323 of FMA), 3811 Grsqrt/s (0.928 of rsqrt)
//     07_constant_8x4_points_barrier_every_32  2048x2048, 100000 atoms  111.0727 ms, an experiment, 0 GB/s (0.000 of copy), 18881 GFLOP/s (0.320 of FMA), 3776 Grsqrt/s (0.920 of rsqrt)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     07_constant_1_point                      512x512, 10000 atoms     7.8883 ms, an experiment, 0 GB/s (0.000 of copy), 1662 GFLOP/s (0.028 of FMA), 332 Grsqrt/s (0.081 of rsqrt)
//     07_constant_1_point_chunks_of_128        512x512, 10000 atoms     5.9939 ms, an experiment, 0 GB/s (0.000 of copy), 2187 GFLOP/s (0.037 of FMA), 437 Grsqrt/s (0.106 of rsqrt)
//     07_constant_1_point_barrier_every_32     512x512, 10000 atoms     3.1370 ms, an experiment, 0 GB/s (0.000 of copy), 4178 GFLOP/s (0.071 of FMA), 836 Grsqrt/s (0.203 of rsqrt)
//     07_constant_8x4_points                   512x512, 10000 atoms     2.9314 ms, 0 GB/s (0.000 of copy), 4471 GFLOP/s (0.076 of FMA), 894 Grsqrt/s (0.217 of rsqrt)
//     07_constant_8x4_points_barrier_every_32  512x512, 10000 atoms     3.0363 ms, an experiment, 0 GB/s (0.000 of copy), 4317 GFLOP/s (0.073 of FMA), 863 Grsqrt/s (0.210 of rsqrt)
//     07_constant_1_point                      2048x2048, 100000 atoms  1429.9780 ms, an experiment, 0 GB/s (0.000 of copy), 1467 GFLOP/s (0.025 of FMA), 293 Grsqrt/s (0.071 of rsqrt)
//     07_constant_1_point_chunks_of_128        2048x2048, 100000 atoms  917.5570 ms, an experiment, 0 GB/s (0.000 of copy), 2286 GFLOP/s (0.039 of FMA), 457 Grsqrt/s (0.111 of rsqrt)
//     07_constant_1_point_barrier_every_32     2048x2048, 100000 atoms  572.7951 ms, an experiment, 0 GB/s (0.000 of copy), 3661 GFLOP/s (0.062 of FMA), 732 Grsqrt/s (0.178 of rsqrt)
//     07_constant_8x4_points                   2048x2048, 100000 atoms  110.0572 ms, 0 GB/s (0.000 of copy), 19055 GFLOP/s (0.324 of FMA), 3811 Grsqrt/s (0.926 of rsqrt)
//     07_constant_8x4_points_barrier_every_32  2048x2048, 100000 atoms  111.0823 ms, an experiment, 0 GB/s (0.000 of copy), 18879 GFLOP/s (0.321 of FMA), 3776 Grsqrt/s (0.918 of rsqrt)
// END MEASURED
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
  // BEGIN SOLUTION: part 1 of 3, the starting sums: for each of the thread's kPoints x kRows points (column i0 + 16 p, row j0 + 16 r), 0 in the first chunk's launch (initialize) or for a point outside the slice, else the earlier chunks' sum, read from out. Invariant: no early return for the threads past the slice's edge (the barrier variants need every thread), so every read of out is guarded instead. Mistake to avoid: reading out in the first launch, where it holds garbage, or reading a point past nx or ny (an out-of-bounds read on the tests' ragged sizes).
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
#pragma unroll
    for (int p = 0; p < kPoints; ++p) {
      const int i = i0 + p * kBlock, j = j0 + r * kBlock;
      potential[r][p] = initialize || i >= s.nx || j >= s.ny ? 0.0f : out[static_cast<long long>(j) * s.nx + i];
    }
  }
  // STUB: (void)initialize;
  // END SOLUTION
  for (int k = 0; k < count; ++k) {
    if (kBarrierEvery > 0 && k % kBarrierEvery == 0) __syncthreads();
    const SliceAtom a = chunk[k];
    // BEGIN SOLUTION: part 2 of 3, one atom's terms: step 05's, with the atom from constant memory (one address for the whole warp, broadcast): dx once per column and dy^2 + dz^2 once per row, then for every point fmaf(dx, dx, dyz2), course::rsqrt_approx and the term added with fmaf. Invariant: kPoints + kRows differences an atom, not kPoints x kRows; every loop over points unrolled. Mistake to avoid: indexing chunk by the point or the thread (the address must be the same across the warp, or the constant cache serves it once per distinct address).
    float dyz2[kRows], dx[kPoints];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      // (Row 0 and column 0 need no FMA: fmaf(0, h, v) is not folded to v, since h could be inf.)
      const float dy = r == 0 ? y0 - a.y : fmaf(static_cast<float>(r * kBlock), s.spacing, y0 - a.y);
      dyz2[r] = fmaf(dy, dy, a.dz2);
    }
#pragma unroll
    for (int p = 0; p < kPoints; ++p) dx[p] = p == 0 ? x0 - a.x : fmaf(static_cast<float>(p * kBlock), s.spacing, x0 - a.x);
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
#pragma unroll
      for (int p = 0; p < kPoints; ++p)
        potential[r][p] = fmaf(a.q, course::rsqrt_approx(fmaf(dx[p], dx[p], dyz2[r])), potential[r][p]);
    }
    // STUB: (void)a; (void)x0; (void)y0;
    // END SOLUTION
  }
  // BEGIN SOLUTION: part 3 of 3, the stores: each of the thread's points inside the slice gets its sum, row j0 + 16 r, column i0 + 16 p. Invariant: for each p, the 16 threads of a warp's row store 16 consecutive floats (coalesced). Mistake to avoid: storing past nx or ny.
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int j = j0 + r * kBlock;
    if (j >= s.ny) continue;
    float* row = out + static_cast<long long>(j) * s.nx;
#pragma unroll
    for (int p = 0; p < kPoints; ++p) {
      if (i0 + p * kBlock < s.nx) row[i0 + p * kBlock] = potential[r][p];
    }
  }
  // END SOLUTION
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
