// Step 03 — vectors: each thread of the x and y passes handles kVec = 1, 2 or 4 neighbouring
// x points with float, float2 or float4 loads and stores.
//
// The x pass keeps a register window of 2R + kVec floats (R = 4 each side, a multiple of every
// kVec, so the window is whole vectors): (2R + kVec) / kVec loads give kVec outputs, 3 float4
// loads for 4 points where step 02 issued 9 scalar loads per point. The y pass loads a vector
// from each of the 9 rows. Fewer, wider instructions: a warp's float4 load asks for 512 bytes
// at once, so fewer loads are needed to keep the same bytes in flight.
// Outputs past dx are never stored: the last vector of a row stores lane by lane. The z pass is
// step 02's sliding window (add_z_window, in 02_sliding_window.cu), or (variants _z2 and _z4,
// after the x and y passes on float4) the same window on 2 or 4 neighbouring columns a thread: step 02's z pass has one 4-byte load of
// in and one of out in flight per thread, 15.4 KB of loads an SM at 94% of the warps resident (23.1 KB
// counted as DRAM traffic, NOTES.md's "Bytes in flight"), which may be too few for the H200's DRAM;
// float4 columns put 32 bytes in flight per thread.
// Predicted: the x and y passes move the same bytes with a quarter of the load instructions;
// where step 02's x and y passes were issue-bound this helps, at the DRAM bound it cannot. The
// z pass on float2 / float4 columns, at about 40 / 60 registers and fewer warps resident (75% /
// 50%), still 1.6x / 2.1x the bytes in flight per SM: from 0.89 to about 0.91 / 0.94 of the copy rate.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     03_vectors_1     laplacian8 512^3  1.7749 ms, an experiment, 605 GB/s (0.202 of copy), 3781 GFLOP/s (0.064 of FMA)
//     03_vectors_2     laplacian8 512^3  1.5350 ms, an experiment, 699 GB/s (0.233 of copy), 4372 GFLOP/s (0.074 of FMA)
//     03_vectors_4     laplacian8 512^3  1.4841 ms, 723 GB/s (0.241 of copy), 4522 GFLOP/s (0.077 of FMA)
//     03_vectors_4_z2  laplacian8 512^3  1.4786 ms, an experiment, 726 GB/s (0.242 of copy), 4539 GFLOP/s (0.077 of FMA)
//     03_vectors_4_z4  laplacian8 512^3  1.4708 ms, an experiment, 730 GB/s (0.244 of copy), 4563 GFLOP/s (0.077 of FMA)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     03_vectors_1     laplacian8 512^3  1.4842 ms, an experiment, 723 GB/s (0.171 of copy), 4521 GFLOP/s (0.077 of FMA)
//     03_vectors_2     laplacian8 512^3  1.1625 ms, an experiment, 924 GB/s (0.218 of copy), 5773 GFLOP/s (0.098 of FMA)
//     03_vectors_4     laplacian8 512^3  1.1019 ms, 974 GB/s (0.230 of copy), 6090 GFLOP/s (0.104 of FMA)
//     03_vectors_4_z2  laplacian8 512^3  1.0865 ms, an experiment, 988 GB/s (0.233 of copy), 6177 GFLOP/s (0.105 of FMA)
//     03_vectors_4_z4  laplacian8 512^3  1.0650 ms, an experiment, 1008 GB/s (0.238 of copy), 6301 GFLOP/s (0.107 of FMA)
// END MEASURED
// BEGIN FINDINGS
// The z pass alone (Nsight Compute): step 02's window 0.425 ms, 3.77 TB/s of HBM (0.89 of the
// copy; results/h200/traffic.csv). The z pass on columns was profiled on the H200 only in the
// previous recording (a4744eb8f0e5, its files at commit 1c9ea96): float2 columns 0.409 ms, 3.97 TB/s
// (0.93), 36 registers, 70% resident; float4 columns 0.387 ms, 4.23 TB/s (0.99), 54 registers, 48%.
// END FINDINGS
#include "steps.hpp"

