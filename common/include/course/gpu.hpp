// One kernel dialect, three backends.
//
// Kernels are written once in CUDA's dialect (__global__, threadIdx, __shared__, __syncthreads()).
// Host code uses the gpu* names below, which map to the CUDA runtime, the HIP runtime or the CPU
// backend (common/cpu_backend). cmake/GpuBackend.cmake defines exactly one COURSE_BACKEND_*.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#if defined(COURSE_BACKEND_CUDA)
#include <cuda_runtime.h>

#define COURSE_BACKEND_NAME "CUDA"
#define gpuDeviceCanAccessPeer cudaDeviceCanAccessPeer
#define gpuDeviceEnablePeerAccess cudaDeviceEnablePeerAccess
#define gpuDeviceGetStreamPriorityRange cudaDeviceGetStreamPriorityRange
#define gpuDeviceProp cudaDeviceProp
#define gpuDeviceSynchronize cudaDeviceSynchronize
#define gpuError_t cudaError_t
#define gpuErrorNoDevice cudaErrorNoDevice
#define gpuErrorPeerAccessAlreadyEnabled cudaErrorPeerAccessAlreadyEnabled
#define gpuEventCreate cudaEventCreate
#define gpuEventCreateWithFlags cudaEventCreateWithFlags
#define gpuEventDestroy cudaEventDestroy
#define gpuEventDisableTiming cudaEventDisableTiming
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEvent_t cudaEvent_t
#define gpuFree cudaFree
#define gpuFreeHost cudaFreeHost
#define gpuGetDevice cudaGetDevice
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuGetErrorString cudaGetErrorString
#define gpuGetLastError cudaGetLastError
#define gpuGraph_t cudaGraph_t
#define gpuGraphDestroy cudaGraphDestroy
#define gpuGraphExec_t cudaGraphExec_t
#define gpuGraphExecDestroy cudaGraphExecDestroy
#define gpuGraphInstantiateFlagUseNodePriority cudaGraphInstantiateFlagUseNodePriority
#define gpuGraphInstantiateWithFlags cudaGraphInstantiateWithFlags
#define gpuGraphLaunch cudaGraphLaunch
#define gpuGraphUpload cudaGraphUpload
#define gpuMalloc cudaMalloc
#define gpuMallocHost cudaMallocHost
#define gpuMemcpy cudaMemcpy
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyPeerAsync cudaMemcpyPeerAsync
#define gpuMemcpyToSymbol cudaMemcpyToSymbol
#define gpuMemset cudaMemset
#define gpuMemsetAsync cudaMemsetAsync
#define gpuSetDevice cudaSetDevice
#define gpuStream_t cudaStream_t
#define gpuStreamBeginCapture cudaStreamBeginCapture
#define gpuStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#define gpuStreamCreate cudaStreamCreate
#define gpuStreamCreateWithFlags cudaStreamCreateWithFlags
#define gpuStreamCreateWithPriority cudaStreamCreateWithPriority
#define gpuStreamDestroy cudaStreamDestroy
#define gpuStreamEndCapture cudaStreamEndCapture
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuStreamWaitEvent cudaStreamWaitEvent
#define gpuSuccess cudaSuccess
#define GPU_DYNAMIC_SHARED(type, name) extern __shared__ type name[]

#elif defined(COURSE_BACKEND_HIP)
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#else
#include <hip/hip_runtime_api.h>  // host-only files, built by the C++ compiler
#endif

