// Step 02 — a sliding window in z: the z pass reads each input value once.
//
// In step 00 every z-neighbour is a separate load from a plane up to 4 MB away (512^3): the nine
// planes (12 MB at 512^3, rows padded to a pitch of 640 floats) fit in the H200's L2, so DRAM sees each value once, but every output issues
// nine loads that the L1 misses and the L2 serves, 10 cubes of L2 reads. Here a thread owns an (x, y) column over kPlanes planes and keeps the 2R+1 = 9 values
// of its column in registers: it loads the plane R ahead, computes, and shifts the window by one.
// Each input value is loaded once per column chunk, plus the 2R planes around the chunk that
// two neighbouring chunks share: 8/64 = 12.5% more input reads at kPlanes = 64.
// The x and y passes are step 01's.
// Predicted: the z pass from the slowest to near the copy rate for its 12 bytes per point
// (read in, read out, write out); the three passes together near 8/32 of the copy rate.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     02_sliding_window  laplacian8 512^3  1.7730 ms, 606 GB/s (0.202 of copy), 3785 GFLOP/s (0.064 of FMA)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     02_sliding_window  laplacian8 512^3  1.4828 ms, 724 GB/s (0.171 of copy), 4526 GFLOP/s (0.077 of FMA)
// END MEASURED
#include "steps.hpp"

namespace ch03 {
namespace {

constexpr int kBlockX = 64, kBlockY = 4;
constexpr int kPlanes = 64;  // z-planes per thread

// Step 00's x (kAxis 0, writes out) and y (kAxis 1, adds to out) passes.
template <int kAxis>
__global__ void axis_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z;
  if (x >= g.dx || y >= g.dy) return;
  float sum = 0.0f;
#pragma unroll
  for (int i = -kRadius; i <= kRadius; ++i) sum += weight(i) * in[g.at(x + (kAxis == 0 ? i : 0), y + (kAxis == 1 ? i : 0), z)];
  if (kAxis == 0) {
    out[g.at(x, y, z)] = sum;
  } else {
    out[g.at(x, y, z)] += sum;
  }
}

// Adds Dzz to out over planes blockIdx.z * kPlanes .. + kPlanes - 1 of column (x, y).
__global__ void z_window_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // BEGIN SOLUTION: the register window: a thread owns column (x, y) over planes z_begin .. z_end - 1 and keeps 2R + 1 of its values in registers: prime window[0 .. 2R - 1] with planes z_begin - R .. z_begin + R - 1; then per plane z load plane z + R into window[2R], add sum over r of weight(r - R) * window[r] to out(x, y, z), and shift (window[r] = window[r + 1]). Invariant: at plane z, window[r] holds plane z - R + r, so each input value is loaded once per chunk. Mistake to avoid: shifting before the sum, or priming 2R + 1 planes and loading plane z + R again.
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= g.dx || y >= g.dy) return;
  const int z_begin = blockIdx.z * kPlanes;
  const int z_end = min(g.dz, z_begin + kPlanes);
  const float* column = in + g.at(x, y, 0);
  float window[2 * kRadius + 1];
  // 1. Prime the window with the planes below the first output.
#pragma unroll
  for (int r = 0; r < 2 * kRadius; ++r) window[r] = column[(z_begin - kRadius + r) * g.plane];
  for (int z = z_begin; z < z_end; ++z) {
    // 2. Load the plane R ahead.
    window[2 * kRadius] = column[(z + kRadius) * g.plane];
    // 3. Compute.
    float sum = 0.0f;
#pragma unroll
    for (int r = 0; r <= 2 * kRadius; ++r) sum += weight(r - kRadius) * window[r];
    out[g.at(x, y, z)] += sum;
    // 4. Shift the window up by one plane.
#pragma unroll
    for (int r = 0; r < 2 * kRadius; ++r) window[r] = window[r + 1];
  }
  // STUB: (void)in; (void)out; (void)g;
  // END SOLUTION
}

}  // namespace

void add_z_window(const float* in, float* out, const Grid& grid) {
  course::launch(z_window_kernel,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY), course::blocks_for(grid.dz, kPlanes)),
                  dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

void laplacian_sliding_window(const float* in, float* out, const Grid& grid) {
  require_aligned_rows(grid, 64, "step 02");
  const dim3 block(kBlockX, kBlockY);
  const dim3 plane_blocks(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY));
  course::launch(axis_kernel<0>, {dim3(plane_blocks.x, plane_blocks.y, grid.dz), block}, in, out, grid);
  course::launch(axis_kernel<1>, {dim3(plane_blocks.x, plane_blocks.y, grid.dz), block}, in, out, grid);
  add_z_window(in, out, grid);
}

}  // namespace ch03
