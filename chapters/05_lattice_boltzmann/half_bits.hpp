// The 16-bit storage formats of steps 06-10 as bit patterns, converted from float by rounding to
// the nearest (ties to even) and back, the same on every backend. fp16 uses the GPU's conversion
// instructions (the host compiler's _Float16 on the CPU backend); bf16 is the top half of a
// float32, rounded by adding just under half of the dropped part, or by CUDA's instruction.
#pragma once

#include <bit>
#include <cstdint>

#if defined(COURSE_BACKEND_CUDA)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#elif defined(COURSE_BACKEND_HIP)
#include <hip/hip_fp16.h>
#endif

#include "course/gpu.hpp"

namespace ch05 {

__host__ __device__ inline std::uint16_t fp16_nearest(float value) {
#if defined(COURSE_BACKEND_CPU)
  return std::bit_cast<std::uint16_t>(static_cast<_Float16>(value));
#else
  return __half_as_ushort(__float2half_rn(value));
#endif
}

__host__ __device__ inline float fp16_value(std::uint16_t bits) {
#if defined(COURSE_BACKEND_CPU)
  return static_cast<float>(std::bit_cast<_Float16>(bits));
#else
  return __half2float(__ushort_as_half(bits));
#endif
}

// In integer arithmetic, on every backend (steps 06 and 07).
__host__ __device__ inline std::uint16_t bf16_nearest_by_integers(float value) {
  const std::uint32_t bits = course::float_bits(value);
  return static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// By the GPU's conversion instruction where CUDA has one (steps 08-10), the same rounding.
__host__ __device__ inline std::uint16_t bf16_nearest(float value) {
#if defined(COURSE_BACKEND_CUDA)
  return __bfloat16_as_ushort(__float2bfloat16_rn(value));
#else
  return bf16_nearest_by_integers(value);
#endif
}

__host__ __device__ inline float bf16_value(std::uint16_t bits) { return course::float_from_bits(std::uint32_t{bits} << 16); }

}  // namespace ch05
