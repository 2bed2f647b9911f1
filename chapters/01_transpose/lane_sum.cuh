// Sums one value per lane over the 32 lanes (threadIdx.x) of each row (threadIdx.y) of a
// 32 x blockDim.y block, through shared memory and barriers rather than warp shuffles so that it
// runs on every backend. The tree is fixed, so kernels that feed it the same per-lane partial sums
// get bit-identical results. Every thread of the block must call it (it holds barriers).
#pragma once

#include "course/gpu.hpp"

namespace ch01 {

inline constexpr int kLanes = 32;
inline constexpr int kMaxLaneRows = 32;  // blockDim.y <= 32

__device__ inline float lane_sum(float value) {
  __shared__ float partials[kMaxLaneRows][kLanes];
  float* row = partials[threadIdx.y];
  row[threadIdx.x] = value;
  __syncthreads();
  for (int stride = kLanes / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) row[threadIdx.x] += row[threadIdx.x + stride];
    __syncthreads();
  }
  const float total = row[0];
  __syncthreads();  // everyone has read the total before a next call overwrites it
  return total;
}

}  // namespace ch01
