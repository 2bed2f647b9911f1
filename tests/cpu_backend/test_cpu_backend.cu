// The CPU backend's own tests: barriers, shared memory per block, constant and dynamic shared
// memory, grid shapes, the most workers on the largest blocks, atomics, the shuffled mode catching a missing __syncthreads(), the
// asynchronous-copy and tile-copy protocols, and accesses past the end of a buffer stopping the program.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/gpu.hpp"
#include "course/tile_copies.hpp"

namespace {

using course::DeviceBuffer;

// Restores the default scheduling after a test changes it.
class CpuBackend : public ::testing::Test {
 protected:
  void TearDown() override {
    course::cpu::set_shuffle_seed(0);
    course::cpu::set_worker_count(std::max(1u, std::thread::hardware_concurrency()));
  }
};

// Each of `rounds` rounds: write my value, barrier, add my right neighbour's, barrier.
__global__ void neighbour_sums(const int* in, int* out, int rounds) {
  __shared__ int values[256];
  const int t = threadIdx.x;
  const int n = blockDim.x;
  int mine = in[blockIdx.x * n + t];
  for (int round = 0; round < rounds; ++round) {
    values[t] = mine;
    __syncthreads();
    mine += values[(t + 1) % n];
    __syncthreads();
  }
  out[blockIdx.x * n + t] = mine;
}

TEST_F(CpuBackend, BarriersInsideLoopsSynchroniseEveryRound) {
  constexpr int kThreads = 256, kBlocks = 5, kRounds = 7;
  std::vector<int> in(kThreads * kBlocks);
  std::iota(in.begin(), in.end(), 1);
  std::vector<int> expected = in;
  for (int round = 0; round < kRounds; ++round) {
    const std::vector<int> before = expected;
    for (int i = 0; i < kThreads * kBlocks; ++i) {
      const int block_start = i / kThreads * kThreads;
      expected[i] = before[i] + before[block_start + (i - block_start + 1) % kThreads];
    }
  }
  for (std::uint64_t seed : {0, 1, 2}) {  // in order, and shuffled twice
    course::cpu::set_shuffle_seed(seed);
    DeviceBuffer<int> d_in{std::span<const int>(in)}, d_out(in.size());
    d_out.poison();
    course::launch(neighbour_sums, {kBlocks, kThreads}, d_in.data(), d_out.data(), kRounds);
    EXPECT_EQ(d_out.to_host(), expected) << "shuffle seed " << seed;
  }
}

// Every thread writes its block's index into shared memory, then keeps re-reading it across
// barriers while other blocks run on other OS threads: any sharing between blocks shows.
__global__ void shared_is_per_block(int* ok) {
  __shared__ unsigned owner[64];
  bool consistent = true;
  for (int round = 0; round < 50; ++round) {
    owner[threadIdx.x] = blockIdx.x * 1000 + round;
    __syncthreads();
    for (int i = 0; i < 64; ++i) consistent = consistent && owner[i] == blockIdx.x * 1000 + round;
    __syncthreads();
  }
  if (!consistent) atomicAdd(ok, 1);
}

TEST_F(CpuBackend, SharedMemoryIsPerBlockWhileBlocksRunConcurrently) {
  course::cpu::set_worker_count(4);
  DeviceBuffer<int> errors(1);
  GPU_CHECK(gpuMemset(errors.data(), 0, errors.bytes()));
  course::launch(shared_is_per_block, {256, 64}, errors.data());
  EXPECT_EQ(errors.to_host()[0], 0) << "blocks saw each other's shared memory";
}

__global__ void count_after_barrier(int* counter) {
  __syncthreads();
  atomicAdd(counter, 1);
}

// COURSE_CPU_THREADS takes up to 1024 workers: with blocks of 1024 threads, each thread a fiber
// on a guarded stack (two memory mappings), every worker running a block at once would need far
// more mappings than a process may hold (vm.max_map_count, 65530 by default).
TEST_F(CpuBackend, TheMostWorkersRunAGridOfTheLargestBlocks) {
  constexpr int kBlocks = 256, kThreads = 1024;
  course::cpu::set_worker_count(1024);
  DeviceBuffer<int> counter(1);
  GPU_CHECK(gpuMemset(counter.data(), 0, counter.bytes()));
  course::launch(count_after_barrier, {kBlocks, kThreads}, counter.data());
  EXPECT_EQ(counter.to_host()[0], kBlocks * kThreads);
}

__constant__ float kCoefficients[4];

__global__ void polynomial(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = ((kCoefficients[3] * x[i] + kCoefficients[2]) * x[i] + kCoefficients[1]) * x[i] + kCoefficients[0];
}

TEST_F(CpuBackend, ConstantMemoryHoldsWhatWasCopiedToTheSymbol) {
  const float coefficients[4] = {1.0f, -2.0f, 0.5f, 3.0f};
  GPU_CHECK(gpuMemcpyToSymbol(kCoefficients, coefficients, sizeof coefficients));
  const std::vector<float> x = {0.0f, 1.0f, -1.0f, 2.0f, 0.25f};
  DeviceBuffer<float> d_x{std::span<const float>(x)}, d_y(x.size());
  d_y.poison();
  course::launch(polynomial, {1, 32}, d_x.data(), d_y.data(), static_cast<int>(x.size()));
  const std::vector<float> y = d_y.to_host();
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_FLOAT_EQ(y[i], ((3.0f * x[i] + 0.5f) * x[i] - 2.0f) * x[i] + 1.0f) << "x = " << x[i];
  }
}

