#include "stream_copy.hpp"

#include <stdexcept>
#include <utility>

namespace ch05 {
namespace {

constexpr int kBlock = 128;  // threads along a row, as steps 04-08

// `per_thread` consecutive cells of a row, moved as one value of type T per plane. (per_thread
// is not used inside: it names the paired copy apart from the others in the profile.)
template <class T, int per_thread>
__global__ void stream_copy_kernel(const T* __restrict__ src, T* __restrict__ dst, unsigned words_per_row, unsigned plane) {
  const unsigned x = blockIdx.x * kBlock + threadIdx.x;
  if (x >= words_per_row) return;
  const unsigned at = blockIdx.y * words_per_row + x;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) dst[k * plane + at] = src[k * plane + at];
}

template <class T, int per_thread>
void passes(T* a, T* b, const Channel& c, int steps) {
  if (c.nx % per_thread != 0) throw std::invalid_argument("stream_copy: nx must be a multiple of the cells a thread moves");
  if (c.cells() * kDirections > (1LL << 32) - 1) throw std::invalid_argument("stream_copy offsets values in 32 bits");
  const unsigned words_per_row = c.nx / per_thread;
  const dim3 grid(course::blocks_for(words_per_row, kBlock), c.ny);
  for (int step = 0; step < steps; ++step) {
    course::launch(stream_copy_kernel<T, per_thread>, {grid, kBlock}, a, b, words_per_row,
                   static_cast<unsigned>(c.cells() / per_thread));
    std::swap(a, b);
  }
}

}  // namespace

void stream_copy_f32(float* a, float* b, const Channel& channel, int steps) { passes<float, 1>(a, b, channel, steps); }
void stream_copy_16bit(std::uint16_t* a, std::uint16_t* b, const Channel& channel, int steps) {
  passes<std::uint16_t, 1>(a, b, channel, steps);
}
void stream_copy_16bit_pairs(std::uint16_t* a, std::uint16_t* b, const Channel& channel, int steps) {
  passes<std::uint32_t, 2>(reinterpret_cast<std::uint32_t*>(a), reinterpret_cast<std::uint32_t*>(b), channel, steps);
}

}  // namespace ch05
