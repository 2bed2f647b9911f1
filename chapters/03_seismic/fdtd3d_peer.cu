// FDTD3d's design in the course's code (fdtd3d_peer.hpp).
#include "fdtd3d_peer.hpp"

namespace ch03 {
namespace {

constexpr int kBlockX = 32, kBlockY = 16;  // threads, one float each

__global__ void COURSE_LAUNCH_BOUNDS(kBlockX* kBlockY) fdtd3d_design_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  __shared__ float tile[kBlockY + 2 * kRadius][kBlockX + 2 * kRadius];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * kBlockX + tx, y = blockIdx.y * kBlockY + ty;
  const bool inside = x < g.dx && y < g.dy;
  // A value of plane z at (sx, sy) if it lies in the haloed plane, else 0 (it feeds no stored output).
  auto at = [&](int sx, int sy, int z) {
    return sx < g.dx + kRadius && sy < g.dy + kRadius ? in[g.at(sx, sy, z)] : 0.0f;
  };
  float behind[kRadius], current, infront[kRadius];  // planes z-1 .. z-R, z, z+1 .. z+R
#pragma unroll
  for (int k = 0; k < kRadius; ++k) {
    behind[k] = at(x, y, -1 - k);
    infront[k] = at(x, y, 1 + k);
  }
  current = at(x, y, 0);
  for (int z = 0; z < g.dz; ++z) {
    if (z > 0) {  // advance the column by one plane
#pragma unroll
      for (int k = kRadius - 1; k > 0; --k) behind[k] = behind[k - 1];
      behind[0] = current;
      current = infront[0];
#pragma unroll
      for (int k = 0; k + 1 < kRadius; ++k) infront[k] = infront[k + 1];
      infront[kRadius - 1] = at(x, y, z + kRadius);
    }
    __syncthreads();  // the previous plane's tile has been read
    tile[ty + kRadius][tx + kRadius] = current;
    if (ty < kRadius) {
      tile[ty][tx + kRadius] = at(x, y - kRadius, z);
      tile[ty + kBlockY + kRadius][tx + kRadius] = at(x, y + kBlockY, z);
    }
    if (tx < kRadius) {
      tile[ty + kRadius][tx] = at(x - kRadius, y, z);
      tile[ty + kRadius][tx + kBlockX + kRadius] = at(x + kBlockX, y, z);
    }
    __syncthreads();
    if (inside) {
      float sum = 3 * weight(0) * current;
#pragma unroll
      for (int r = 1; r <= kRadius; ++r)
        sum += weight(r) * (tile[ty + kRadius][tx + kRadius - r] + tile[ty + kRadius][tx + kRadius + r] +
                            tile[ty + kRadius - r][tx + kRadius] + tile[ty + kRadius + r][tx + kRadius] +
                            behind[r - 1] + infront[r - 1]);
      out[g.at(x, y, z)] = sum;
    }
  }
}

}  // namespace

void laplacian_fdtd3d_design(const float* in, float* out, const Grid& grid) {
  require_aligned_rows(grid, 64, "the FDTD3d design");
  course::launch(fdtd3d_design_kernel,
                 {dim3(course::blocks_for(grid.dx, kBlockX), course::blocks_for(grid.dy, kBlockY)), dim3(kBlockX, kBlockY)},
                 in, out, grid);
}

}  // namespace ch03
