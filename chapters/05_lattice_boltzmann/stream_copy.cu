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

// Two cells of a row a thread, `kBlock` apart, each its own 2-byte access: every access of a
// warp is as wide as the one-cell copy's, and a thread has two in flight a plane.
__global__ void stream_copy_two_a_thread_kernel(const std::uint16_t* __restrict__ src, std::uint16_t* __restrict__ dst,
                                                unsigned nx, unsigned plane) {
  const unsigned x = blockIdx.x * 2 * kBlock + threadIdx.x, row = blockIdx.y * nx;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) {
    const std::uint16_t first = x < nx ? src[k * plane + row + x] : 0, second = x + kBlock < nx ? src[k * plane + row + x + kBlock] : 0;
    if (x < nx) dst[k * plane + row + x] = first;
    if (x + kBlock < nx) dst[k * plane + row + x + kBlock] = second;
  }
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
void stream_copy_16bit_quads(std::uint16_t* a, std::uint16_t* b, const Channel& channel, int steps) {
  passes<std::uint64_t, 4>(reinterpret_cast<std::uint64_t*>(a), reinterpret_cast<std::uint64_t*>(b), channel, steps);
}
void stream_copy_16bit_two_a_thread(std::uint16_t* a, std::uint16_t* b, const Channel& c, int steps) {
  if (c.cells() * kDirections > (1LL << 32) - 1) throw std::invalid_argument("stream_copy offsets values in 32 bits");
  const dim3 grid(course::blocks_for(c.nx, 2 * kBlock), c.ny);
  for (int step = 0; step < steps; ++step) {
    course::launch(stream_copy_two_a_thread_kernel, {grid, kBlock}, a, b, static_cast<unsigned>(c.nx), static_cast<unsigned>(c.cells()));
    std::swap(a, b);
  }
}

}  // namespace ch05