#define COURSE_BACKEND_NAME "HIP"
#define gpuDeviceCanAccessPeer hipDeviceCanAccessPeer
#define gpuDeviceEnablePeerAccess hipDeviceEnablePeerAccess
#define gpuDeviceGetStreamPriorityRange hipDeviceGetStreamPriorityRange
#define gpuDeviceProp hipDeviceProp_t
#define gpuDeviceSynchronize hipDeviceSynchronize
#define gpuError_t hipError_t
#define gpuErrorNoDevice hipErrorNoDevice
#define gpuErrorPeerAccessAlreadyEnabled hipErrorPeerAccessAlreadyEnabled
#define gpuEventCreate hipEventCreate
#define gpuEventCreateWithFlags hipEventCreateWithFlags
#define gpuEventDestroy hipEventDestroy
#define gpuEventDisableTiming hipEventDisableTiming
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEvent_t hipEvent_t
#define gpuFree hipFree
#define gpuFreeHost hipHostFree
#define gpuGetDevice hipGetDevice
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuGetErrorString hipGetErrorString
#define gpuGetLastError hipGetLastError
#define gpuGraph_t hipGraph_t
#define gpuGraphDestroy hipGraphDestroy
#define gpuGraphExec_t hipGraphExec_t
#define gpuGraphExecDestroy hipGraphExecDestroy
#define gpuGraphInstantiateWithFlags hipGraphInstantiateWithFlags
#define gpuGraphLaunch hipGraphLaunch
#if HIP_VERSION_MAJOR >= 6
#define gpuGraphInstantiateFlagUseNodePriority hipGraphInstantiateFlagUseNodePriority
#define gpuGraphUpload hipGraphUpload
#else
// HIP 5 has neither: its graphs keep no launch priority per node, and a graph is uploaded at its
// first launch.
inline constexpr unsigned long long gpuGraphInstantiateFlagUseNodePriority = 0;
inline hipError_t gpuGraphUpload(hipGraphExec_t, hipStream_t) { return hipSuccess; }
#endif
#define gpuMalloc hipMalloc
#define gpuMallocHost(pointer, bytes) hipHostMalloc(pointer, bytes, hipHostMallocDefault)
#define gpuMemcpy hipMemcpy
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyPeerAsync hipMemcpyPeerAsync
#define gpuMemcpyToSymbol(symbol, ...) hipMemcpyToSymbol(HIP_SYMBOL(symbol), __VA_ARGS__)
#define gpuMemset hipMemset
#define gpuMemsetAsync hipMemsetAsync
#define gpuSetDevice hipSetDevice
#define gpuStream_t hipStream_t
#define gpuStreamBeginCapture hipStreamBeginCapture
#define gpuStreamCaptureModeThreadLocal hipStreamCaptureModeThreadLocal
#define gpuStreamCreate hipStreamCreate
#define gpuStreamCreateWithFlags hipStreamCreateWithFlags
#define gpuStreamCreateWithPriority hipStreamCreateWithPriority
#define gpuStreamDestroy hipStreamDestroy
#define gpuStreamEndCapture hipStreamEndCapture
#define gpuStreamNonBlocking hipStreamNonBlocking
#define gpuStreamSynchronize hipStreamSynchronize
#define gpuStreamWaitEvent hipStreamWaitEvent
#define gpuSuccess hipSuccess
#define GPU_DYNAMIC_SHARED(type, name) extern __shared__ type name[]

#elif defined(COURSE_BACKEND_CPU)
#include "course/cpu_backend.hpp"

#define COURSE_BACKEND_NAME "CPU"

#else
#error "No backend selected: configure with -DGPU_BACKEND=CUDA|HIP|CPU (cmake/GpuBackend.cmake)"
#endif

// __launch_bounds__ with one meaning on every backend: COURSE_LAUNCH_BOUNDS(threads) promises
// blocks of at most `threads` threads; COURSE_LAUNCH_BOUNDS(threads, blocks) also asks the
// compiler to budget registers so that `blocks` such blocks fit on one multiprocessor. CUDA reads
// the second argument as blocks per multiprocessor; HIP reads it as waves per SIMD (execution
// unit), so it is converted here for the GPUs the course targets, GCN and CDNA (wave64, 4 SIMDs
// a compute unit; RDNA's compute units have 2 SIMD32s and would need another conversion).
// Shared memory may still allow fewer blocks than asked (CDNA has 64 KB a compute unit): the
// budget then only costs registers. The arguments must not contain commas.
#if defined(COURSE_BACKEND_HIP)
#if defined(__AMDGCN_WAVEFRONT_SIZE)
#define COURSE_WAVE_SIZE __AMDGCN_WAVEFRONT_SIZE
#else
#define COURSE_WAVE_SIZE 64
#endif
#define COURSE_LAUNCH_BOUNDS_2(threads, blocks) \
  __launch_bounds__(threads, ((blocks) * (((threads) + COURSE_WAVE_SIZE - 1) / COURSE_WAVE_SIZE) + 3) / 4)
#else
// A multiprocessor holds at most 2048 threads (sm_80, sm_90, sm_100), 1536 (sm_86, sm_87, sm_89,
// sm_120, sm_121) or 1024 (sm_75): where `blocks` blocks would not fit, the budget is for as many
// as fit (ptxas would drop it, with a warning), so a step tuned on an H100 builds for any GPU.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define COURSE_THREADS_PER_SM 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || \
                                 __CUDA_ARCH__ == 1200 || __CUDA_ARCH__ == 1210)
#define COURSE_THREADS_PER_SM 1536
#else
#define COURSE_THREADS_PER_SM 2048
#endif
#define COURSE_LAUNCH_BOUNDS_2(threads, blocks) \
  __launch_bounds__(threads, ((blocks) * (threads) <= COURSE_THREADS_PER_SM ? (blocks) : COURSE_THREADS_PER_SM / (threads)))
#endif
#define COURSE_LAUNCH_BOUNDS_1(threads) __launch_bounds__(threads)
#define COURSE_LAUNCH_BOUNDS_PICK(_1, _2, name, ...) name
#define COURSE_LAUNCH_BOUNDS(...) \
  COURSE_LAUNCH_BOUNDS_PICK(__VA_ARGS__, COURSE_LAUNCH_BOUNDS_2, COURSE_LAUNCH_BOUNDS_1, unused)(__VA_ARGS__)

