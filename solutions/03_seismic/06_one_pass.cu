// Step 06 — one pass: x, y and z in one kernel that reads the field once and writes it once.
//
// A block of kTileX x kTileY threads (float4 each: 128 x 8 points) walks up kPlanes z-planes.
// For every plane p it stages the y tile (step 05) and computes xy(p) = Dxx + Dyy there; the
// centre float4 of each plane also enters a z window of 2R+1 registers (step 02). The output of
// plane p needs the planes up to p + R, so the thread runs R planes ahead: xy(p) waits in a
// queue of R+1 registers until plane p + R has arrived, then out(p) = xy(p) + Dzz is stored
// (streaming). Planes z_begin - R .. z_begin - 1 only fill the z window (their centres);
// planes z_end .. z_end + R - 1 as well.
// Bytes per point at best: 8 (read once, write once). The 2R planes of centres that two z-chunks
// share and the y-halo rows that two tiles share are read twice, from L2 when they hit there:
// L2 reads per point 1 + 2R / kPlanes plus the halo rows, DRAM reads 1. The read/write ratio
// approaches 1 as kPlanes grows; fewer, longer blocks fill the GPU less, so the time does not
// fall forever.
// Predicted: 20 -> 8 bytes per point against step 05 (2.5x at the same bandwidth), 4x
// against the three passes; the fused kernel's registers (9 + 5 float4 + the x window) limit
// occupancy, and with it the bytes in flight.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     06_one_pass_16   laplacian8 512^3  1.0657 ms, an experiment, 1008 GB/s (0.336 of copy), 6297 GFLOP/s (0.107 of FMA)
//     06_one_pass_64   laplacian8 512^3  1.0745 ms, 999 GB/s (0.333 of copy), 6245 GFLOP/s (0.106 of FMA)
//     06_one_pass_256  laplacian8 512^3  1.0805 ms, an experiment, 994 GB/s (0.332 of copy), 6211 GFLOP/s (0.105 of FMA)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     06_one_pass_16   laplacian8 512^3  1.0045 ms, an experiment, 1069 GB/s (0.252 of copy), 6681 GFLOP/s (0.114 of FMA)
//     06_one_pass_64   laplacian8 512^3  1.0067 ms, 1067 GB/s (0.252 of copy), 6666 GFLOP/s (0.113 of FMA)
//     06_one_pass_256  laplacian8 512^3  1.0126 ms, an experiment, 1060 GB/s (0.250 of copy), 6627 GFLOP/s (0.113 of FMA)
// END MEASURED
#include "steps.hpp"

namespace ch03 {
namespace {

constexpr int kTileX = 32, kTileY = 8;  // threads, one float4 each
constexpr int kTileRows = kTileY + 2 * kRadius;

template <int kPlanes>
__global__ void COURSE_LAUNCH_BOUNDS(kTileX* kTileY) one_pass_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  __shared__ float4 tile[kTileRows][kTileX];
  const int x0 = (blockIdx.x * kTileX + threadIdx.x) * 4;
  const int y0 = blockIdx.y * kTileY;
  const int y = y0 + threadIdx.y;
  const bool inside = x0 < g.dx && y < g.dy;
  const int z_begin = blockIdx.z * kPlanes;
  const int z_end = min(g.dz, z_begin + kPlanes);

