// Must fail to compile on the CPU backend (see tests/CMakeLists.txt): a warp shuffle has no
// faithful meaning when the threads of a warp are fibers that run one after another.
#include "course/gpu.hpp"

__global__ void warp_sum(float* values) {
  float v = values[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  values[threadIdx.x] = v;
}
