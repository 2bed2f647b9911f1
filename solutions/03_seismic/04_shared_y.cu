// Step 04 — shared memory for y: a block stages its rows and their y-halo once.
//
// In step 03 a block of 64 x 4 threads loads 9 rows per output row: each input row is fetched
// by 9 different warps, through L1 if it is still there. Here a block of kTileX x kTileY threads,
// float4 each (128 x 8 points), first copies the (kTileY + 2R) x kTileX float4 tile of its plane
// into shared memory, 16 rows for 8 output rows, two float4 stores per thread, then reads the 9
// rows of its column from the tile: 2 shared stores and 9 shared loads per thread, every one a
// 512-byte warp access of consecutive float4s, 4 wavefronts, the minimum. L1/L2 requests for y
// fall from 9 rows per output row to 16/8 = 2. The cost: 8 KB of shared memory per block and a
// barrier per plane.
// The x pass is step 03's with float4, the z pass step 02's (add_z_window, in 02_sliding_window.cu).
// Predicted: input rows through L1 from 9 to 2 per output row, so the y pass's L1 traffic from 11
// cubes (9 rows of in, out read and written) to about 4; its time unchanged, since step 03's y pass
// already runs near the DRAM bound.
// Your part: the tile load (stage_y_tile, tested on its own) and the kernel around it.
// BEGIN FINDINGS
// Nsight Compute counts about 1.4 bank conflicts per warp on top of the 4 wavefronts an access
// needs, a few percent.
// As predicted: L1 11.0 -> 4.0 cubes, and the y pass 0.407 -> 0.421 ms, 3% longer
// (results/h200/traffic.csv). An earlier version of this header also predicted the y pass's time
// close to the x pass's; that missed (0.421 against 0.263 ms), as the chapter's own bound says it
// must: the y pass moves 12 bytes a point (in, out read, out written), the x pass 8, so at the same
// DRAM rate y takes 1.5x as long; 1.6x is what it took.
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     04_shared_y  laplacian8 512^3  1.4895 ms, 721 GB/s (0.241 of copy), 4505 GFLOP/s (0.076 of FMA)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     04_shared_y  laplacian8 512^3  1.1143 ms, 964 GB/s (0.227 of copy), 6023 GFLOP/s (0.103 of FMA)
// END MEASURED
#include <cstring>

#include "parts.hpp"
#include "steps.hpp"

namespace ch03 {
namespace {

constexpr int kBlockX = 64, kBlockY = 4;  // threads of the x pass
constexpr int kTileX = 32, kTileY = 8;   // threads of the y pass, one float4 each
constexpr int kTileRows = kTileY + 2 * kRadius;
static_assert(kTileRows == parts::kYTileRows && kTileX * 4 == parts::kYTileFloats, "parts.hpp describes this tile");

__device__ void store_inside(float* p, const float4& v, int x0, int dx) {
  if (x0 + 4 <= dx) {
    *reinterpret_cast<float4*>(p) = v;
  } else {
    for (int i = 0; i < 4 && x0 + i < dx; ++i) p[i] = lane(v, i);
  }
}

// Step 03's x pass with float4: out = Dxx(in).
__global__ void x_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z;
  if (x0 >= g.dx || y >= g.dy) return;
  float4 window[3];  // floats x0 - 4 .. x0 + 7
  const auto* source = reinterpret_cast<const float4*>(in + g.at(x0 - kRadius, y, z));
#pragma unroll
  for (int v = 0; v < 3; ++v) window[v] = source[v];
  const float* w = reinterpret_cast<const float*>(window);
  float4 result;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    float sum = 0.0f;
#pragma unroll
    for (int r = 0; r <= 2 * kRadius; ++r) sum += weight(r - kRadius) * w[i + r];
    lane(result, i) = sum;
  }
  store_inside(out + g.at(x0, y, z), result, x0, g.dx);
}

