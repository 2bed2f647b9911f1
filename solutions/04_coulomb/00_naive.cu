// Step 00 — naive: a thread per grid point, the atoms read from global memory. The reference
// point every later step is measured against.
//
// Thread (i, j) of a 16 x 16 block computes V(i, j): for every atom it reads the atom's four
// floats (x, y, dz^2, q) from global memory, and adds q * rsqrt(dx^2 + dy^2 + dz^2). All 32
// threads of a warp read the same atom at the same time, so each load instruction asks for the
// same address in all 32 threads: one piece of one 32-byte sector, served by L1 after its first
// trip. Every evaluation costs the atom's loads, two subtractions, the squared distance, the
// reciprocal square root and one FMA.
// Predicted: the reciprocal square roots (one per evaluation, on the multi-function unit, an
// eighth of the rate of the FMA pipe's adds and multiplies) set the pace, and the loads and the address
// arithmetic beside them take issue slots: well under the rsqrt ceiling, perhaps half of it.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     00_naive  512x512, 10000 atoms     1.3882 ms, 1 GB/s (0.000 of copy), 9442 GFLOP/s (0.160 of FMA), 1888 Grsqrt/s (0.460 of rsqrt)
//     00_naive  2048x2048, 100000 atoms  215.1953 ms, 0 GB/s (0.000 of copy), 9745 GFLOP/s (0.165 of FMA), 1949 Grsqrt/s (0.475 of rsqrt)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     00_naive  512x512, 10000 atoms     1.3882 ms, 1 GB/s (0.000 of copy), 9442 GFLOP/s (0.161 of FMA), 1888 Grsqrt/s (0.459 of rsqrt)
//     00_naive  2048x2048, 100000 atoms  215.5813 ms, 0 GB/s (0.000 of copy), 9728 GFLOP/s (0.166 of FMA), 1946 Grsqrt/s (0.473 of rsqrt)
// END MEASURED
#include "steps.hpp"

namespace ch04 {
namespace {

constexpr int kBlock = 16;

__global__ void naive_kernel(const SliceAtom* __restrict__ atoms, int count, float* __restrict__ out, Slice s) {
  const int i = blockIdx.x * kBlock + threadIdx.x;
  const int j = blockIdx.y * kBlock + threadIdx.y;
  if (i >= s.nx || j >= s.ny) return;
  const float x = i * s.spacing, y = j * s.spacing;
  float potential = 0.0f;
  for (int k = 0; k < count; ++k) {
    const float dx = x - atoms[k].x, dy = y - atoms[k].y;
    potential += atoms[k].q * rsqrtf(dx * dx + dy * dy + atoms[k].dz2);
  }
  out[static_cast<long long>(j) * s.nx + i] = potential;
}

}  // namespace

void potential_naive(const SliceAtom* atoms, int count, float* out, const Slice& slice) {
  course::launch(naive_kernel,
                 {dim3(course::blocks_for(slice.nx, kBlock), course::blocks_for(slice.ny, kBlock)), dim3(kBlock, kBlock)},
                 atoms, count, out, slice);
}

}  // namespace ch04
