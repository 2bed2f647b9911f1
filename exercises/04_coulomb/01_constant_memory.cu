// Generated from solutions/04_coulomb/01_constant_memory.cu by exercises/generate.py (fingerprint a74a801667b0): edit the TODOs.
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
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 4 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
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
  // TODO: step 00's loop over chunk[0 .. count-1], starting from 0 or from out[at] when this is not the first chunk
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
