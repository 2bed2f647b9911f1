// The 16-bit storage formats of steps 06-12 as bit patterns, converted from float by rounding to
// the nearest (ties to even) and back, the same on every backend. fp16 uses the GPU's conversion
// instructions (the host compiler's _Float16 on the CPU backend); bf16 is the top half of a
// float32, rounded by adding just under half of the dropped part, or by CUDA's instruction.
// Then what stochastic rounding (steps 10 and 12) draws from: the random numbers of a cell and
// time step, the same on every backend.
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

// HIP's __half conversions are device functions, and a host-only file (the part tests) sees none
// of them: HIP's host side converts as the CPU backend does, with the compiler's _Float16.
#if defined(COURSE_BACKEND_CPU) || (defined(COURSE_BACKEND_HIP) && !defined(__HIP_DEVICE_COMPILE__))
#define COURSE_FP16_BY_THE_COMPILER 1
#endif

__host__ __device__ inline std::uint16_t fp16_nearest(float value) {
#if defined(COURSE_FP16_BY_THE_COMPILER)
  return std::bit_cast<std::uint16_t>(static_cast<_Float16>(value));
#else
  return __half_as_ushort(__float2half_rn(value));
#endif
}

__host__ __device__ inline float fp16_value(std::uint16_t bits) {
#if defined(COURSE_FP16_BY_THE_COMPILER)
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

// Two 16-bit numbers packed into a word, the first in the low half, each rounded to nearest (exact
// where the floats already hold 16-bit numbers, as stochastic rounding's results do): one
// conversion for both on the GPU (steps 09 and 13).
__host__ __device__ inline std::uint32_t fp16_pair(float low, float high) {
#if defined(COURSE_FP16_BY_THE_COMPILER)
  return fp16_nearest(low) | std::uint32_t{fp16_nearest(high)} << 16;
#else
  const __half2 both = __floats2half2_rn(low, high);
  return __half_as_ushort(__low2half(both)) | std::uint32_t{__half_as_ushort(__high2half(both))} << 16;
#endif
}
__host__ __device__ inline std::uint32_t bf16_pair(float low, float high) {
#if defined(COURSE_BACKEND_CUDA)
  const __nv_bfloat162 both = __floats2bfloat162_rn(low, high);
  return __bfloat16_as_ushort(__low2bfloat16(both)) | std::uint32_t{__bfloat16_as_ushort(__high2bfloat16(both))} << 16;
#else
  return bf16_nearest_by_integers(low) | std::uint32_t{bf16_nearest_by_integers(high)} << 16;
#endif
}

// The two formats as the later steps take them: the fraction bits each keeps of float32's 23
// (stochastic rounding, steps 10, 12 and 13), one value or a pair converted. Both keep the sign
// in bit 15.
struct Fp16Bits {
  static constexpr int kFractionBits = 10;
  __host__ __device__ static std::uint16_t nearest(float value) { return fp16_nearest(value); }
  __host__ __device__ static float decode(std::uint16_t bits) { return fp16_value(bits); }
  __host__ __device__ static std::uint32_t encode_pair(float even, float odd) { return fp16_pair(even, odd); }
};
struct Bf16Bits {
  static constexpr int kFractionBits = 7;
  __host__ __device__ static std::uint16_t nearest(float value) { return bf16_nearest(value); }
  __host__ __device__ static float decode(std::uint16_t bits) { return bf16_value(bits); }
  __host__ __device__ static std::uint32_t encode_pair(float even, float odd) { return bf16_pair(even, odd); }
};

// The random numbers of one cell in one time step: murmur3's 32-bit finaliser of the two.
__host__ __device__ inline std::uint32_t cell_hash(std::uint32_t cell, std::uint32_t time) {
  std::uint32_t h = cell * 0x9e3779b1u ^ (time + 1u) * 0x85ebca77u;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}
// The next number of the cell's sequence (a linear congruential step). Its high bits are the
// random ones (the low bits of such a generator repeat with short periods): take them from the top.
__host__ __device__ inline std::uint32_t next_random(std::uint32_t& state) {
  state = state * 1664525u + 1013904223u;
  return state;
}

}  // namespace ch05
