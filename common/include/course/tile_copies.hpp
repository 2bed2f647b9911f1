// Whole tiles copied by the tensor memory accelerator (TMA, NVIDIA from sm_90 on): one thread
// starts the copy of a box of a 3D float array into shared memory, and a barrier in shared
// memory (an mbarrier) counts the box's bytes as they land. The threads that read the tile wait
// on that barrier; none computes an address per element, holds the data in registers on its way,
// or waits for another thread's copies at a block barrier. The parts of the box outside the
// array arrive as zeros.
//
// On the host, describe the array and the box once:
//   const course::TileMap map = course::make_tile_map(array, {pitch, rows, planes}, {pitch, plane}, {bx, by, bz}, "step 10");
// (extents and strides in floats; CUDA's CUtensorMap, passed to the kernel by value as a
// `const __grid_constant__ course::TileMap` parameter). In the kernel:
//   __shared__ course::TileBarrier landed;              // one per tile buffer
//   if (first thread) course::init_tile_barrier(landed);
//   __syncthreads();
//   if (first thread) course::load_tile_async(tile, sizeof tile, map, x, y, z, landed);  // the box at (x, y, z)
//   course::wait_tile(landed, phase);                   // every thread that reads the tile
// `sizeof tile` is the box's bytes: the barrier's phase completes when that many have landed.
// `phase` counts the copies this barrier has waited for, modulo 2: 0 for its first copy, 1 for
// its second, and so on. A tile buffer is refilled only after every thread has finished reading
// it (a __syncthreads() between the last read and the next load_tile_async).
//
// The CPU backend keeps the protocol: a tile holds the poison (all bits set) from the moment its
// copy starts until a wait covers it, so a missing wait, or a refill before every thread has
// read the tile, computes NaNs there as it would read stale data on a GPU. What a GPU would hang
// or race on stops the program there, naming it: a barrier this block did not initialise, more
// copies than its count (or the next phase's before a wait), bytes that are not the box's, a tile
// off a 128-byte boundary. Its threads run one after another, so a wait must also come after the
// copy it waits for has started (on a GPU it would wait). HIP and NVIDIA GPUs before sm_90 have no
// tensor memory accelerator: make_tile_map() throws course::Unsupported there.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "course/gpu.hpp"

#if defined(COURSE_BACKEND_CUDA)
#include <cuda.h>  // CUtensorMap: the descriptor's type only; the driver is reached at run time
#endif
#if defined(COURSE_BACKEND_CPU)
#include <vector>
#endif
#if !defined(__grid_constant__)
#define __grid_constant__  // CUDA's marker for a parameter read in place; HIP and the CPU need none
#endif

namespace course {

#if defined(COURSE_BACKEND_CUDA)
using TileMap = CUtensorMap;
struct TileBarrier {
  std::uint64_t word;  // the mbarrier's state
};
#elif defined(COURSE_BACKEND_CPU)
struct TileMap {
  const float* base;
  std::array<long long, 3> extent;  // floats, x fastest
  std::array<long long, 3> stride;  // floats between neighbours along x, y, z
  std::array<int, 3> box;
};
// One barrier's copies: started, then landed by the first wait that needs them.
class TileBarrier {
 public:
  void init(unsigned copies) {
    pending_.clear();
    completed_ = 0;
    copies_ = copies;
    block_ = cpu::current->block_serial;
  }
  void start(const TileMap& map, float* tile, unsigned bytes, int x, int y, int z);
  void wait(unsigned phase);

 private:
  struct Copy {
    float* tile;
    std::vector<float> values;
  };
  std::vector<Copy> pending_;  // in the order they started
  unsigned long long completed_ = 0;
  unsigned copies_ = 1;      // per phase
  std::uint64_t block_ = 0;  // the block that initialised it: __shared__ outlives a block here
  void require_initialised(const char* call) const;
};
#else
struct TileMap {
  unsigned char unused;
};
struct TileBarrier {
  std::uint64_t word;
};
#endif

// The descriptor of a 3D float array (extents and strides in floats, x fastest; strides along y
// and z multiples of 4 floats, as the hardware needs) and of the box one copy moves (each side
// at most 256 floats, its x side a multiple of 4). Throws course::Unsupported where there is no
// tensor memory accelerator and std::invalid_argument for a shape it cannot describe; `why`
// names the caller in both messages.
TileMap make_tile_map(const float* array, std::array<long long, 3> extent, std::array<long long, 2> stride,
                      std::array<int, 3> box, const char* why);

#if defined(COURSE_BACKEND_CPU) || defined(__CUDACC__) || defined(__HIPCC__)

#if defined(COURSE_BACKEND_CUDA) && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900)
__device__ __forceinline__ unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void init_tile_barrier(TileBarrier& barrier, unsigned copies = 1) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(&barrier)), "r"(copies) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");  // visible to the copy engine
}
// Expects the box's bytes on the barrier (the one arrival its phase needs), then starts the copy,
// which adds its bytes as they land; the phase completes when all have.
__device__ __forceinline__ void load_tile_async(float* tile, unsigned bytes, const TileMap& map, int x, int y, int z,
                                                TileBarrier& barrier) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(&barrier)), "r"(bytes) : "memory");
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(
          shared_address(tile)),
      "l"(&map), "r"(x), "r"(y), "r"(z), "r"(shared_address(&barrier))
      : "memory");
}
__device__ __forceinline__ void wait_tile(TileBarrier& barrier, unsigned phase) {
  asm volatile(
      "{\n"
      ".reg .pred landed;\n"
      "WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 landed, [%0], %1;\n"
      "@!landed bra WAIT;\n"
      "}\n" ::"r"(shared_address(&barrier)),
      "r"(phase)
      : "memory");
}
#elif defined(COURSE_BACKEND_CPU)
inline void init_tile_barrier(TileBarrier& barrier, unsigned copies = 1) { barrier.init(copies); }
inline void load_tile_async(float* tile, unsigned bytes, const TileMap& map, int x, int y, int z, TileBarrier& barrier) {
  barrier.start(map, tile, bytes, x, y, z);
}
inline void wait_tile(TileBarrier& barrier, unsigned phase) { barrier.wait(phase); }
#else
// No tensor memory accelerator (HIP, NVIDIA before sm_90): make_tile_map() refused on the host,
// so a kernel that gets here was launched without it.
#if defined(COURSE_BACKEND_CUDA)
__device__ __forceinline__ void no_tile_copies() { __trap(); }
#else
__device__ __forceinline__ void no_tile_copies() { __builtin_trap(); }
#endif
__device__ __forceinline__ void init_tile_barrier(TileBarrier&, unsigned = 1) { no_tile_copies(); }
__device__ __forceinline__ void load_tile_async(float*, unsigned, const TileMap&, int, int, int, TileBarrier&) { no_tile_copies(); }
__device__ __forceinline__ void wait_tile(TileBarrier&, unsigned) { no_tile_copies(); }
#endif

#endif  // kernel compiler

}  // namespace course
