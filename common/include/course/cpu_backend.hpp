// The CPU backend: CUDA's kernel dialect on the host.
//
// A launch spreads the blocks of the grid over a pool of OS threads. The threads of one block run
// as fibers on one OS thread, so __shared__ (a function-local `static thread_local`) is storage
// per block, and __syncthreads() is a fiber barrier: each fiber runs until it reaches the barrier,
// then the next one runs. Warp-level primitives are rejected at compile time rather than
// emulated. Timings of this backend say nothing about GPU timings.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

// COURSE_ASAN: built with AddressSanitizer (the fibers' stacks and the allocations adapt).
#if defined(__SANITIZE_ADDRESS__)
#define COURSE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COURSE_ASAN 1
#endif
#endif

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __constant__
// Function-local static thread_local: one copy per OS thread, and a block's fibers share an OS thread.
#define __shared__ static thread_local

// --- vector types -------------------------------------------------------------------------------
struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct alignas(8) float2 {
  float x, y;
};
struct float3 {
  float x, y, z;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(8) int2 {
  int x, y;
};
struct alignas(16) int4 {
  int x, y, z, w;
};
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float3 make_float3(float x, float y, float z) { return {x, y, z}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }

// --- runtime API --------------------------------------------------------------------------------
enum gpuError_t {
  gpuSuccess = 0,
  gpuErrorInvalidValue = 1,
  gpuErrorMemoryAllocation = 2,
  gpuErrorLaunchFailure = 4,
  gpuErrorInvalidConfiguration = 9,
  gpuErrorNoDevice = 100,
  gpuErrorInvalidDevice = 101,
  gpuErrorPeerAccessAlreadyEnabled = 704,
  gpuErrorStreamCaptureUnsupported = 900,
  gpuErrorStreamCaptureUnjoined = 904,
};
enum gpuMemcpyKind {
  gpuMemcpyHostToHost = 0,
  gpuMemcpyHostToDevice = 1,
  gpuMemcpyDeviceToHost = 2,
  gpuMemcpyDeviceToDevice = 3,
};
struct gpuDeviceProp {
  char name[256];
  int multiProcessorCount;
  int maxThreadsPerBlock;
  std::size_t sharedMemPerBlock;
  std::size_t totalGlobalMem;  // the host's physical memory: "device" memory is host memory here
  int l2CacheSize;
  int warpSize;
  int major;
  int minor;
};
using gpuEvent_t = struct CpuEvent*;
using gpuStream_t = struct CpuStream*;
using gpuGraph_t = struct CpuGraph*;
using gpuGraphExec_t = struct CpuGraphExec*;
inline constexpr unsigned gpuStreamNonBlocking = 1;
inline constexpr unsigned gpuEventDisableTiming = 2;
enum gpuStreamCaptureMode { gpuStreamCaptureModeGlobal, gpuStreamCaptureModeThreadLocal, gpuStreamCaptureModeRelaxed };

const char* gpuGetErrorString(gpuError_t status);
gpuError_t gpuGetLastError();
gpuError_t gpuGetDeviceCount(int* count);
gpuError_t gpuGetDeviceProperties(gpuDeviceProp* prop, int device);
gpuError_t gpuDeviceSynchronize();
gpuError_t gpuMalloc(void** pointer, std::size_t bytes);
template <class T>
gpuError_t gpuMalloc(T** pointer, std::size_t bytes) {
  return gpuMalloc(reinterpret_cast<void**>(pointer), bytes);
}
gpuError_t gpuFree(void* pointer);
gpuError_t gpuMemcpy(void* dst, const void* src, std::size_t bytes, gpuMemcpyKind kind);
gpuError_t gpuMemset(void* dst, int value, std::size_t bytes);
gpuError_t gpuEventCreate(gpuEvent_t* event);
gpuError_t gpuEventCreateWithFlags(gpuEvent_t* event, unsigned flags);
gpuError_t gpuEventDestroy(gpuEvent_t event);
gpuError_t gpuEventRecord(gpuEvent_t event, gpuStream_t stream = nullptr);
gpuError_t gpuEventSynchronize(gpuEvent_t event);
gpuError_t gpuEventElapsedTime(float* milliseconds, gpuEvent_t start, gpuEvent_t stop);

// Devices, streams, peers and graphs (common/cpu_backend/streams.cpp). The backend has
// kCpuDevices devices; they share the host's memory and one pool of workers, so every device
// can access every other's memory. Work on the default stream (nullptr) runs at once, as every
// launch did before streams; work on a stream of one's own runs later, when something waits for
// it: a synchronize call, or another stream's wait on an event recorded after it (see
// streams.cpp). A program that forgets a wait therefore reads stale data here, as it may on a GPU.
inline constexpr int kCpuDevices = 8;
gpuError_t gpuSetDevice(int device);
gpuError_t gpuGetDevice(int* device);
gpuError_t gpuStreamCreate(gpuStream_t* stream);
gpuError_t gpuStreamCreateWithFlags(gpuStream_t* stream, unsigned flags);
gpuError_t gpuStreamCreateWithPriority(gpuStream_t* stream, unsigned flags, int priority);
gpuError_t gpuDeviceGetStreamPriorityRange(int* least, int* greatest);
gpuError_t gpuStreamDestroy(gpuStream_t stream);
gpuError_t gpuStreamSynchronize(gpuStream_t stream);
gpuError_t gpuStreamWaitEvent(gpuStream_t stream, gpuEvent_t event, unsigned flags = 0);
gpuError_t gpuMemcpyAsync(void* dst, const void* src, std::size_t bytes, gpuMemcpyKind kind, gpuStream_t stream = nullptr);
gpuError_t gpuMemsetAsync(void* dst, int value, std::size_t bytes, gpuStream_t stream = nullptr);
gpuError_t gpuMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes,
                              gpuStream_t stream = nullptr);
