// Step 05 — the atoms through shared memory instead of constant memory: one launch for all,
// and the coarsening factor.
//
// The constant-memory steps copy the atoms in 4096-atom chunks and launch once per chunk, and on
// this GPU the constant cache serves their loads slowly when many warps walk the atoms at
// different places (step 01, and the README's profile). Here each 16 x 16 block copies the
// atoms itself, 256 at a time, into a shared tile (thread t loads atom t, one coalesced 4 KB
// read), waits at a barrier, and runs step 04's loop over the tile; every thread of a warp reads
// the same entry, which shared memory broadcasts (one 16-byte load for the atom's 4 floats).
// The atom loop is unrolled by 4. One launch covers any number of atoms.
// Two variants: 8 points a thread, and 16, which halves the per-atom work per evaluation but
// also the threads: at 512 x 512 points, 8 a thread make 128 blocks of 256 threads, about one
// per multiprocessor (the H200 has 132), and 16 make 64, for half the machine; at 2048 x 2048
// both fill it many times over.
// Predicted: 8 points about step 04 or a little better at 512 x 512 (the same arithmetic, loads
// that cannot miss); 16 points half as fast there and the best at 2048 x 2048.
// BEGIN MEASURED by profiling/report.py from the chapter's results/ (NVIDIA H200, commit 856dabb66c45, 2026-11-22):
//   05_shared_atoms_8_points   512x512, 10000 atoms     0.7431 ms, 2 GB/s (0.000 of copy), 17639 GFLOP/s (0.299 of FMA), 3528 Grsqrt/s (0.855 of rsqrt)
//   05_shared_atoms_16_points  512x512, 10000 atoms     1.4018 ms, 1 GB/s (0.000 of copy), 9350 GFLOP/s (0.159 of FMA), 1870 Grsqrt/s (0.453 of rsqrt)
//   05_shared_atoms_8_points   2048x2048, 100000 atoms  110.3905 ms, 0 GB/s (0.000 of copy), 18998 GFLOP/s (0.323 of FMA), 3800 Grsqrt/s (0.921 of rsqrt)
//   05_shared_atoms_16_points  2048x2048, 100000 atoms  108.0613 ms, 0 GB/s (0.000 of copy), 19407 GFLOP/s (0.329 of FMA), 3881 Grsqrt/s (0.940 of rsqrt)
// END MEASURED
#include "steps.hpp"

namespace ch04 {
namespace {

constexpr int kBlock = 16;
constexpr int kTile = kBlock * kBlock;  // atoms per shared tile: one per thread

template <int kPoints>  // per thread, kBlock apart along x
__global__ void shared_atoms_kernel(const SliceAtom* __restrict__ atoms, int count, float* __restrict__ out, Slice s) {
  __shared__ SliceAtom tile[kTile];
  const int i0 = blockIdx.x * kBlock * kPoints + threadIdx.x;
  const int j = blockIdx.y * kBlock + threadIdx.y;
  const int t = threadIdx.y * kBlock + threadIdx.x;
  // BEGIN SOLUTION: per tile of 256 atoms: barrier, thread t loads atom base + t, barrier, step 04's loop over the tile (unrolled by 4); threads outside the grid load but do not write
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
        potential[p] = fmaf(q, course::rsqrt_approx(fmaf(dx, dx, dyz2)), potential[p]);
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
  // END SOLUTION
}

template <int kPoints>
void launch_shared_atoms(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  course::launch(shared_atoms_kernel<kPoints>,
                 {dim3(course::blocks_for(slice.nx, kBlock * kPoints), course::blocks_for(slice.ny, kBlock)),
                  dim3(kBlock, kBlock)},
                 atoms, count, out, slice);
}

}  // namespace

void potential_shared_atoms_8_points(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_shared_atoms<8>(atoms, count, out, slice);
}

void potential_shared_atoms_16_points(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  launch_shared_atoms<16>(atoms, count, out, slice);
}

}  // namespace ch04
