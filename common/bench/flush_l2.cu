// Evicts the L2 cache by reading a buffer twice its size. Reading rather than writing leaves no
// dirty lines behind to be written back during the next timed kernel.
#include "course/benchmark.hpp"
#include "course/gpu.hpp"
#include "flush_l2.hpp"

namespace course::bench {
namespace {

__global__ void read_everything(const float4* data, size_t count, float* sink) {
  float4 sum = make_float4(0, 0, 0, 0);
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x) {
    const float4 v = data[i];
    sum.x += v.x;
    sum.y += v.y;
    sum.z += v.z;
    sum.w += v.w;
  }
  // Never true for the zero-filled buffer, but the compiler cannot know: the loads stay.
  if (sum.x + sum.y + sum.z + sum.w != 0.0f) *sink = sum.x;
}

// Spins one thread for `cycles` clock cycles.
__global__ void spin(long long cycles, float* sink) {
#if !defined(COURSE_BACKEND_CPU)
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
#endif
  if (cycles < 0) *sink = 0;  // never: keeps the kernel from being empty
}

}  // namespace

std::string why_kernels_cannot_run_here() {
#if defined(COURSE_BACKEND_CUDA)
  cudaFuncAttributes attributes{};
  const cudaError_t status = cudaFuncGetAttributes(&attributes, read_everything);
  (void)cudaGetLastError();  // not sticky, but left as the last error it would be blamed on the next call
  return status == cudaSuccess ? "" : cudaGetErrorString(status);
#elif defined(COURSE_BACKEND_HIP)
  hipFuncAttributes attributes{};
  const hipError_t status = hipFuncGetAttributes(&attributes, reinterpret_cast<const void*>(read_everything));
  (void)hipGetLastError();
  return status == hipSuccess ? "" : hipGetErrorString(status);
#else
  return "";
#endif
}

L2Flusher::L2Flusher(size_t l2_bytes) : buffer_(l2_bytes == 0 ? 0 : 2 * l2_bytes / sizeof(float4)), sink_(1) {
  if (buffer_.size() != 0) GPU_CHECK(gpuMemset(buffer_.data(), 0, buffer_.bytes()));
}

void L2Flusher::flush() {
  if (buffer_.size() != 0) {
    course::launch(read_everything, {dim3(1024), dim3(256)}, buffer_.data(), buffer_.size(), sink_.data());
  } else if (!on_cpu_backend()) {
    course::launch(spin, {dim3(1), dim3(1)}, 100'000LL, sink_.data());  // ~50 us at 2 GHz
  }
}

}  // namespace course::bench