gpuError_t gpuDeviceCanAccessPeer(int* can_access, int device, int peer);
gpuError_t gpuDeviceEnablePeerAccess(int peer, unsigned flags);
gpuError_t gpuMallocHost(void** pointer, std::size_t bytes);
template <class T>
gpuError_t gpuMallocHost(T** pointer, std::size_t bytes) {
  return gpuMallocHost(reinterpret_cast<void**>(pointer), bytes);
}
gpuError_t gpuFreeHost(void* pointer);
// Capture records a stream's work (and that of the streams that wait on its events) instead of
// running it; a launch of the graph queues all of it, in the order it was captured, on a stream.
// As with CUDA, a capture ends on the stream it began on, after every stream it forked has
// joined it back (an event recorded after its last work, waited for by a captured stream).
gpuError_t gpuStreamBeginCapture(gpuStream_t stream, gpuStreamCaptureMode mode);
gpuError_t gpuStreamEndCapture(gpuStream_t stream, gpuGraph_t* graph);
// Flags are accepted and change nothing here: the graph's work runs in its captured order.
inline constexpr unsigned long long gpuGraphInstantiateFlagUseNodePriority = 8;  // CUDA's value
gpuError_t gpuGraphInstantiateWithFlags(gpuGraphExec_t* executable, gpuGraph_t graph, unsigned long long flags);
// Nothing to upload (the graph is host memory here); refuses a null graph as CUDA does.
gpuError_t gpuGraphUpload(gpuGraphExec_t executable, gpuStream_t stream);
gpuError_t gpuGraphLaunch(gpuGraphExec_t executable, gpuStream_t stream);
gpuError_t gpuGraphDestroy(gpuGraph_t graph);
gpuError_t gpuGraphExecDestroy(gpuGraphExec_t executable);
// A __constant__ symbol (plain storage here) larger than the GPUs' 64 KB of constant memory does
// not compile, as it would not link for CUDA. `kind` is accepted as CUDA's is: device memory is
// host memory on this backend.
inline constexpr std::size_t kConstantMemoryBytes = 64 * 1024;
template <class T>
gpuError_t gpuMemcpyToSymbol(T& symbol, const void* src, std::size_t bytes, std::size_t offset = 0,
                             gpuMemcpyKind = gpuMemcpyHostToDevice) {
  static_assert(sizeof(T) <= kConstantMemoryBytes, "a __constant__ symbol holds at most 64 KB");
  if (offset + bytes > sizeof(T)) return gpuErrorInvalidValue;
  if (bytes > 0) std::memcpy(reinterpret_cast<unsigned char*>(&symbol) + offset, src, bytes);
  return gpuSuccess;
}

