// The one-pass structures as copies (copy_ceiling.hpp): each kernel makes its step's loads, in
// its step's order, and stores the centre; the benchmark times them beside the steps.
// kResidentBlocks > 0 holds a copy to that many blocks per multiprocessor with dynamic shared
// memory it does not use (a launch reserves it all the same): the copy at a step's occupancy.
// The template argument only names the launch apart for the profiler; the code is the same.
#include <stdexcept>
#include <string>

#include "copy_ceiling.hpp"

namespace ch03 {
namespace {

constexpr int kTileX = 32, kTileY = 8;  // threads, one float4 each: 128 x 8 points, as steps 07 and 08
constexpr int kPlanes = 64;             // z-planes per block
constexpr int kTileRows = kTileY + 2 * kRadius;

// Makes the compiler keep a loaded value that nothing else uses, at the point where the step
// would use it (so the load is waited for there, not earlier): the copy must read what the step reads.
__device__ inline void keep(const float4& v) {
#if defined(COURSE_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  asm volatile("" ::"f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w));
#elif defined(COURSE_BACKEND_HIP) && defined(__HIP_DEVICE_COMPILE__)
  asm volatile("" ::"v"(v.x), "v"(v.y), "v"(v.z), "v"(v.w));
#else
  (void)v;  // the CPU backend is not timed
#endif
}

__device__ void store_centre(float* target, const float4& v, int x0, int dx) {
  if (x0 + 4 <= dx) {
    course::store_streaming(reinterpret_cast<float4*>(target), v);
  } else {
    for (int i = 0; i < 4 && x0 + i < dx; ++i) course::store_streaming(target + i, lane(v, i));
  }
}

template <int kResidentBlocks>
__global__ void COURSE_LAUNCH_BOUNDS(kTileX* kTileY) copy_prefetch_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  __shared__ float4 tile[kTileRows][kTileX];
  const int x0 = (blockIdx.x * kTileX + threadIdx.x) * 4;
  const int y0 = blockIdx.y * kTileY;
  const int y = y0 + threadIdx.y;
  const bool inside = x0 < g.dx && y < g.dy;
  const int z_begin = blockIdx.z * kPlanes;
  const int z_end = min(g.dz, z_begin + kPlanes);
  struct Plane {
    float4 rows[2], left, right, centre;
  };
  auto fetch = [&](int p, Plane& plane) {
    if (p >= z_begin && p < z_end) {
#pragma unroll
      for (int k = 0; k < 2; ++k) {
        const int source_y = y0 - kRadius + threadIdx.y + k * kTileY;
        plane.rows[k] = x0 < g.dx && source_y < g.dy + kRadius ? *reinterpret_cast<const float4*>(in + g.at(x0, source_y, p))
                                                               : zero<float4>();
      }
      if (inside) {
        const float* row = in + g.at(x0, y, p);
        plane.left = *reinterpret_cast<const float4*>(row - kRadius);
        plane.right = *reinterpret_cast<const float4*>(row + 4);
      }
    } else if (inside) {
      plane.centre = *reinterpret_cast<const float4*>(in + g.at(x0, y, p));
    }
  };
  Plane next{};
  fetch(z_begin - kRadius, next);
  for (int p = z_begin - kRadius; p < z_end + kRadius; ++p) {
    const Plane current = next;
    if (p + 1 < z_end + kRadius) fetch(p + 1, next);
    if (p >= z_begin && p < z_end) {
      __syncthreads();
      tile[threadIdx.y][threadIdx.x] = current.rows[0];
      tile[threadIdx.y + kTileY][threadIdx.x] = current.rows[1];
      __syncthreads();
      if (inside) {
        keep(current.left);
        keep(current.right);
        store_centre(out + g.at(x0, y, p), tile[threadIdx.y + kRadius][threadIdx.x], x0, g.dx);
      }
    } else if (inside) {
      keep(current.centre);
    }
  }
}

constexpr int kStages = 3;
constexpr int kWidth = kTileX + 2;  // float4s per tile row, one of x-halo each side
constexpr int kCopies = kTileRows * kWidth;
constexpr int kPasses = (kCopies + kTileX * kTileY - 1) / (kTileX * kTileY);

template <int kResidentBlocks>
__global__ void COURSE_LAUNCH_BOUNDS(kTileX* kTileY) copy_async_ring_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  __shared__ float4 tiles[kStages][kTileRows][kWidth];
  const int thread = threadIdx.x + threadIdx.y * kTileX;
  const int x_left = blockIdx.x * kTileX * 4 - kRadius;
  const int y_top = blockIdx.y * kTileY - kRadius;
  const int z_begin = blockIdx.z * kPlanes;
  const int z_end = min(g.dz, z_begin + kPlanes);
  int offset[kPasses];
  bool valid[kPasses], centre[kPasses];
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int copy = thread + pass * kTileX * kTileY;
    const int row = copy / kWidth, column = copy % kWidth;
    const int x = x_left + 4 * column, y = y_top + row;
    valid[pass] = copy < kCopies && y < g.dy + kRadius && x + 4 <= g.pitch - g.lead;
    centre[pass] = row >= kRadius && row < kRadius + kTileY && column >= 1 && column <= kTileX;
    offset[pass] = valid[pass] ? row * g.pitch + 4 * column : 0;
  }
  const int steps = z_end - z_begin + 2 * kRadius;
  const float* plane_source = in + g.at(x_left, y_top, z_begin - kRadius);
  auto start_copies = [&](int s) {
    const bool halo_plane = s < kRadius || s >= steps - kRadius;
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int copy = thread + pass * kTileX * kTileY;
      if (copy < kCopies && (!halo_plane || centre[pass]))
        course::copy_async(&tiles[s % kStages][0][0] + copy, reinterpret_cast<const float4*>(plane_source + offset[pass]),
                           valid[pass]);
    }
    plane_source += g.plane;
  };
  const int x0 = x_left + kRadius + 4 * threadIdx.x;
  const int y = y_top + kRadius + threadIdx.y;
  const bool inside = x0 < g.dx && y < g.dy;
  for (int s = 0; s + 1 < kStages; ++s) {
    if (s < steps) start_copies(s);
    course::commit_copies();
  }
  for (int s = 0; s < steps; ++s) {
    course::wait_copies<kStages - 2>();
    __syncthreads();
    if (s + kStages - 1 < steps) start_copies(s + kStages - 1);
    course::commit_copies();
    if (inside && s >= kRadius && s < steps - kRadius)
      store_centre(out + g.at(x0, y, z_begin - kRadius + s), tiles[s % kStages][threadIdx.y + kRadius][threadIdx.x + 1], x0, g.dx);
  }
}

