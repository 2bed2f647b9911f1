// Step 01 — constant memory: the atoms are read through the constant cache.
//
// Every thread of a warp reads the same atom at the same moment: the access that the constant
// cache is built for. A read of __constant__ memory with one address for the whole warp is
// served in one transaction and broadcast to the 32 threads; with 32 different addresses it
// would be served 32 times over (this kernel never does that). Constant memory is 64 KB, 4096
// atoms: the atoms go in chunks (the chunk plan, constant_chunks), one copy into the __constant__
// array and one launch per chunk; the first launch writes the output, the later ones add to it.
// (The later steps that use constant memory are given the same plan, coulomb.hpp's
// for_each_constant_chunk.)
// Predicted: the loads leave the L1 path for the constant cache, which needs no address
// registers or separate load instructions for the uniform index; some of step 00's issue slots
// come back, perhaps 10-20%. A few more launches and copies per run (3 for 10,000 atoms) cost
// microseconds.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     01_constant_memory  512x512, 10000 atoms     9.3828 ms, 0 GB/s (0.000 of copy), 1397 GFLOP/s (0.024 of FMA), 279 Grsqrt/s (0.068 of rsqrt)
//     01_constant_memory  2048x2048, 100000 atoms  1779.2052 ms, 0 GB/s (0.000 of copy), 1179 GFLOP/s (0.020 of FMA), 236 Grsqrt/s (0.057 of rsqrt)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     01_constant_memory  512x512, 10000 atoms     9.3500 ms, 0 GB/s (0.000 of copy), 1402 GFLOP/s (0.024 of FMA), 280 Grsqrt/s (0.068 of rsqrt)
//     01_constant_memory  2048x2048, 100000 atoms  1775.8894 ms, 0 GB/s (0.000 of copy), 1181 GFLOP/s (0.020 of FMA), 236 Grsqrt/s (0.057 of rsqrt)
// END MEASURED
#include <vector>

#include "parts.hpp"
#include "steps.hpp"

namespace ch04 {
namespace {

constexpr int kBlock = 16;

__constant__ SliceAtom chunk[kConstantAtoms];

__global__ void constant_memory_kernel(int count, float* __restrict__ out, Slice s, bool initialize) {
  const int i = blockIdx.x * kBlock + threadIdx.x;
  const int j = blockIdx.y * kBlock + threadIdx.y;
  if (i >= s.nx || j >= s.ny) return;
  const long long at = static_cast<long long>(j) * s.nx + i;
  // BEGIN SOLUTION: part 1 of 3, the sum over one chunk: step 00's loop, over chunk[0 .. count - 1] (the __constant__ array, which the host filled) instead of the atoms in global memory, starting from 0 for the first chunk (initialize) and from out[at], the earlier chunks' sum, for the others. Invariant: every point of the slice written once per launch, the sum carried from launch to launch in the output itself. Mistake to avoid: always starting from 0, which keeps only the last chunk's atoms (the tests use 4097 and 8193 atoms), or reading out[at] in the first launch, where it holds garbage.
  const float x = i * s.spacing, y = j * s.spacing;
  float potential = initialize ? 0.0f : out[at];
  for (int k = 0; k < count; ++k) {
    const float dx = x - chunk[k].x, dy = y - chunk[k].y;
    potential += chunk[k].q * rsqrtf(dx * dx + dy * dy + chunk[k].dz2);
  }
  out[at] = potential;
  // END SOLUTION
}

}  // namespace

// The chunks, in order: chunk c holds atoms [first, first + count) and writes the output
// (initialize) if it is the first, else adds to it.
std::vector<parts::ConstantChunk> parts::constant_chunks(int count, int atoms_per_chunk) {
  std::vector<ConstantChunk> plan;
  // BEGIN SOLUTION: part 2 of 3, the chunk plan: cut the count atoms into consecutive chunks of atoms_per_chunk, the last one shorter (the tail), each as {first, count, initialize}, initialize true only for the first. Invariant: every atom in exactly one chunk, in order; and at least one chunk even with no atoms at all, {0, 0, true}, so that the output is still written (with zeros). Mistake to avoid: count / atoms_per_chunk chunks, which drops the tail (4097 atoms make 2 chunks of 4096, not 1), or no chunk for 0 atoms; its own test checks the plan for counts around the chunk size.
  int first = 0;
  do {
    const int n = count - first < atoms_per_chunk ? count - first : atoms_per_chunk;
    plan.push_back({first, n, first == 0});
    first += n;
  } while (first < count);
  // STUB: (void)count; (void)atoms_per_chunk;
  // END SOLUTION
  return plan;
}

void potential_constant_memory(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  for (const parts::ConstantChunk& c : parts::constant_chunks(count, kConstantAtoms)) {
    // BEGIN SOLUTION: part 3 of 3, one chunk's copy and launch: copy the chunk's atoms (from atoms + c.first, c.count of them) into the __constant__ array `chunk` with gpuMemcpyToSymbol (device to device: the atoms are in device memory), then launch constant_memory_kernel over the slice, one thread a point in 16 x 16 blocks, with the chunk's count and initialize. Invariant: the copy and the launch on the same stream, in order, so that a launch reads its own chunk and the next copy waits for it; every call checked (GPU_CHECK; course::launch checks its launch). Mistake to avoid: copying count atoms instead of the chunk's, which overruns the 64 KB array, or a copy of no atoms (0 atoms: launch only).
    if (c.count > 0) GPU_CHECK(gpuMemcpyToSymbol(chunk, atoms + c.first, c.count * sizeof(SliceAtom), 0, gpuMemcpyDeviceToDevice));
    course::launch(constant_memory_kernel,
                   {dim3(course::blocks_for(slice.nx, kBlock), course::blocks_for(slice.ny, kBlock)), dim3(kBlock, kBlock)},
                   c.count, out, slice, c.initialize);
    // STUB: (void)c; (void)atoms; (void)count; (void)out; (void)slice;
    // END SOLUTION
  }
}

}  // namespace ch04
