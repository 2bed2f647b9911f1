// Generated from solutions/04_coulomb/03_coalesced_coarsening.cu by exercises/generate.py (fingerprint fd17b2a2fb7a): edit the TODOs.
// Step 03 — coalesced coarsening: a thread's 8 points are 16 apart, so neighbouring threads
// write neighbouring floats.
//
// In step 02 thread t writes points 8t .. 8t+7: the 16 threads of a block row write 16 runs of
// 8 floats, and each of the 8 store instructions touches 16 places 32 bytes apart. Here a
// block's 16 threads take the 128 points of their stretch of the row round-robin: thread t gets
// t, t+16, ..., t+112, so each store instruction writes 16 consecutive floats. The arithmetic
// is step 02's, with the offsets p h replaced by 16 p h.
// Predicted: the stores are a few per thread at the end of a loop over thousands of atoms, so
// their pattern is worth almost nothing here; the step matters for the shape it gives the
// coarsening (the document coalesces for older GPUs, whose uncoalesced stores cost more), and
// step 04 builds on it.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 4 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "steps.hpp"

namespace ch04 {
namespace {

constexpr int kBlock = 16;
constexpr int kPoints = 8;  // per thread, kBlock apart along x

__constant__ SliceAtom chunk[kConstantAtoms];

__global__ void coalesced_coarsening_kernel(int count, float* __restrict__ out, Slice s, bool initialize) {
  // TODO: part 1 of 3, the thread's points, coalesced: the block's stretch of a row is kBlock x kPoints columns, and thread threadIdx.x takes the columns i0 + 16 p of it, so that at each p the 16 threads of a warp's row touch 16 consecutive floats (one 64-byte segment) instead of floats 8 apart. Invariant: every column of the stretch taken by exactly one thread of the row. Mistake to avoid: keeping step 02's (blockIdx.x * kBlock + threadIdx.x) * kPoints, whose points are consecutive in a thread and 8 apart across threads.
  const int i0 = 0;
  const int j = blockIdx.y * kBlock + threadIdx.y;
  if (i0 >= s.nx || j >= s.ny) return;
  float* row = out + static_cast<long long>(j) * s.nx;
  // TODO: part 2 of 3, the sums: step 02's, with the thread's points at i0 + 16 p instead of i0 + p (their offsets from x0 are 16 p h), each starting from 0 or from row[i0 + 16 p]. Invariant: the atom's loads and dy^2 + dz^2 shared by the 8 points; the loop over points unrolled. Mistake to avoid: the check against nx left at i0 + p: the thread's last points lie up to 112 columns further.
  (void)row; (void)initialize;
  // TODO: part 3 of 3, the coalesced stores: row[i0 + 16 p] = the sum, for each point inside the slice. Invariant: at each p the warp's row of 16 threads writes 16 consecutive floats. Mistake to avoid: a point past nx written (the tests' widths are not multiples of 128).
}

}  // namespace

void potential_coalesced_coarsening(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  for_each_constant_chunk(count, [&](int first, int n, bool initialize) {
    if (n > 0) GPU_CHECK(gpuMemcpyToSymbol(chunk, atoms + first, n * sizeof(SliceAtom), 0, gpuMemcpyDeviceToDevice));
    course::launch(coalesced_coarsening_kernel,
                   {dim3(course::blocks_for(slice.nx, kBlock * kPoints), course::blocks_for(slice.ny, kBlock)),
                    dim3(kBlock, kBlock)},
                   n, out, slice, initialize);
  });
}

}  // namespace ch04