using CopyKernel = void (*)(const float*, float*, Grid);

// The dynamic shared memory that leaves room for exactly `blocks` blocks of `kernel` on a
// multiprocessor: its shared memory split `blocks` ways, less what each block already takes
// (its static shared memory and what the driver reserves). Checked with the occupancy the
// runtime computes; a device where it does not come out (registers or threads allowing fewer)
// is refused in one line. The CPU backend runs blocks one after another: nothing to limit.
std::size_t shared_for_blocks(CopyKernel kernel, int blocks) {
#if defined(COURSE_BACKEND_CPU)
  (void)kernel;
  (void)blocks;
  return 0;
#else
  int device = 0;
  GPU_CHECK(gpuGetDevice(&device));
  gpuDeviceProp properties{};
  GPU_CHECK(gpuGetDeviceProperties(&properties, device));
#if defined(COURSE_BACKEND_CUDA)
  cudaFuncAttributes attributes{};
  GPU_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const std::size_t per_sm = properties.sharedMemPerMultiprocessor, reserved = properties.reservedSharedMemPerBlock;
#else
  hipFuncAttributes attributes{};
  GPU_CHECK(hipFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kernel)));
  const std::size_t per_sm = properties.maxSharedMemoryPerMultiProcessor, reserved = 0;
#endif
  const std::size_t dynamic = per_sm / blocks - reserved - attributes.sharedSizeBytes;
#if defined(COURSE_BACKEND_CUDA)
  GPU_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic)));
  int resident = 0;
  GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kTileX * kTileY, dynamic));
#else
  GPU_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(kernel), hipFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(dynamic)));
  int resident = 0;
  GPU_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kTileX * kTileY, dynamic));
#endif
  if (resident != blocks)
    throw std::runtime_error("the copy at " + std::to_string(blocks) + " blocks per multiprocessor gets " +
                             std::to_string(resident) + " on this GPU: its shared memory cannot set that occupancy");
  return dynamic;
#endif
}

// The shared memory is worked out at the first launch (the benchmark's untimed warm-up), not in
// every timed one: the runtime calls it takes would leave the GPU idle between the timer's events.
template <CopyKernel kKernel, int kResidentBlocks>
void launch_copy(const float* in, float* out, const Grid& grid) {
  require_aligned_rows(grid, 64, "the copy ceiling");
  static const std::size_t shared = kResidentBlocks > 0 ? shared_for_blocks(kKernel, kResidentBlocks) : 0;
  course::launch(kKernel,
                 {dim3(course::blocks_for(grid.dx, kTileX * 4), course::blocks_for(grid.dy, kTileY), course::blocks_for(grid.dz, kPlanes)),
                  dim3(kTileX, kTileY), shared},
                 in, out, grid);
}

}  // namespace

void copy_through_prefetch(const float* in, float* out, const Grid& grid) { launch_copy<copy_prefetch_kernel<0>, 0>(in, out, grid); }
void copy_through_async_ring(const float* in, float* out, const Grid& grid) { launch_copy<copy_async_ring_kernel<0>, 0>(in, out, grid); }
void copy_through_prefetch_at_step_occupancy(const float* in, float* out, const Grid& grid) {
  launch_copy<copy_prefetch_kernel<kStepBlocks>, kStepBlocks>(in, out, grid);
}
void copy_through_async_ring_at_step_occupancy(const float* in, float* out, const Grid& grid) {
  launch_copy<copy_async_ring_kernel<kStepBlocks>, kStepBlocks>(in, out, grid);
}

}  // namespace ch03