// Part 1 of the exercise, tested on its own (parts.hpp): thread (tx, ty) of the block whose tile
// starts at float x0 - 4 * tx of row y0 - R stages its two rows of plane z's tile.
__host__ __device__ __forceinline__ void stage_y_tile(float4 (&tile)[kTileRows][kTileX], const float* __restrict__ in,
                                                      const Grid& g, const int& x0, int y0, int z, int tx, int ty) {
  // BEGIN SOLUTION: part 1 of 2, the tile load: tile row r holds row y0 - R + r of plane z, rows 0 .. kTileY + 2R - 1, so thread row ty stages rows ty and ty + kTileY (a loop with step kTileY); its column is tx, its float4 starts at x0. Invariant: every row of the tile is written, zeros where x0 >= dx or the row lies past the array (y0 - R + r >= dy + R). Mistake to avoid: starting at row y0 instead of y0 - R, which shifts every output's 9 rows by R.
#pragma unroll
  for (int row = ty; row < kTileRows; row += kTileY) {
    const int source_y = y0 - kRadius + row;
    tile[row][tx] = x0 < g.dx && source_y < g.dy + kRadius
                        ? *reinterpret_cast<const float4*>(in + g.at(x0, source_y, z))
                        : zero<float4>();
  }
  // STUB: (void)tile; (void)in; (void)g; (void)x0; (void)y0; (void)z; (void)tx; (void)ty;
  // END SOLUTION
}

// out += Dyy(in) from a shared tile of the block's rows and their halo.
__global__ void COURSE_LAUNCH_BOUNDS(kTileX* kTileY) y_tile_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  __shared__ float4 tile[kTileRows][kTileX];
  const int x0 = (blockIdx.x * kTileX + threadIdx.x) * 4;
  const int y0 = blockIdx.y * kTileY;
  const int y = y0 + threadIdx.y;
  const int z = blockIdx.z;
  // BEGIN SOLUTION: part 2 of 2, the tile's use: 1. stage the tile (stage_y_tile, part 1); 2. __syncthreads(), so that every row is in place before any thread reads its neighbours' rows; 3. threads inside the interior add the 9 rows of their column, tile rows threadIdx.y .. threadIdx.y + 2R, weighted, to out's float4 and store the lanes inside (store_inside). Invariant: every thread of the block reaches the barrier. Mistake to avoid: returning for threads outside the interior before the barrier (they still stage rows the others read), or reading before it.
  // 1. Stage rows y0 - R .. y0 + kTileY + R - 1: each thread copies rows threadIdx.y and threadIdx.y + kTileY.
  stage_y_tile(tile, in, g, x0, y0, z, threadIdx.x, threadIdx.y);
  // 2. Every row of the tile is in place before any thread reads its neighbours'.
  __syncthreads();
  // 3. Compute.
  if (x0 >= g.dx || y >= g.dy) return;
  float* target = out + g.at(x0, y, z);
  float4 sum = *reinterpret_cast<const float4*>(target);
#pragma unroll
  for (int r = 0; r <= 2 * kRadius; ++r) {
    const float4 row = tile[threadIdx.y + r][threadIdx.x];
#pragma unroll
    for (int i = 0; i < 4; ++i) lane(sum, i) += weight(r - kRadius) * lane(row, i);
  }
  store_inside(target, sum, x0, g.dx);
  // STUB: (void)tile; (void)in; (void)out; (void)g; (void)x0; (void)y; (void)z;
  // END SOLUTION
}

}  // namespace

namespace parts {
std::vector<float> shared_y_tile(const float* in, const Grid& g, int block_x, int block_y, int z) {
  float4 tile[kTileRows][kTileX];
  std::memset(tile, 0xff, sizeof tile);  // the poison: what no thread writes stays NaN
  for (int ty = 0; ty < kTileY; ++ty)
    for (int tx = 0; tx < kTileX; ++tx) stage_y_tile(tile, in, g, (block_x * kTileX + tx) * 4, block_y * kTileY, z, tx, ty);
  const float* first = &tile[0][0].x;
  return std::vector<float>(first, first + kTileRows * kTileX * 4);
}
}  // namespace parts

void laplacian_shared_y(const float* in, float* out, const Grid& grid) {
  require_aligned_rows(grid, 64, "step 04");
  const dim3 block(kBlockX, kBlockY);
  course::launch(x_kernel, {dim3(course::blocks_for(grid.dx, kBlockX * 4), course::blocks_for(grid.dy, kBlockY), grid.dz), block},
                 in, out, grid);
  course::launch(y_tile_kernel,
                 {dim3(course::blocks_for(grid.dx, kTileX * 4), course::blocks_for(grid.dy, kTileY), grid.dz), dim3(kTileX, kTileY)},
                 in, out, grid);
  add_z_window(in, out, grid);
}

}  // namespace ch03