// Reverses each block's slice through dynamic shared memory sized at launch.
__global__ void reverse_in_block(const float* in, float* out) {
  GPU_DYNAMIC_SHARED(float, staged);
  const int t = threadIdx.x, n = blockDim.x, base = blockIdx.x * n;
  staged[t] = in[base + t];
  __syncthreads();
  out[base + t] = staged[n - 1 - t];
}

TEST_F(CpuBackend, DynamicSharedMemoryHasTheLaunchedSize) {
  constexpr int kThreads = 1000, kBlocks = 3;
  std::vector<float> in(kThreads * kBlocks);
  std::iota(in.begin(), in.end(), 0.0f);
  DeviceBuffer<float> d_in{std::span<const float>(in)}, d_out(in.size());
  d_out.poison();
  course::launch(reverse_in_block, {kBlocks, kThreads, kThreads * sizeof(float)}, d_in.data(), d_out.data());
  const std::vector<float> out = d_out.to_host();
  for (int b = 0; b < kBlocks; ++b)
    for (int t = 0; t < kThreads; ++t) ASSERT_EQ(out[b * kThreads + t], in[b * kThreads + kThreads - 1 - t]);
}

// Writes each thread's (block, thread) coordinates at its global linear index.
__global__ void coordinates(int4* out) {
  const unsigned block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const unsigned thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const unsigned per_block = blockDim.x * blockDim.y * blockDim.z;
  out[block * per_block + thread] = make_int4(static_cast<int>(blockIdx.x + 10 * blockIdx.y + 100 * blockIdx.z),
                                              static_cast<int>(threadIdx.x), static_cast<int>(threadIdx.y),
                                              static_cast<int>(threadIdx.z));
}

TEST_F(CpuBackend, GridsAndBlocksInOneTwoAndThreeDimensions) {
  for (const auto& [grid, block] : {std::pair{dim3(5), dim3(7)}, std::pair{dim3(3, 2), dim3(4, 3)},
                                    std::pair{dim3(3, 2, 2), dim3(4, 3, 2)}}) {
    const unsigned per_block = block.x * block.y * block.z;
    const unsigned total = grid.x * grid.y * grid.z * per_block;
    DeviceBuffer<int4> d_out(total);
    d_out.poison();
    course::launch(coordinates, {grid, block}, d_out.data());
    const std::vector<int4> out = d_out.to_host();
    unsigned i = 0;
    for (unsigned bz = 0; bz < grid.z; ++bz)
      for (unsigned by = 0; by < grid.y; ++by)
        for (unsigned bx = 0; bx < grid.x; ++bx)
          for (unsigned tz = 0; tz < block.z; ++tz)
            for (unsigned ty = 0; ty < block.y; ++ty)
              for (unsigned tx = 0; tx < block.x; ++tx, ++i) {
                ASSERT_EQ(out[i].x, static_cast<int>(bx + 10 * by + 100 * bz)) << "element " << i;
                ASSERT_EQ(out[i].y, static_cast<int>(tx));
                ASSERT_EQ(out[i].z, static_cast<int>(ty));
                ASSERT_EQ(out[i].w, static_cast<int>(tz));
              }
  }
}

__global__ void count_up(int* counter, float* sum) {
  atomicAdd(counter, 1);
  atomicAdd(sum, 0.5f);
}