  // The block walks planes z_begin - R .. z_end + R - 1: the R planes on each side of its chunk
  // only feed the z window (their centres); a plane of the chunk also gets its y tile and xy.
  float4 window[2 * kRadius + 1];  // the centres of planes p - 2R .. p
  float4 queue[kRadius + 1];       // xy of planes p - R .. p
  for (int p = z_begin - kRadius; p < z_end + kRadius; ++p) {
    float4 centre = zero<float4>();
    queue[kRadius] = zero<float4>();
    if (p >= z_begin && p < z_end) {
      // BEGIN SOLUTION: part 1 of 3, the tile of plane p: step 04's tile load (rows threadIdx.y and threadIdx.y + kTileY of the tile, from rows y0 - R + row of plane p; zeros past the array), between two __syncthreads(): the first because the previous plane's tile may still be read, the second because every row must be in place before anyone reads it. Invariant: every thread of the block reaches both barriers (this branch is the same in every thread). Mistake to avoid: dropping the first barrier, which passes in step 04 (one plane a block) but not here.
      // 1. Stage the y tile of plane p (the same branch in every thread of the block).
      __syncthreads();  // the previous plane's tile has been read
#pragma unroll
      for (int row = threadIdx.y; row < kTileRows; row += kTileY) {
        const int source_y = y0 - kRadius + row;
        tile[row][threadIdx.x] = x0 < g.dx && source_y < g.dy + kRadius
                                     ? *reinterpret_cast<const float4*>(in + g.at(x0, source_y, p))
                                     : zero<float4>();
      }
      __syncthreads();
      // END SOLUTION
      // BEGIN SOLUTION: part 2 of 3, xy(p) into the queue: for a thread inside, centre = its float4 of tile row threadIdx.y + R; the x window is the float4 at x0 - 4, the centre and the float4 at x0 + 4 (global loads, L1 hits); lane i of queue[R] = sum over r = 0 .. 2R of weight(r - R) * (window float i + r + lane i of tile row threadIdx.y + r), as in step 05. Invariant: queue[R] holds xy(p) and `centre` plane p's centre, zeros for threads outside. Mistake to avoid: storing xy(p) to out now: out(p) still lacks its z neighbours above, planes p + 1 .. p + R.
      // 2. xy(p), x from the centre and its two neighbouring float4s.
      if (inside) {
        const float* row = in + g.at(x0, y, p);
        centre = tile[threadIdx.y + kRadius][threadIdx.x];
        const float4 x_window[3] = {*reinterpret_cast<const float4*>(row - 4), centre,
                                    *reinterpret_cast<const float4*>(row + 4)};
        const float* w = reinterpret_cast<const float*>(x_window);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          float s = 0.0f;
#pragma unroll
          for (int r = 0; r <= 2 * kRadius; ++r) s += weight(r - kRadius) * (w[i + r] + lane(tile[threadIdx.y + r][threadIdx.x], i));
          lane(queue[kRadius], i) = s;
        }
      }
      // END SOLUTION
    } else if (inside) {
      // Planes below and above the chunk: only their centres, for the z window.
      centre = *reinterpret_cast<const float4*>(in + g.at(x0, y, p));
    }
    window[2 * kRadius] = centre;
    // BEGIN SOLUTION: part 3 of 3, out(p - R) and the shift: once p - R >= z_begin (and the thread is inside), plane p - R has all its z neighbours: out(p - R) = queue[0] + sum over r of weight(r - R) * window[r], lane by lane, stored with course::store_streaming (lane by lane past dx); then shift the window (window[r] = window[r + 1]) and the queue (queue[r] = queue[r + 1]) by one plane. Invariant: at the top of iteration p, window[r] is the centre of plane p - 2R + r and queue[q] is xy(p - R + q). Mistake to avoid: queue[R] or window[R] as out(p - R)'s xy or centre term (they belong to plane p), or shifting before the store.
    // 3. Plane p - R has all its z neighbours: out = xy + Dzz.
    if (inside && p - kRadius >= z_begin) {
      float4 sum = queue[0];
#pragma unroll
      for (int r = 0; r <= 2 * kRadius; ++r)
#pragma unroll
        for (int i = 0; i < 4; ++i) lane(sum, i) += weight(r - kRadius) * lane(window[r], i);
      float* target = out + g.at(x0, y, p - kRadius);
      if (x0 + 4 <= g.dx) {
        course::store_streaming(reinterpret_cast<float4*>(target), sum);
      } else {
        for (int i = 0; i < 4 && x0 + i < g.dx; ++i) course::store_streaming(target + i, lane(sum, i));
      }
    }
    // 4. Shift the window and the queue by one plane.
#pragma unroll
    for (int r = 0; r < 2 * kRadius; ++r) window[r] = window[r + 1];
#pragma unroll
    for (int r = 0; r < kRadius; ++r) queue[r] = queue[r + 1];
    // STUB: (void)out;
    // END SOLUTION
  }
}

template <int kPlanes>
void laplacian_one_pass(const float* in, float* out, const Grid& grid) {
  require_aligned_rows(grid, 64, "step 06");
  course::launch(one_pass_kernel<kPlanes>,
                 {dim3(course::blocks_for(grid.dx, kTileX * 4), course::blocks_for(grid.dy, kTileY), course::blocks_for(grid.dz, kPlanes)),
                  dim3(kTileX, kTileY)},
                 in, out, grid);
}

}  // namespace

void laplacian_one_pass_16(const float* in, float* out, const Grid& grid) { laplacian_one_pass<16>(in, out, grid); }
void laplacian_one_pass_64(const float* in, float* out, const Grid& grid) { laplacian_one_pass<64>(in, out, grid); }
void laplacian_one_pass_256(const float* in, float* out, const Grid& grid) { laplacian_one_pass<256>(in, out, grid); }

}  // namespace ch03
