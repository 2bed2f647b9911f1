// Step 05 — the atoms through shared memory instead of constant memory: one launch for all.
//
// The constant-memory steps copy the atoms in 4096-atom chunks and launch once per chunk; a
// chunk's copy must finish before its launch, and every launch but the first reads and rewrites
// the output. Here each 16 x 16 block instead copies the atoms itself, 256 at a time, into a
// shared tile (thread t loads atom t of the tile, a coalesced 4 KB read), waits at a barrier,
// and runs step 04's 8-point loop over the tile: every thread of a warp reads the same tile
// entry, which shared memory broadcasts. One launch covers any number of atoms.
// Predicted: about step 04's speed: a broadcast from shared memory costs an instruction per
// atom field like a constant load, and the two barriers per 256 atoms are cheap beside 2048
// evaluations per thread; the chunk copies and launches it saves are a few microseconds.
// BEGIN MEASURED
// END MEASURED
#include "steps.hpp"

namespace ch04 {
namespace {

constexpr int kBlock = 16;
constexpr int kPoints = 8;                 // per thread, kBlock apart along x
constexpr int kTile = kBlock * kBlock;     // atoms per shared tile: one per thread

__global__ void shared_atoms_kernel(const SliceAtom* __restrict__ atoms, int count, float* __restrict__ out, Slice s) {
  __shared__ SliceAtom tile[kTile];
  const int i0 = blockIdx.x * kBlock * kPoints + threadIdx.x;
  const int j = blockIdx.y * kBlock + threadIdx.y;
  const int t = threadIdx.y * kBlock + threadIdx.x;
  // BEGIN SOLUTION: per tile of 256 atoms: barrier, thread t loads atom base + t, barrier, step 04's loop over the tile; threads outside the grid load but do not write
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
        potential[p] = fmaf(q, rsqrtf(fmaf(dx, dx, dyz2)), potential[p]);
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

}  // namespace

void potential_shared_atoms(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  course::launch(shared_atoms_kernel,
                 {dim3(course::blocks_for(slice.nx, kBlock * kPoints), course::blocks_for(slice.ny, kBlock)),
                  dim3(kBlock, kBlock)},
                 atoms, count, out, slice);
}

}  // namespace ch04