TEST_F(CpuBackend, AtomicsAreAtomicAcrossConcurrentBlocks) {
  course::cpu::set_worker_count(4);
  DeviceBuffer<int> counter(1);
  DeviceBuffer<float> sum(1);
  GPU_CHECK(gpuMemset(counter.data(), 0, counter.bytes()));
  GPU_CHECK(gpuMemset(sum.data(), 0, sum.bytes()));
  course::launch(count_up, {64, 128}, counter.data(), sum.data());
  EXPECT_EQ(counter.to_host()[0], 64 * 128);
  EXPECT_EQ(sum.to_host()[0], 64 * 128 * 0.5f);  // exact: every partial sum is a multiple of 0.5
}

// Each thread reads what its left neighbour wrote. With the barrier this is right in any order;
// without it, it is right only when threads happen to run in index order.
template <bool kWithBarrier>
__global__ void read_left_neighbour(const int* in, int* out) {
  __shared__ int staged[128];
  const int t = threadIdx.x;
  staged[t] = in[blockIdx.x * blockDim.x + t];
  if constexpr (kWithBarrier) __syncthreads();
  out[blockIdx.x * blockDim.x + t] = t == 0 ? 0 : staged[t - 1];
}

// True when every launch gave the right answer.
bool always_right(void (*kernel)(const int*, int*), int launches) {
  constexpr int kThreads = 128, kBlocks = 8;
  std::vector<int> in(kThreads * kBlocks), out;
  bool all_right = true;
  for (int launch = 0; launch < launches; ++launch) {
    std::iota(in.begin(), in.end(), 1000 * launch);  // new values each time: stale ones show
    DeviceBuffer<int> d_in{std::span<const int>(in)}, d_out(in.size());
    d_out.poison();
    course::launch(kernel, {kBlocks, kThreads}, d_in.data(), d_out.data());
    out = d_out.to_host();
    for (int i = 0; i < kThreads * kBlocks; ++i)
      all_right = all_right && out[i] == (i % kThreads == 0 ? 0 : in[i - 1]);
  }
  return all_right;
}

TEST_F(CpuBackend, ShuffledModeCatchesAMissingSyncthreads) {
  // In index order the planted bug hides: each thread's left neighbour already ran to the end.
  course::cpu::set_shuffle_seed(0);
  EXPECT_TRUE(always_right(read_left_neighbour<false>, 3));
  // Shuffled, the same kernel reads values its neighbour has not written yet.
  course::cpu::set_shuffle_seed(12345);
  EXPECT_FALSE(always_right(read_left_neighbour<false>, 3))
      << "the shuffled mode did not expose the missing __syncthreads()";
  // The correct kernel passes in the shuffled mode.
  EXPECT_TRUE(always_right(read_left_neighbour<true>, 3));
}

__global__ void barrier_after_early_return(int* out) {
  if (threadIdx.x >= 16) return;
  __syncthreads();
  out[threadIdx.x] = 1;
}

TEST_F(CpuBackend, ABarrierNotReachedByEveryThreadIsAnError) {
  DeviceBuffer<int> out(32);
  try {
    course::launch(barrier_after_early_return, {1, 32}, out.data());
    FAIL() << "the launch should have failed";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("__syncthreads() was reached by 16 of 32 threads"), std::string::npos)
        << error.what();
  }
}

__global__ void does_nothing() {}

TEST_F(CpuBackend, InvalidLaunchShapesAreRejectedWithTheCallersLine) {
  try {
    course::launch(does_nothing, {1, 2048});
    FAIL() << "a block of 2048 threads should be rejected";
  } catch (const std::runtime_error& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("kernel launch failed at"), std::string::npos) << what;
    EXPECT_NE(what.find("test_cpu_backend.cu"), std::string::npos) << what;
    EXPECT_NE(what.find("invalid configuration"), std::string::npos) << what;
  }
}

// Each thread copies its value into shared memory asynchronously, in `groups` groups of one copy,
// waits until `in_flight` groups may still be pending, then (after a barrier) reads the first
// group's value back, as a ring of tiles does.
template <int kInFlight>
__global__ void first_copy_after_wait(const float* in, float* out, int groups) {
  __shared__ float landed[8][32];
  const int t = threadIdx.x;
  for (int g = 0; g < groups; ++g) {
    course::copy_async(&landed[g][t], &in[g * 32 + t], true);
    course::commit_copies();
  }
  course::wait_copies<kInFlight>();
  __syncthreads();
  out[t] = landed[0][(t + 1) % 32];  // a neighbour's copy: the barrier makes it visible
}