namespace course::cpu {

// A thread's asynchronous copies (course::copy_async) as the GPU sees them: a copy lands only
// when a wait that covers its group returns, and until then its destination holds the poison
// (all bits set), so code that reads a tile too early computes NaNs here as it would read stale
// data there. Copies in the same group may land in any order on a GPU; here they land in order.
class AsyncCopies {
 public:
  void start(void* destination, const void* source, unsigned bytes, bool valid) {
    if (reinterpret_cast<std::uintptr_t>(destination) % bytes != 0 || reinterpret_cast<std::uintptr_t>(source) % bytes != 0) {
      std::fprintf(stderr, "\nerror: course::copy_async of %u bytes from or to an address that is not a multiple of %u "
                   "(a GPU stops with 'misaligned address')\n", bytes, bytes);
      std::abort();
    }
    Copy copy{static_cast<std::byte*>(destination), {}, bytes, open_group_};
    if (valid) std::memcpy(copy.value, source, bytes);  // a GPU may read it any time before it lands
    std::memset(destination, 0xff, bytes);
    copies_.push_back(copy);
  }
  void commit() { ++open_group_; }
  // Lands every copy of the committed groups but the newest `in_flight` ones.
  void wait(unsigned in_flight) {
    const std::uint64_t landed_below = open_group_ > in_flight ? open_group_ - in_flight : 0;
    std::size_t n = 0;
    for (; n < copies_.size() && copies_[n].group < landed_below; ++n)
      std::memcpy(copies_[n].destination, copies_[n].value, copies_[n].bytes);
    copies_.erase(copies_.begin(), copies_.begin() + static_cast<std::ptrdiff_t>(n));
  }
  void clear() {
    copies_.clear();
    open_group_ = 0;
  }

 private:
  struct Copy {
    std::byte* destination;
    std::byte value[16];  // zero when the copy is not valid, as cp.async fills it
    unsigned bytes;
    std::uint64_t group;
  };
  std::vector<Copy> copies_;  // in the order they started
  std::uint64_t open_group_ = 0;
};

// What a fiber knows about itself; `current` points at the running fiber's context.
struct ThreadContext {
  uint3 thread_idx;
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
  std::byte* dynamic_shared;
  struct FiberState* fiber;
  AsyncCopies* copies;
  std::uint64_t block_serial;  // which block of which launch, unique on this OS thread (shared memory's owner)
};
inline thread_local ThreadContext* current = nullptr;

// Runs body() once for every thread of every block: on the default stream before it returns,
// on another stream when that stream's work runs. Launches from several host threads run one at
// a time, each on the whole pool.
gpuError_t launch(dim3 grid, dim3 block, std::size_t shared_bytes, gpuStream_t stream, std::function<void()> body);
void sync_threads();
// Why the last failed launch failed, in words (the error code alone says little).
const char* last_launch_failure();

// Test and debugging knobs (also read from the environment at start-up):
//   COURSE_CPU_THREADS=n   OS threads that run blocks, 1 to 1024 (default: hardware threads); a
//                          grid of large blocks runs on as many of them at once as its fibers'
//                          guarded stacks fit the kernel's memory mappings (runtime.cpp)
//   COURSE_CPU_SHUFFLE=s   run the fibers of a block in an order shuffled with seed s, anew
//                          between barriers, so a missing __syncthreads() shows as a wrong result
//                          (0: in order). Any other value stops the program naming the variable.
void set_worker_count(unsigned workers);
void set_shuffle_seed(std::uint64_t seed);  // 0 turns shuffling off
std::uint64_t shuffle_seed();

template <class...>
inline constexpr bool unsupported_on_cpu = false;

}  // namespace course::cpu

