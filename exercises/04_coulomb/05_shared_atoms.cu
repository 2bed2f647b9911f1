// Generated from solutions/04_coulomb/05_shared_atoms.cu by exercises/generate.py (fingerprint 729a9874f95f): edit the TODOs.
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
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 4 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
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
    // TODO: part 1 of 3, the shared tile: thread t copies atom base + t (if there is one) into tile[t], between two barriers. Invariant: the first barrier before the write (no thread still reads the previous tile), the second after it (every atom of the tile is in place before any thread reads one); every thread of the block reaches both, so no thread may have returned early. Mistake to avoid: leaving out the first barrier, so that a fast thread overwrites atoms a slow one has not used yet (the CPU backend's shuffled threads catch it), or loading atoms past count in the last tile.
    (void)t;
    const int n = min(kTile, count - base);
#pragma unroll 4
    for (int k = 0; k < n; ++k) {
      const SliceAtom a = tile[k];
      // TODO: part 2 of 3, one atom's terms for the thread's kPoints x kRows points (columns i0 + 16 p, rows j0 + 16 r): dx once per column and dy^2 + dz^2 once per row, then for every point fmaf(dx, dx, dyz2), course::rsqrt_approx and the term added with fmaf. Invariant: the per-atom work shared by the points (kPoints + kRows differences, not kPoints x kRows), all loops over points unrolled so that the sums stay in registers. Mistake to avoid: points 1 apart instead of kBlock (16) apart, which breaks the coalesced stores and covers the wrong points.
      (void)a; (void)x0; (void)y0;
    }
  }
  // TODO: part 3 of 3, the stores: each of the thread's points that lies inside the slice gets its sum, row j0 + 16 r, column i0 + 16 p. Invariant: a warp's 16 threads of a row store 16 consecutive floats for each p (coalesced). Mistake to avoid: storing the points past nx or ny (the tests' sizes are not multiples of 128 x 64, and a write past the end changes a sentinel).
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