TEST_F(CpuBackend, AnAsynchronousCopyLandsOnlyWhenAWaitCoversItsGroup) {
  std::vector<float> in(8 * 32);
  std::iota(in.begin(), in.end(), 1.0f);
  for (std::uint64_t seed : {0, 7}) {
    course::cpu::set_shuffle_seed(seed);
    DeviceBuffer<float> d_in{std::span<const float>(in)}, d_out(32);
    // Three groups, at most two pending: the first has landed.
    d_out.poison();
    course::launch(first_copy_after_wait<2>, {1, 32}, d_in.data(), d_out.data(), 3);
    std::vector<float> out = d_out.to_host();
    for (int t = 0; t < 32; ++t) EXPECT_EQ(out[t], in[(t + 1) % 32]) << "thread " << t;
    // Three groups, at most three pending: the first may not have landed, and here it has not.
    d_out.poison();
    course::launch(first_copy_after_wait<3>, {1, 32}, d_in.data(), d_out.data(), 3);
    out = d_out.to_host();
    for (int t = 0; t < 32; ++t) EXPECT_TRUE(std::isnan(out[t])) << "thread " << t << " read a copy it did not wait for";
  }
}

__global__ void copy_without_commit(const float* in, float* out) {
  __shared__ float landed[32];
  course::copy_async(&landed[threadIdx.x], &in[threadIdx.x], threadIdx.x % 2 == 0);
  course::wait_copies<0>();  // the copy was never committed: no wait covers it
  __syncthreads();
  out[threadIdx.x] = landed[threadIdx.x];
}

TEST_F(CpuBackend, AnUncommittedCopyNeverLands) {
  std::vector<float> in(32, 3.0f);
  DeviceBuffer<float> d_in{std::span<const float>(in)}, d_out(32);
  d_out.poison();
  course::launch(copy_without_commit, {1, 32}, d_in.data(), d_out.data());
  for (const float value : d_out.to_host()) EXPECT_TRUE(std::isnan(value));
}

// A 4 x 2 box of a 6 x 3 array (x fastest, rows 8 floats apart) copied at (x, y) by one thread;
// every thread reads the tile back, after the wait when `wait` is set.
__global__ void copy_one_tile(const __grid_constant__ course::TileMap map, float* out, int x, int y, bool wait) {
  alignas(128) __shared__ float tile[2][4];
  __shared__ course::TileBarrier landed;
  if (threadIdx.x == 0) course::init_tile_barrier(landed);
  __syncthreads();
  if (threadIdx.x == 0) course::load_tile_async(&tile[0][0], sizeof tile, map, x, y, 0, landed);
  __syncthreads();
  if (wait) course::wait_tile(landed, 0);
  out[threadIdx.x] = tile[threadIdx.x / 4][threadIdx.x % 4];
}

TEST_F(CpuBackend, ATileLandsAtItsWaitWithZerosOutsideTheArray) {
  std::vector<float> in(3 * 8);
  std::iota(in.begin(), in.end(), 1.0f);  // element (x, y) is 1 + x + 8 y
  DeviceBuffer<float> d_in{std::span<const float>(in)}, d_out(8);
  const course::TileMap map = course::make_tile_map(d_in.data(), {6, 3, 1}, {8, 24}, {4, 2, 1}, "test");
  d_out.poison();
  course::launch(copy_one_tile, {1, 8}, map, d_out.data(), 4, 2, true);  // x 4..7 (6, 7 outside), y 2..3 (3 outside)
  EXPECT_EQ(d_out.to_host(), (std::vector<float>{21, 22, 0, 0, 0, 0, 0, 0}));
  d_out.poison();
  course::launch(copy_one_tile, {1, 8}, map, d_out.data(), -1, 0, true);  // x -1 is outside too
  EXPECT_EQ(d_out.to_host(), (std::vector<float>{0, 1, 2, 3, 0, 9, 10, 11}));
  d_out.poison();
  course::launch(copy_one_tile, {1, 8}, map, d_out.data(), 0, 0, false);
  for (const float value : d_out.to_host()) EXPECT_TRUE(std::isnan(value)) << "a tile read before its wait";
}

// A pipeline mistake each, which a GPU answers with a hang, a race or an error: the CPU backend
// stops the program, naming it.
enum class TileMistake { kNoInit, kCountTooLow, kWrongBytes, kMisaligned };