#define threadIdx (::course::cpu::current->thread_idx)
#define blockIdx (::course::cpu::current->block_idx)
#define blockDim (::course::cpu::current->block_dim)
#define gridDim (::course::cpu::current->grid_dim)
#define GPU_DYNAMIC_SHARED(type, name) \
  type* name = reinterpret_cast<type*>(::course::cpu::current->dynamic_shared)

inline constexpr int warpSize = 32;
inline void __syncthreads() { ::course::cpu::sync_threads(); }

// Warp-level primitives would need the 32 lanes of a warp to run in lock-step; fibers do not, so
// code that uses them must not compile here rather than compute something else.
#define COURSE_CPU_REJECT(name)                                                              \
  template <class... T>                                                                      \
  void name(T...) {                                                                          \
    static_assert(::course::cpu::unsupported_on_cpu<T...>,                                   \
                  #name ": warp-level primitives are not supported by the CPU backend; "     \
                        "use shared memory and __syncthreads() instead");                    \
  }
COURSE_CPU_REJECT(__syncwarp)
COURSE_CPU_REJECT(__shfl_sync)
COURSE_CPU_REJECT(__shfl_up_sync)
COURSE_CPU_REJECT(__shfl_down_sync)
COURSE_CPU_REJECT(__shfl_xor_sync)
COURSE_CPU_REJECT(__ballot_sync)
COURSE_CPU_REJECT(__any_sync)
COURSE_CPU_REJECT(__all_sync)
COURSE_CPU_REJECT(__activemask)
COURSE_CPU_REJECT(__match_any_sync)
#undef COURSE_CPU_REJECT

// --- device math the course uses ------------------------------------------------------------------
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __expf(float x) { return std::exp(x); }
inline float __saturatef(float x) { return std::clamp(x, 0.0f, 1.0f); }
template <class T>
inline T __ldg(const T* p) { return *p; }
inline int min(int a, int b) { return std::min(a, b); }
inline int max(int a, int b) { return std::max(a, b); }
inline unsigned min(unsigned a, unsigned b) { return std::min(a, b); }
inline unsigned max(unsigned a, unsigned b) { return std::max(a, b); }
inline long long min(long long a, long long b) { return std::min(a, b); }
inline long long max(long long a, long long b) { return std::max(a, b); }
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }

// --- atomics: blocks run concurrently on several OS threads, so these are real atomics ----------
template <class T>
inline T atomicAdd(T* address, T value) { return std::atomic_ref<T>(*address).fetch_add(value); }
template <class T>
inline T atomicSub(T* address, T value) { return std::atomic_ref<T>(*address).fetch_sub(value); }
template <class T>
inline T atomicExch(T* address, T value) { return std::atomic_ref<T>(*address).exchange(value); }
template <class T>
inline T atomicCAS(T* address, T expected, T desired) {
  std::atomic_ref<T>(*address).compare_exchange_strong(expected, desired);
  return expected;
}
template <class T>
inline T atomicMax(T* address, T value) {
  std::atomic_ref<T> target(*address);
  T seen = target.load();
  while (seen < value && !target.compare_exchange_weak(seen, value)) {
  }
  return seen;
}
template <class T>
inline T atomicMin(T* address, T value) {
  std::atomic_ref<T> target(*address);
  T seen = target.load();
  while (value < seen && !target.compare_exchange_weak(seen, value)) {
  }
  return seen;
}
