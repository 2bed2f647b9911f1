// Step 05 — the atoms through shared memory instead of constant memory, one launch for all; and
// the coarsening factor, along a row and across rows.
//
// The constant-memory steps copy the atoms in 4096-atom chunks and launch once per chunk, and on
// this GPU the constant cache serves their loads slowly when many warps walk the atoms at
// different places (step 01, and the profile in NOTES.md). Here each 16 x 16 block copies the
// atoms itself, 256 at a time, into a shared tile (thread t loads atom t, one coalesced 4 KB
// read), waits at a barrier, and runs step 04's loop over the tile; every thread of a warp reads
// the same entry, which shared memory broadcasts (one 16-byte load for the atom's 4 floats).
// The atom loop is unrolled by 4. One launch covers any number of atoms.
// Three coarsening shapes. Per atom, a thread works out dx once per column it covers and
// dy^2 + dz^2 once per row; per point, the squared distance is then one FMA, fmaf(dx, dx, dyz2),
// and with the root and the term, 3 instructions. The per-atom work is spread over the points:
//   8 points along a row (8 x 1): about 4.5 instructions an evaluation;
//   16 along a row: about 4.3, but half the threads: at 512 x 512 points, 8 a thread make 128
//     blocks of 256 threads, about one per multiprocessor (the H200 has 132), and 16 make 64;
//   8 columns x 2 rows (8 x 2): about 4.0, half the threads;
//   8 columns x 4 rows (8 x 4): about 3.8, and a quarter of the threads (32 blocks at 512 x 512).
// Predicted: 8 x 1 about step 04 or better at 512 x 512 (the same arithmetic, loads that cannot
// miss); the wider shapes too few blocks there, and at 2048 x 2048, where every shape fills the
// machine, all near the rsqrt ceiling, since the XU, not the issue slots, is then the limit.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     05_shared_atoms_8_points    512x512, 10000 atoms     0.7861 ms, an experiment, 2 GB/s (0.001 of copy), 16674 GFLOP/s (0.283 of FMA), 3335 Grsqrt/s (0.812 of rsqrt)
//     05_shared_atoms_16_points   512x512, 10000 atoms     1.4355 ms, an experiment, 1 GB/s (0.000 of copy), 9131 GFLOP/s (0.155 of FMA), 1826 Grsqrt/s (0.445 of rsqrt)
//     05_shared_atoms_8x2_points  512x512, 10000 atoms     1.4180 ms, an experiment, 1 GB/s (0.000 of copy), 9244 GFLOP/s (0.157 of FMA), 1849 Grsqrt/s (0.450 of rsqrt)
//     05_shared_atoms_8x4_points  512x512, 10000 atoms     2.7028 ms, 0 GB/s (0.000 of copy), 4849 GFLOP/s (0.082 of FMA), 970 Grsqrt/s (0.236 of rsqrt)
//     05_shared_atoms_8_points    2048x2048, 100000 atoms  109.6234 ms, an experiment, 0 GB/s (0.000 of copy), 19131 GFLOP/s (0.324 of FMA), 3826 Grsqrt/s (0.932 of rsqrt)
//     05_shared_atoms_16_points   2048x2048, 100000 atoms  109.9464 ms, an experiment, 0 GB/s (0.000 of copy), 19074 GFLOP/s (0.323 of FMA), 3815 Grsqrt/s (0.929 of rsqrt)
//     05_shared_atoms_8x2_points  2048x2048, 100000 atoms  109.0551 ms, an experiment, 0 GB/s (0.000 of copy), 19230 GFLOP/s (0.326 of FMA), 3846 Grsqrt/s (0.937 of rsqrt)
//     05_shared_atoms_8x4_points  2048x2048, 100000 atoms  106.5372 ms, 0 GB/s (0.000 of copy), 19685 GFLOP/s (0.334 of FMA), 3937 Grsqrt/s (0.959 of rsqrt)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     05_shared_atoms_8_points    512x512, 10000 atoms     0.7863 ms, an experiment, 2 GB/s (0.000 of copy), 16669 GFLOP/s (0.284 of FMA), 3334 Grsqrt/s (0.810 of rsqrt)
//     05_shared_atoms_16_points   512x512, 10000 atoms     1.4350 ms, an experiment, 1 GB/s (0.000 of copy), 9134 GFLOP/s (0.155 of FMA), 1827 Grsqrt/s (0.444 of rsqrt)
//     05_shared_atoms_8x2_points  512x512, 10000 atoms     1.4203 ms, an experiment, 1 GB/s (0.000 of copy), 9229 GFLOP/s (0.157 of FMA), 1846 Grsqrt/s (0.449 of rsqrt)
//     05_shared_atoms_8x4_points  512x512, 10000 atoms     2.7036 ms, 0 GB/s (0.000 of copy), 4848 GFLOP/s (0.083 of FMA), 970 Grsqrt/s (0.236 of rsqrt)
//     05_shared_atoms_8_points    2048x2048, 100000 atoms  109.6242 ms, an experiment, 0 GB/s (0.000 of copy), 19130 GFLOP/s (0.326 of FMA), 3826 Grsqrt/s (0.930 of rsqrt)
//     05_shared_atoms_16_points   2048x2048, 100000 atoms  109.9642 ms, an experiment, 0 GB/s (0.000 of copy), 19071 GFLOP/s (0.325 of FMA), 3814 Grsqrt/s (0.927 of rsqrt)
//     05_shared_atoms_8x2_points  2048x2048, 100000 atoms  109.0716 ms, an experiment, 0 GB/s (0.000 of copy), 19227 GFLOP/s (0.327 of FMA), 3845 Grsqrt/s (0.935 of rsqrt)
//     05_shared_atoms_8x4_points  2048x2048, 100000 atoms  106.5733 ms, 0 GB/s (0.000 of copy), 19678 GFLOP/s (0.335 of FMA), 3936 Grsqrt/s (0.957 of rsqrt)
// END MEASURED
#include "steps.hpp"