namespace course {

// Thrown by every failed runtime call and launch; the message names the call, file and line.
[[noreturn]] void throw_gpu_error(gpuError_t status, const char* call, const char* file, int line);

// Turns on the current device's direct access to `peer`'s memory where the two have a path
// (NVLink, or PCIe peer to peer); on already is fine. Without a path peer copies still work,
// staged by the driver.
void enable_peer_access(int peer);

inline void check_gpu(gpuError_t status, const char* call, const char* file, int line) {
  if (status != gpuSuccess) throw_gpu_error(status, call, file, line);
}

// Thrown, before any launch, by a step that needs what this device lacks (an architecture, a unit):
// its tests skip and its benchmark cases are skipped, each with this message, instead of failing.
struct Unsupported : std::runtime_error {
  explicit Unsupported(const std::string& why) : std::runtime_error(why) {}
};

// Steps that move 16 bytes at a time refuse a pointer that is not aligned to it, before any
// launch: std::invalid_argument naming the step's reason.
void require_aligned(const void* pointer, std::size_t bytes, const char* why);

// Blocks of `per_block` threads needed to cover `n` items: the grid-size rounding, in one place.
constexpr unsigned blocks_for(long long n, long long per_block) {
  return static_cast<unsigned>((n + per_block - 1) / per_block);
}

// A launch's shape, the stream it goes to (the default stream unless named), and where the
// launch was written, so a failed launch names its own file and line.
struct LaunchShape {
  dim3 grid;
  dim3 block;
  std::size_t shared_bytes;
  gpuStream_t stream;
  std::source_location where;
  LaunchShape(dim3 grid_, dim3 block_, std::size_t shared_bytes_ = 0, gpuStream_t stream_ = nullptr,
              std::source_location where_ = std::source_location::current())
      : grid(grid_), block(block_), shared_bytes(shared_bytes_), stream(stream_), where(where_) {}
};

// A float's bits and back, in kernels and on the host alike (for bit tricks such as a first
// guess of a reciprocal square root).
__host__ __device__ inline std::uint32_t float_bits(float value) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __float_as_uint(value);
#else
  return std::bit_cast<std::uint32_t>(value);
#endif
}
__host__ __device__ inline float float_from_bits(std::uint32_t bits) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __uint_as_float(bits);
#else
  return std::bit_cast<float>(bits);
#endif
}

// Whether warp_slot() below says where a warp sits (NVIDIA's %warpid): host code asks too, so it
// stands outside the kernel compiler's part.
#if defined(COURSE_BACKEND_CUDA)
inline constexpr bool has_warp_slots = true;
#else
inline constexpr bool has_warp_slots = false;
#endif

// Kernel code and launches need the kernel compiler; host-only files (tests, benchmarks) may
// include this header for the runtime calls alone.
#if defined(COURSE_BACKEND_CPU) || defined(__CUDACC__) || defined(__HIPCC__)

// Every kernel launch in the course goes through here: course::launch(kernel, {grid, block}, args...),
// or {grid, block, shared_bytes, stream} on a stream. The launch is checked at once; errors inside
// the kernel surface at the next checked call.
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), const LaunchShape& shape, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "kernel called with the wrong number of arguments");
#if defined(COURSE_BACKEND_CPU)
  // The arguments are copied, as a GPU launch copies them: work on a stream runs later.
  const gpuError_t status = cpu::launch(
      shape.grid, shape.block, shape.shared_bytes, shape.stream,
      [kernel, params = std::tuple<std::decay_t<Params>...>(static_cast<Params>(args)...)] { std::apply(kernel, params); });
#else
  kernel<<<shape.grid, shape.block, shape.shared_bytes, shape.stream>>>(std::forward<Args>(args)...);
  const gpuError_t status = gpuGetLastError();
#endif
  check_gpu(status, "kernel launch", shape.where.file_name(), static_cast<int>(shape.where.line()));
}

// Portable spellings of the vendor-specific memory operations the course uses.
#if defined(COURSE_BACKEND_CUDA)
template <class T> __device__ __forceinline__ T load_readonly(const T* p) { return __ldg(p); }
template <class T> __device__ __forceinline__ void store_streaming(T* p, const T& v) { __stcs(p, v); }
#elif defined(COURSE_BACKEND_HIP)
template <class T> __device__ __forceinline__ T load_readonly(const T* p) { return __ldg(p); }
template <class T> __device__ __forceinline__ void store_streaming(T* p, const T& v) {
  if constexpr (sizeof(T) == 16 && alignof(T) == 16) {
    __builtin_nontemporal_store(v.data, &p->data);  // HIP's vector types wrap a clang vector
  } else {
    __builtin_nontemporal_store(v, p);
  }
}
#else
template <class T> inline T load_readonly(const T* p) { return *p; }
template <class T> inline void store_streaming(T* p, const T& v) { *p = v; }
#endif

