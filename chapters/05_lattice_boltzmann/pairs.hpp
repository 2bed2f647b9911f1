// Two cells a thread (steps 09 and 13): 16-bit values held two to a 4-byte word, the even cell in
// the low half, rows padded to an even number of cells so that a pair never straddles two rows;
// four cells a thread (step 13's second variant) the same with 8-byte words. The layout
// conversions to and from the canonical state (Format: half_bits.hpp's Fp16Bits or Bf16Bits, a
// pair converted at once).
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
  using Word = std::uint32_t;
  static constexpr int kCells = 2;  // a word
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

// Four cells a thread: plane k holds ny rows of `pitch` cells (nx rounded up to a multiple of 4)
// as pitch/4 8-byte words a row, cell x0 + i in bits 16i to 16i + 15.
struct QuadLayout {
  using Word = std::uint64_t;
  static constexpr int kCells = 4;  // a word
  unsigned pitch;        // cells a row, a multiple of 4
  unsigned plane_words;  // words a plane
  __host__ __device__ unsigned word(int k, int x, int y) const { return k * plane_words + (y * pitch + x) / 4; }
  __host__ __device__ static std::uint16_t lane(std::uint64_t word, int i) { return static_cast<std::uint16_t>(word >> (16 * i)); }
  __device__ std::uint16_t cell(const std::uint64_t* state, int k, int x, int y) const { return lane(state[word(k, x, y)], x % 4); }
};

// Throws std::invalid_argument, naming `step`, where the state's words would not be offset in 32 bits.
inline QuadLayout quad_layout(const Channel& c, const std::string& step) {
  const long long pitch = (c.nx + 3) / 4 * 4;
  if (pitch * c.ny * kDirections > 4 * ((1LL << 32) - 1))
    throw std::invalid_argument(step + " offsets its 8-byte words in 32 bits: at most 1,908,874,352 padded cells");
  return {static_cast<unsigned>(pitch), static_cast<unsigned>(pitch * c.ny / 4)};
}

// The canonical layout in and out, a word a thread of blocks of `kThreads`, for either layout
// (loading rounds to nearest: it is not a time step; a row's pad cells hold 0).
template <class Format, int kThreads, class Layout>
__global__ void to_packed_layout(const float* __restrict__ canonical, typename Layout::Word* __restrict__ state, Channel c,
                                 Layout layout) {
  using Word = typename Layout::Word;
  const int x0 = Layout::kCells * (blockIdx.x * kThreads + threadIdx.x), y = blockIdx.y;
  if (x0 >= c.nx) return;
  const long long cell = static_cast<long long>(y) * c.nx + x0;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) {
    const auto value = [&](int i) { return x0 + i < c.nx ? canonical[(cell + i) * kDirections + k] - weight(k) : 0.0f; };
    Word word = 0;
#pragma unroll
    for (int i = 0; i < Layout::kCells; i += 2) word |= Word{Format::encode_pair(value(i), value(i + 1))} << (16 * i);
    state[layout.word(k, x0, y)] = word;
  }
}
template <class Format, int kThreads, class Layout>
__global__ void from_packed_layout(const typename Layout::Word* __restrict__ state, float* __restrict__ canonical, Channel c,
                                   Layout layout) {
  const int x0 = Layout::kCells * (blockIdx.x * kThreads + threadIdx.x), y = blockIdx.y;
  if (x0 >= c.nx) return;
  const long long cell = static_cast<long long>(y) * c.nx + x0;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) {
    const typename Layout::Word word = state[layout.word(k, x0, y)];
    for (int i = 0; i < Layout::kCells && x0 + i < c.nx; ++i)
      canonical[(cell + i) * kDirections + k] = Format::decode(static_cast<std::uint16_t>(word >> (16 * i))) + weight(k);
  }
}

}  // namespace ch05