namespace ch03 {
namespace {

constexpr int kBlockX = 64, kBlockY = 4;  // threads
constexpr int kPlanes = 64;              // z-planes per thread of the z pass

// Stores lanes x0.. of v that are inside the interior (x < dx) at p (the lane x0's address).
template <int kVec>
__device__ void store_inside(float* p, const Vec<kVec>& v, int x0, int dx) {
  if (x0 + kVec <= dx) {
    *reinterpret_cast<Vec<kVec>*>(p) = v;
  } else {
    for (int i = 0; i < kVec && x0 + i < dx; ++i) p[i] = lane(v, i);
  }
}

// out = Dxx(in) at kVec points per thread.
template <int kVec>
__global__ void x_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // BEGIN SOLUTION: the x register window: the thread's kVec points start at x0 = kVec * (its x index); load the 2R + kVec floats x0 - R .. x0 + kVec + R - 1 as (2R + kVec) / kVec whole vectors (R is a multiple of kVec, so every vector is aligned), then output lane i sums window floats i .. i + 2R, weighted by weight(r - R). Invariant: one load a vector, no float loaded twice. Mistake to avoid: storing a whole vector past dx (store_inside stores the last vector of a row lane by lane).
  static_assert(kRadius % kVec == 0, "the window must be whole vectors");
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * kVec;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z;
  if (x0 >= g.dx || y >= g.dy) return;
  constexpr int kWindowVecs = (2 * kRadius + kVec) / kVec;
  Vec<kVec> window[kWindowVecs];  // floats x0 - R .. x0 + kVec + R - 1
  const auto* source = reinterpret_cast<const Vec<kVec>*>(in + g.at(x0 - kRadius, y, z));
#pragma unroll
  for (int v = 0; v < kWindowVecs; ++v) window[v] = source[v];
  const float* w = reinterpret_cast<const float*>(window);
  Vec<kVec> result;
#pragma unroll
  for (int i = 0; i < kVec; ++i) {
    float sum = 0.0f;
#pragma unroll
    for (int r = 0; r <= 2 * kRadius; ++r) sum += weight(r - kRadius) * w[i + r];
    lane(result, i) = sum;
  }
  store_inside<kVec>(out + g.at(x0, y, z), result, x0, g.dx);
  // STUB: (void)in; (void)out; (void)g;
  // END SOLUTION
}

// out += Dyy(in) at kVec points per thread.
template <int kVec>
__global__ void y_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // BEGIN SOLUTION: the y pass on vectors: read out's vector at (x0, y), add weight(r) times the vector of row y + r for r = -R .. R, lane by lane, and store the lanes inside (store_inside). Invariant: every load and store is a whole vector of kVec floats. Mistake to avoid: overwriting out instead of adding to it (the x pass wrote Dxx there).
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * kVec;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z;
  if (x0 >= g.dx || y >= g.dy) return;
  float* target = out + g.at(x0, y, z);
  Vec<kVec> sum = *reinterpret_cast<const Vec<kVec>*>(target);
#pragma unroll
  for (int r = -kRadius; r <= kRadius; ++r) {
    const Vec<kVec> row = *reinterpret_cast<const Vec<kVec>*>(in + g.at(x0, y + r, z));
#pragma unroll
    for (int i = 0; i < kVec; ++i) lane(sum, i) += weight(r) * lane(row, i);
  }
  store_inside<kVec>(target, sum, x0, g.dx);
  // STUB: (void)in; (void)out; (void)g;
  // END SOLUTION
}

// out += Dzz(in): step 02's window, on kVec neighbouring columns at once. Each plane costs a
// thread one vector load of in and one of out, so a warp has kVec times the bytes in flight.
template <int kVec>
__global__ void z_vector_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // BEGIN SOLUTION: step 02's window on kVec neighbouring columns: each of its 2R + 1 values is a vector; prime, then per plane load the vector R ahead, read out's vector, add the weighted window lane by lane, store the lanes inside, shift. Invariant: window[r] holds plane z - R + r of all kVec columns. Mistake to avoid: a window of floats indexed by lane (it must stay 2R + 1 vectors in registers).
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * kVec;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x0 >= g.dx || y >= g.dy) return;
  const int z_begin = blockIdx.z * kPlanes;
  const int z_end = min(g.dz, z_begin + kPlanes);
  const float* column = in + g.at(x0, y, 0);
  const auto plane_of = [&](int z) { return *reinterpret_cast<const Vec<kVec>*>(column + z * g.plane); };
  Vec<kVec> window[2 * kRadius + 1];
#pragma unroll
  for (int r = 0; r < 2 * kRadius; ++r) window[r] = plane_of(z_begin - kRadius + r);
  for (int z = z_begin; z < z_end; ++z) {
    window[2 * kRadius] = plane_of(z + kRadius);
    float* target = out + g.at(x0, y, z);
    Vec<kVec> sum = *reinterpret_cast<const Vec<kVec>*>(target);
#pragma unroll
    for (int r = 0; r <= 2 * kRadius; ++r)
#pragma unroll
      for (int i = 0; i < kVec; ++i) lane(sum, i) += weight(r - kRadius) * lane(window[r], i);
    store_inside<kVec>(target, sum, x0, g.dx);
#pragma unroll
    for (int r = 0; r < 2 * kRadius; ++r) window[r] = window[r + 1];
  }
  // STUB: (void)in; (void)out; (void)g;
  // END SOLUTION
}

// The x and y passes on kVec floats a thread; the z pass on kZVec columns a thread (1: step 02's).
template <int kVec, int kZVec = 1>
void laplacian_vectors(const float* in, float* out, const Grid& grid) {
  require_aligned_rows(grid, 64, "step 03");
  const dim3 block(kBlockX, kBlockY);
  const dim3 vector_blocks(course::blocks_for(grid.dx, kBlockX * kVec), course::blocks_for(grid.dy, kBlockY), grid.dz);
  course::launch(x_kernel<kVec>, {vector_blocks, block}, in, out, grid);
  course::launch(y_kernel<kVec>, {vector_blocks, block}, in, out, grid);
  if constexpr (kZVec == 1) {
    add_z_window(in, out, grid);
  } else {
    const dim3 z_blocks(course::blocks_for(grid.dx, kBlockX * kZVec), course::blocks_for(grid.dy, kBlockY),
                        course::blocks_for(grid.dz, kPlanes));
    course::launch(z_vector_kernel<kZVec>, {z_blocks, block}, in, out, grid);
  }
}

}  // namespace

void laplacian_vectors_1(const float* in, float* out, const Grid& grid) { laplacian_vectors<1>(in, out, grid); }
void laplacian_vectors_2(const float* in, float* out, const Grid& grid) { laplacian_vectors<2>(in, out, grid); }
void laplacian_vectors_4(const float* in, float* out, const Grid& grid) { laplacian_vectors<4>(in, out, grid); }
void laplacian_vectors_4_z2(const float* in, float* out, const Grid& grid) { laplacian_vectors<4, 2>(in, out, grid); }
void laplacian_vectors_4_z4(const float* in, float* out, const Grid& grid) { laplacian_vectors<4, 4>(in, out, grid); }

}  // namespace ch03