// 1/sqrt(x) in one instruction of the multi-function unit, where rsqrtf() adds a few to scale
// denormal inputs: the hardware's approximation (CUDA rsqrt.approx.ftz, the instruction rsqrtf
// uses for normal inputs, within its 2 ulp; AMD v_rsq_f32), with denormal inputs flushed to
// zero. On the CPU backend, 1/sqrt.
#if defined(COURSE_BACKEND_CUDA)
__device__ __forceinline__ float rsqrt_approx(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
#elif defined(COURSE_BACKEND_HIP)
__device__ __forceinline__ float rsqrt_approx(float x) {
#if defined(__HIP_DEVICE_COMPILE__)
  return __builtin_amdgcn_rsqf(x);
#else
  return rsqrtf(x);
#endif
}
#else
inline float rsqrt_approx(float x) { return 1.0f / std::sqrt(x); }
#endif

// The multiprocessor (on AMD, the compute unit) the calling block runs on, for kernels that
// share out work by where their blocks land (chapter 4's step 06). The CPU backend runs every
// block on one pool of workers: 0.
#if defined(COURSE_BACKEND_CUDA)
__device__ __forceinline__ unsigned multiprocessor_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}
#elif defined(COURSE_BACKEND_HIP)
__device__ __forceinline__ unsigned multiprocessor_id() { return __smid(); }
#else
inline unsigned multiprocessor_id() { return 0; }
#endif

// The calling warp's slot on its multiprocessor, where the backend implements it
// (has_warp_slots): NVIDIA's %warpid, which PTX calls volatile (a warp may move, as on
// preemption), so read it for placement, never for correctness. Chapter 4's step 06 is faster
// with the warps whose work must not wait in the lowest slots. Elsewhere (not implemented for AMD,
// whose HW_ID register holds it; nothing to say on the CPU backend) 0.
#if defined(COURSE_BACKEND_CUDA)
__device__ __forceinline__ unsigned warp_slot() {
  unsigned slot;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(slot));
  return slot;
}
#else
__host__ __device__ inline unsigned warp_slot() { return 0; }
#endif

// Asynchronous copies from global to shared memory: copy_async() starts a copy of one 4-, 8- or
// 16-byte value (both addresses aligned to its size), commit_copies() closes the group of copies
// this thread started since the last commit, and wait_copies<N>() waits until at most N of this
// thread's groups are still in flight; other threads' copies need a barrier after it. With
// `valid == false` the value is set to zero and nothing is read. NVIDIA GPUs from sm_80 on copy
// without passing through registers (cp.async). The CPU backend keeps the protocol: a copy's
// destination holds the poison until a wait covers its group (course::cpu::AsyncCopies), so a
// wait too few, or a group not committed, fails there as it would on a GPU. Elsewhere (AMD,
// NVIDIA before sm_80) the copy is an ordinary load and store, done when copy_async() returns.
#if defined(COURSE_BACKEND_CUDA) && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800)
// cp.async.ca, not the .cg that cuda_pipeline's 16-byte copies use: .ca keeps the lines in L1,
// so the sectors that two warps of a block both copy (a tile row split between them) are
// fetched from L2 once.
template <class T> __device__ __forceinline__ void copy_async(T* shared, const T* global, bool valid) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, "cp.async moves 4, 8 or 16 bytes");
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(shared))),
               "l"(global), "n"(sizeof(T)), "r"(valid ? static_cast<int>(sizeof(T)) : 0)
               : "memory");
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int InFlight> __device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(InFlight) : "memory");
}
#elif defined(COURSE_BACKEND_CPU)
template <class T> inline void copy_async(T* shared, const T* global, bool valid) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, "cp.async moves 4, 8 or 16 bytes");
  cpu::current->copies->start(shared, global, sizeof(T), valid);
}
inline void commit_copies() { cpu::current->copies->commit(); }
template <int InFlight> inline void wait_copies() {
  static_assert(InFlight >= 0, "wait_copies<N>: N groups may stay in flight, N >= 0");
  cpu::current->copies->wait(InFlight);
}
#else
template <class T> __device__ __forceinline__ void copy_async(T* shared, const T* global, bool valid) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, "cp.async moves 4, 8 or 16 bytes");
  *shared = valid ? *global : T{};
}
__device__ __forceinline__ void commit_copies() {}
template <int InFlight> __device__ __forceinline__ void wait_copies() {}
#endif

#endif  // kernel compiler

}  // namespace course

// The one error-check macro: GPU_CHECK(gpuMalloc(&p, bytes));
#define GPU_CHECK(call) ::course::check_gpu((call), #call, __FILE__, __LINE__)
