// Two cells a thread (steps 09 and 13): 16-bit values held two to a 4-byte word, the even cell in
// the low half, rows padded to an even number of cells so that a pair never straddles two rows;
// the layout conversions to and from the canonical state (Format: half_bits.hpp's Fp16Bits or
// Bf16Bits, a pair converted at once).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "course/gpu.hpp"
#include "half_bits.hpp"
#include "lbm.hpp"

namespace ch05 {

__host__ __device__ inline std::uint16_t low(std::uint32_t word) { return static_cast<std::uint16_t>(word & 0xffffu); }
__host__ __device__ inline std::uint16_t high(std::uint32_t word) { return static_cast<std::uint16_t>(word >> 16); }
__host__ __device__ inline std::uint32_t pack(std::uint16_t even, std::uint16_t odd) { return even | std::uint32_t{odd} << 16; }

// Where things are: plane k of the state holds ny rows of `pitch` cells (nx rounded up to even),
// as pitch/2 words a row.
struct PairLayout {
  unsigned pitch;        // cells a row, even
  unsigned plane_words;  // words a plane
  __host__ __device__ unsigned word(int k, int x, int y) const { return k * plane_words + (y * pitch + x) / 2; }
  // One cell's 16-bit value (x of either parity).
  __device__ std::uint16_t cell(const std::uint32_t* state, int k, int x, int y) const {
    const std::uint32_t w = state[word(k, x, y)];
    return x % 2 ? high(w) : low(w);
  }
};

// Throws std::invalid_argument, naming `step`, where the state's values would not be offset in 32 bits.
inline PairLayout pair_layout(const Channel& c, const std::string& step) {
  const long long pitch = c.nx + c.nx % 2;
  if (pitch * c.ny * kDirections > (1LL << 32) - 1)
    throw std::invalid_argument(step + " offsets the state's values in 32 bits: at most 477,218,588 cells");
  return {static_cast<unsigned>(pitch), static_cast<unsigned>(pitch * c.ny / 2)};
}

// The canonical layout in and out, a pair a thread of blocks of `kThreads` (loading rounds to
// nearest: it is not a time step; the pad half of an odd row holds 0).
template <class Format, int kThreads>
__global__ void to_pairs_layout(const float* __restrict__ canonical, std::uint32_t* __restrict__ state, Channel c,
                                PairLayout layout) {
  const int x0 = 2 * (blockIdx.x * kThreads + threadIdx.x), y = blockIdx.y;
  if (x0 >= c.nx) return;
  const long long cell = static_cast<long long>(y) * c.nx + x0;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) {
    const std::uint32_t both = Format::encode_pair(canonical[cell * kDirections + k] - weight(k),
                                                   x0 + 1 < c.nx ? canonical[(cell + 1) * kDirections + k] - weight(k) : 0.0f);
    state[layout.word(k, x0, y)] = x0 + 1 < c.nx ? both : pack(low(both), 0);
  }
}
template <class Format, int kThreads>
__global__ void from_pairs_layout(const std::uint32_t* __restrict__ state, float* __restrict__ canonical, Channel c,
                                  PairLayout layout) {
  const int x0 = 2 * (blockIdx.x * kThreads + threadIdx.x), y = blockIdx.y;
  if (x0 >= c.nx) return;
  const long long cell = static_cast<long long>(y) * c.nx + x0;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) {
    const std::uint32_t both = state[layout.word(k, x0, y)];
    canonical[cell * kDirections + k] = Format::decode(low(both)) + weight(k);
    if (x0 + 1 < c.nx) canonical[(cell + 1) * kDirections + k] = Format::decode(high(both)) + weight(k);
  }
}

}  // namespace ch05
