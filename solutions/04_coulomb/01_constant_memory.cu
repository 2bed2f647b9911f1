// Step 01 — constant memory: the atoms are read through the constant cache.
//
// Every thread of a warp reads the same atom at the same moment: the access that the constant
// cache is built for. A read of __constant__ memory with one address for the whole warp is
// served in one transaction and broadcast to the 32 threads; with 32 different addresses it
// would be served 32 times over (this kernel never does that). Constant memory is 64 KB, 4096
// atoms: the atoms go in chunks (for_each_constant_chunk), one copy into the __constant__ array
// and one launch per chunk; the first launch writes the output, the later ones add to it.
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
  // BEGIN SOLUTION: step 00's loop over chunk[0 .. count-1], starting from 0 or from out[at] when this is not the first chunk
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

void potential_constant_memory(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  for_each_constant_chunk(count, [&](int first, int n, bool initialize) {
    if (n > 0) GPU_CHECK(gpuMemcpyToSymbol(chunk, atoms + first, n * sizeof(SliceAtom), 0, gpuMemcpyDeviceToDevice));
    course::launch(constant_memory_kernel,
                   {dim3(course::blocks_for(slice.nx, kBlock), course::blocks_for(slice.ny, kBlock)), dim3(kBlock, kBlock)},
                   n, out, slice, initialize);
  });
}

}  // namespace ch04