__global__ void misuse_tiles(const __grid_constant__ course::TileMap map, TileMistake mistake) {
  alignas(128) __shared__ float tiles[2][32];  // two 4 x 2 boxes, a 128-byte line each, room to misalign one
  __shared__ course::TileBarrier landed;
  if (threadIdx.x == 0) {
    if (mistake != TileMistake::kNoInit) course::init_tile_barrier(landed, mistake == TileMistake::kCountTooLow ? 1 : 2);
    float* second = mistake == TileMistake::kMisaligned ? &tiles[1][4] : &tiles[1][0];
    const unsigned bytes = mistake == TileMistake::kWrongBytes ? 16 : 32;
    course::load_tile_async(&tiles[0][0], 32, map, 0, 0, 0, landed);
    course::load_tile_async(second, bytes, map, 0, 1, 0, landed);
  }
  __syncthreads();
  course::wait_tile(landed, 0);
}

TEST(CpuBackendDeathTest, ATilePipelineMistakeStopsTheProgram) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<float> in(3 * 8, 1.0f);
  DeviceBuffer<float> d_in{std::span<const float>(in)};
  const course::TileMap map = course::make_tile_map(d_in.data(), {6, 3, 1}, {8, 24}, {4, 2, 1}, "test");
  EXPECT_DEATH(course::launch(misuse_tiles, {1, 4}, map, TileMistake::kNoInit), "has not initialised");
  EXPECT_DEATH(course::launch(misuse_tiles, {1, 4}, map, TileMistake::kCountTooLow), "one copy more than the barrier");
  EXPECT_DEATH(course::launch(misuse_tiles, {1, 4}, map, TileMistake::kWrongBytes), "not the box's");
  EXPECT_DEATH(course::launch(misuse_tiles, {1, 4}, map, TileMistake::kMisaligned), "128-byte boundary");
}

TEST(CpuBackendTiles, AMapRefusesAShapeTheHardwareCannotCopy) {
  std::vector<float> in(64);
  EXPECT_THROW(course::make_tile_map(in.data(), {6, 3, 1}, {8, 24}, {3, 2, 1}, "test"), std::invalid_argument);   // rows of 12 bytes
  EXPECT_THROW(course::make_tile_map(in.data(), {6, 3, 1}, {6, 18}, {4, 2, 1}, "test"), std::invalid_argument);   // rows 24 bytes apart
  EXPECT_THROW(course::make_tile_map(in.data(), {6, 3, 1}, {8, 24}, {4, 300, 1}, "test"), std::invalid_argument); // a side past 256
  EXPECT_THROW(course::make_tile_map(in.data() + 1, {6, 3, 1}, {8, 24}, {4, 2, 1}, "test"), std::invalid_argument); // 4 bytes off
}

__global__ void read_one_past(const float* in, float* out, int n) { out[0] = in[n]; }

// 148 bytes, not a multiple of 16: the 12 bytes up to 160 are the guard band, which reads as NaN;
// from 160 on the page is inaccessible.
TEST(CpuBackendDeathTest, AReadPastTheEndOfABufferStopsTheProgram) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  DeviceBuffer<float> in(37), out(1);
#if defined(COURSE_ASAN)
  const char* report = "heap-buffer-overflow";  // ASan's exact allocations, and its report
#else
  const char* report = "past the end of a buffer";
#endif
  EXPECT_DEATH(course::launch(read_one_past, {1, 1}, in.data(), out.data(), 40), report);
}

TEST(CpuBackendMemory, BlocksStartOn16ByteBoundaries) {
  for (const std::size_t bytes : {std::size_t{4}, std::size_t{16}, std::size_t{148}, std::size_t{4096}, std::size_t{1 << 20}}) {
    void* block = nullptr;
    ASSERT_EQ(gpuMalloc(&block, bytes), gpuSuccess);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % 16, 0u) << bytes << " bytes";
    std::memset(block, 1, bytes);  // all of it is usable
    EXPECT_EQ(gpuFree(block), gpuSuccess);
  }
}

#if !defined(COURSE_ASAN)  // where ASan's exact allocations report the read instead
TEST(CpuBackendMemory, TheBandPastTheLastElementReadsAsNaN) {
  DeviceBuffer<float> in(37), out(1);
  out.poison();
  in.poison();
  course::launch(read_one_past, {1, 1}, in.data(), out.data(), 37);
  EXPECT_TRUE(std::isnan(out.to_host()[0]));
}
#endif

}  // namespace

