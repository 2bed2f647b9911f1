#include "memory_latency.hpp"

#include <algorithm>
#include <cstdint>

#include "course/gpu.hpp"

namespace ch01 {
namespace {

constexpr std::size_t kStride = 8192 / sizeof(std::uint32_t);  // elements between two loads: 8 KiB
constexpr std::size_t kMaxLoads = 65536;
constexpr std::size_t kMinLoads = 4096;

// Named without "_kernel": profile.sh profiles the kernels whose names contain it.
__global__ void write_pointer_chain(std::uint32_t* chain, std::uint32_t loads) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < loads) chain[i * kStride] = static_cast<std::uint32_t>((i + 1) % loads * kStride);
}

// Each load's address is the previous load's value: one load in flight, start to finish.
__global__ void chase_pointers(const std::uint32_t* chain, std::uint32_t loads, std::uint32_t* sink) {
  std::uint32_t at = 0;
  for (std::uint32_t i = 0; i < loads; ++i) at = chain[at];
  *sink = at;  // keeps the chain from being optimised away
}

}  // namespace

double memory_latency_ns(float* scratch, std::size_t elements) {
  const std::size_t half = elements / 2;
  const std::size_t loads = std::min(kMaxLoads, half / kStride);
  if (loads < kMinLoads) return 0.0;
  auto* chain = reinterpret_cast<std::uint32_t*>(scratch);
  const auto count = static_cast<std::uint32_t>(loads);
  course::launch(write_pointer_chain, {dim3(course::blocks_for(count, 256)), dim3(256)}, chain, count);
  // Overwrite the second half (far larger than L2): the chain's lines leave the cache.
  GPU_CHECK(gpuMemset(scratch + half, 0, (elements - half) * sizeof(float)));
  std::uint32_t* sink = reinterpret_cast<std::uint32_t*>(scratch + half);
  gpuEvent_t start, stop;
  GPU_CHECK(gpuEventCreate(&start));
  GPU_CHECK(gpuEventCreate(&stop));
  GPU_CHECK(gpuEventRecord(start));
  course::launch(chase_pointers, {dim3(1), dim3(1)}, chain, count, sink);
  GPU_CHECK(gpuEventRecord(stop));
  GPU_CHECK(gpuEventSynchronize(stop));
  float ms = 0;
  GPU_CHECK(gpuEventElapsedTime(&ms, start, stop));
  GPU_CHECK(gpuEventDestroy(start));
  GPU_CHECK(gpuEventDestroy(stop));
  return ms * 1e6 / static_cast<double>(loads);
}

}  // namespace ch01