namespace ch04 {
namespace {

constexpr int kBlock = 16;
constexpr int kTile = kBlock * kBlock;  // atoms per shared tile: one per thread

// A thread computes kPoints x kRows points: columns i0 + 16 p and rows j0 + 16 r of its block's
// stretch of the slice.
template <int kPoints, int kRows>
__global__ void shared_atoms_kernel(const SliceAtom* __restrict__ atoms, int count, float* __restrict__ out, Slice s) {
  __shared__ SliceAtom tile[kTile];
  const int i0 = blockIdx.x * kBlock * kPoints + threadIdx.x;
  const int j0 = blockIdx.y * kBlock * kRows + threadIdx.y;
  const int t = threadIdx.y * kBlock + threadIdx.x;
  const float x0 = i0 * s.spacing, y0 = j0 * s.spacing;
  float potential[kRows][kPoints] = {};
  for (int base = 0; base < count; base += kTile) {
    // BEGIN SOLUTION: part 1 of 3, the shared tile: thread t copies atom base + t (if there is one) into tile[t], between two barriers. Invariant: the first barrier before the write (no thread still reads the previous tile), the second after it (every atom of the tile is in place before any thread reads one); every thread of the block reaches both, so no thread may have returned early. Mistake to avoid: leaving out the first barrier, so that a fast thread overwrites atoms a slow one has not used yet (the CPU backend's shuffled threads catch it), or loading atoms past count in the last tile.
    __syncthreads();  // the previous tile is no longer read
    if (base + t < count) tile[t] = atoms[base + t];
    __syncthreads();
    // STUB: (void)t;
    // END SOLUTION
    const int n = min(kTile, count - base);
#pragma unroll 4
    for (int k = 0; k < n; ++k) {
      const SliceAtom a = tile[k];
      // BEGIN SOLUTION: part 2 of 3, one atom's terms for the thread's kPoints x kRows points (columns i0 + 16 p, rows j0 + 16 r): dx once per column and dy^2 + dz^2 once per row, then for every point fmaf(dx, dx, dyz2), course::rsqrt_approx and the term added with fmaf. Invariant: the per-atom work shared by the points (kPoints + kRows differences, not kPoints x kRows), all loops over points unrolled so that the sums stay in registers. Mistake to avoid: points 1 apart instead of kBlock (16) apart, which breaks the coalesced stores and covers the wrong points.
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
  }
  // BEGIN SOLUTION: part 3 of 3, the stores: each of the thread's points that lies inside the slice gets its sum, row j0 + 16 r, column i0 + 16 p. Invariant: a warp's 16 threads of a row store 16 consecutive floats for each p (coalesced). Mistake to avoid: storing the points past nx or ny (the tests' sizes are not multiples of 128 x 64, and a write past the end changes a sentinel).
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

template <int kPoints, int kRows>
void launch_shared_atoms(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  course::launch(shared_atoms_kernel<kPoints, kRows>,
                 {dim3(course::blocks_for(slice.nx, kBlock * kPoints), course::blocks_for(slice.ny, kBlock * kRows)),
                  dim3(kBlock, kBlock)},
                 atoms, count, out, slice);
}

}  // namespace

void potential_shared_atoms_8_points(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_shared_atoms<8, 1>(atoms, count, out, slice);
}

void potential_shared_atoms_16_points(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_shared_atoms<16, 1>(atoms, count, out, slice);
}

void potential_shared_atoms_8x2_points(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_shared_atoms<8, 2>(atoms, count, out, slice);
}

void potential_shared_atoms_8x4_points(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_shared_atoms<8, 4>(atoms, count, out, slice);
}

}  // namespace ch04
