// The CPU backend's runtime: memory and the launch of a grid of fibers (streams and events:
// streams.cpp).
#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include "course/cpu_backend.hpp"
#include "course/numbers.hpp"
#include "streams.hpp"

#if defined(COURSE_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif

namespace ctx = boost::context;

namespace course::cpu {
namespace {

constexpr unsigned kMaxThreadsPerBlock = 1024;
constexpr std::size_t kMaxSharedBytes = 48 * 1024;
constexpr unsigned kMaxWorkers = 1024;  // COURSE_CPU_THREADS beyond this would only exhaust the machine
#if defined(COURSE_ASAN)
constexpr std::size_t kFiberStackBytes = 256 * 1024;  // ASan's redzones make frames larger
#else
constexpr std::size_t kFiberStackBytes = 64 * 1024;
#endif

// ASan must be told about every switch between stacks, or it reports (and misses) errors as if
// one stack were another. These wrap its fiber interface and vanish without ASan.
void asan_start_switch([[maybe_unused]] void** fake_stack, [[maybe_unused]] const void* bottom,
                       [[maybe_unused]] std::size_t size) {
#if defined(COURSE_ASAN)
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
#endif
}
void asan_finish_switch([[maybe_unused]] void* fake_stack, [[maybe_unused]] const void** bottom_old,
                        [[maybe_unused]] std::size_t* size_old) {
#if defined(COURSE_ASAN)
  __sanitizer_finish_switch_fiber(fake_stack, bottom_old, size_old);
#endif
}

// Guarded fiber stacks (each a stack and, below it, an inaccessible page that stops an overflow),
// shared by every worker. A stack is two of the kernel's memory mappings, of which a process may
// hold vm.max_map_count (65530 by default), and 1024 workers each running a block of 1024 threads
// would need two million. So the stacks are one pool that never grows past half that budget (the
// other half is for the device's buffers, the threads' own stacks and the libraries): a block
// takes its threads' stacks when it starts and gives them back when it ends, and a grid runs on
// as many workers at once as the pool has stacks for (blocks_at_once). Stacks are never unmapped,
// so under ASan no thread started later (a rank) gets the memory of a stack whose redzones a
// fiber unwound at a failed barrier left poisoned.
class StackPool {
 public:
  static StackPool& instance() {
    static StackPool* const pool = new StackPool;  // never destroyed: a worker may still hold stacks at exit
    return *pool;
  }
  // How many blocks of `threads` threads may run at once.
  unsigned blocks_at_once(unsigned threads) const { return static_cast<unsigned>(std::max<std::size_t>(1, most_ / threads)); }
  // Adds `count` stacks to `stacks`: the pool's, or new ones (std::bad_alloc when none can be mapped).
  void take(std::size_t count, std::vector<ctx::stack_context>& stacks) {
    std::lock_guard lock(mutex_);
    for (; count > 0 && !free_.empty(); --count) {
      stacks.push_back(free_.back());
      free_.pop_back();
    }
    for (; count > 0; --count) stacks.push_back(allocator_.allocate());
  }
  void give_back(std::vector<ctx::stack_context>& stacks) {
    std::lock_guard lock(mutex_);
    free_.insert(free_.end(), stacks.begin(), stacks.end());
    stacks.clear();
  }

 private:
  StackPool() {
    std::size_t mappings = 65530;
    std::ifstream("/proc/sys/vm/max_map_count") >> mappings;
    most_ = mappings / 2 / 2;
  }
  std::mutex mutex_;
  std::vector<ctx::stack_context> free_;
  std::size_t most_ = 0;  // stacks that may exist at once
  ctx::protected_fixedsize_stack allocator_{kFiberStackBytes};
};

// Hands a block's fibers the stacks it took from the pool, and remembers each one's extent for ASan.
class CachedStack {
 public:
  CachedStack(std::vector<ctx::stack_context>* stacks, const void** bottom, std::size_t* size)
      : stacks_(stacks), bottom_(bottom), size_(size) {}
  ctx::stack_context allocate() {
    const ctx::stack_context stack = stacks_->back();
    stacks_->pop_back();
    *bottom_ = static_cast<const char*>(stack.sp) - stack.size;
    *size_ = stack.size;
    return stack;
  }
  void deallocate(ctx::stack_context& stack) noexcept { stacks_->push_back(stack); }

 private:
  std::vector<ctx::stack_context>* stacks_;
  const void** bottom_;
  std::size_t* size_;
};

// The scheduler's stack, as ASan needs it when a fiber switches back.
thread_local const void* scheduler_stack_bottom = nullptr;
thread_local std::size_t scheduler_stack_size = 0;

}  // namespace

struct FiberState {
  ctx::fiber fiber;      // held by the scheduler: resumes this thread of the block
  ctx::fiber scheduler;  // held by the fiber while it runs: resumes the scheduler
  const void* stack_bottom = nullptr;
  std::size_t stack_size = 0;
  void* fake_stack = nullptr;
  bool finished = false;
};

namespace {

struct LaunchError {
  std::mutex mutex;
  std::string message;
  std::atomic<bool> failed{false};
  void set(std::string what) {
    std::lock_guard lock(mutex);
    if (!failed.exchange(true)) message = std::move(what);
  }
};

std::string block_name(const uint3& b) {
  return "(" + std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z) + ")";
}

// Runs one block: all its threads as fibers on this OS thread, released together at barriers.
void run_block(const uint3& block_idx, const dim3& grid, const dim3& block, std::size_t shared_bytes,
               const std::function<void()>& body, std::uint64_t seed, LaunchError& error) {
  const unsigned n = block.x * block.y * block.z;
  thread_local std::vector<ThreadContext> contexts;
  thread_local std::vector<FiberState> fibers;
  thread_local std::vector<AsyncCopies> copies;
  thread_local std::vector<std::byte> dynamic_shared;
  thread_local std::vector<unsigned> order;
  thread_local std::vector<ctx::stack_context> stacks;  // the block's, from the pool while it runs
  StackPool& stack_pool = StackPool::instance();
  try {
    stack_pool.take(n, stacks);
  } catch (const std::bad_alloc&) {
    stack_pool.give_back(stacks);
    error.set("the CPU backend could not map the fiber stacks of a block of " + std::to_string(n) +
              " threads: the machine is out of memory or of memory mappings (vm.max_map_count)");
    return;
  }
  contexts.assign(n, ThreadContext{});
  fibers.clear();
  fibers.resize(n);
  copies.resize(n);
  for (AsyncCopies& queue : copies) queue.clear();  // copies a thread never waited for die with it
  order.resize(n);
  // Dynamic shared memory starts as NaN-like garbage, as uninitialised memory might on a GPU.
  dynamic_shared.assign(shared_bytes, std::byte{0xff});

  thread_local std::uint64_t blocks_run = 0;
  const std::uint64_t block_serial = ++blocks_run;
  for (unsigned t = 0; t < n; ++t) {
    ThreadContext& context = contexts[t];
    context.thread_idx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
    context.block_idx = block_idx;
    context.block_serial = block_serial;
    context.block_dim = block;
    context.grid_dim = grid;
    context.dynamic_shared = dynamic_shared.data();
    context.fiber = &fibers[t];
    context.copies = &copies[t];
    order[t] = t;
    FiberState& state = fibers[t];
    state.fiber = ctx::fiber(std::allocator_arg, CachedStack{&stacks, &state.stack_bottom, &state.stack_size}, [&body, &state](ctx::fiber&& scheduler) {
      state.scheduler = std::move(scheduler);
      asan_finish_switch(nullptr, &scheduler_stack_bottom, &scheduler_stack_size);
      body();
      state.finished = true;
      asan_start_switch(nullptr, scheduler_stack_bottom, scheduler_stack_size);  // this stack dies
      return std::move(state.scheduler);
    });
  }

  std::mt19937_64 shuffle(seed ^ (0x9e3779b97f4a7c15ull * (1 + block_idx.x + 7919ull * block_idx.y +
                                                            104729ull * block_idx.z)));
  unsigned finished = 0;
  while (finished < n) {
    if (seed != 0) std::shuffle(order.begin(), order.end(), shuffle);
    unsigned at_barrier = 0;
    for (unsigned t : order) {
      FiberState& state = fibers[t];
      if (state.finished) continue;
      current = &contexts[t];
      asan_start_switch(&state.fake_stack, state.stack_bottom, state.stack_size);
      state.fiber = std::move(state.fiber).resume();
      asan_finish_switch(state.fake_stack, nullptr, nullptr);
      current = nullptr;
      if (state.finished) {
        ++finished;
      } else {
        ++at_barrier;
      }
    }
    if (at_barrier != 0 && finished != 0) {
      // Some threads returned while others wait at __syncthreads(): on a GPU that is undefined
      // behaviour (a hang or a barrier that releases too early). Unwind the waiting fibers.
      error.set("__syncthreads() was reached by " + std::to_string(at_barrier) + " of " +
                std::to_string(n) + " threads of block " + block_name(block_idx) +
                "; the others had returned. Every thread of a block must reach every barrier.");
      fibers.clear();  // unwinds them: their stacks come back
      break;
    }
  }
  stack_pool.give_back(stacks);
}

// OS threads that run blocks; the thread that launches takes part as worker 0.
class WorkerPool {
 public:
  WorkerPool() {
    const unsigned workers = static_cast<unsigned>(
        environment_number("COURSE_CPU_THREADS", 1, kMaxWorkers, "OS threads that run blocks")
            .value_or(std::max(1u, std::thread::hardware_concurrency())));
    resize(workers);
  }
  ~WorkerPool() { resize(1); }

  unsigned size() const { return static_cast<unsigned>(threads_.size()) + 1; }

  void resize(unsigned workers) {
    stop_threads();
    stopping_ = false;
    for (unsigned w = 1; w < workers; ++w) threads_.emplace_back([this, seen = generation_] { serve(seen); });
  }

  // Calls job() on every worker and returns when all have returned.
  void run(const std::function<void()>& job) {
    {
      std::lock_guard lock(mutex_);
      job_ = &job;
      busy_ = static_cast<unsigned>(threads_.size());
      ++generation_;
    }
    wake_.notify_all();
    job();
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
    job_ = nullptr;
  }

 private:
  // Waits for each new job (a new generation) until told to stop.
  void serve(std::uint64_t seen) {
    for (;;) {
      const std::function<void()>* job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
        job = job_;
      }
      (*job)();
      {
        std::lock_guard lock(mutex_);
        --busy_;
      }
      done_.notify_one();
    }
  }
  void stop_threads() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& thread : threads_) thread.join();
    threads_.clear();
  }

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void()>* job_ = nullptr;
  unsigned busy_ = 0;
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
};

WorkerPool& pool() {
  static WorkerPool instance;
  return instance;
}

std::uint64_t initial_shuffle_seed() {
  return environment_number("COURSE_CPU_SHUFFLE", 0, UINT64_MAX,
                            "the seed of the shuffled thread order; 0 runs threads in order")
      .value_or(0);
}
std::atomic<std::uint64_t> shuffle_seed_value{initial_shuffle_seed()};

// Per host thread, as CUDA keeps them.
thread_local gpuError_t last_error = gpuSuccess;
thread_local std::string last_launch_message;

}  // namespace

gpuError_t record(gpuError_t status) {
  if (status != gpuSuccess) last_error = status;
  return status;
}

void set_worker_count(unsigned workers) { pool().resize(std::max(1u, workers)); }
void set_shuffle_seed(std::uint64_t seed) { shuffle_seed_value = seed; }
std::uint64_t shuffle_seed() { return shuffle_seed_value; }
const char* last_launch_failure() { return last_launch_message.c_str(); }
void report_failure(std::string why) { last_launch_message = std::move(why); }

void sync_threads() {
  ThreadContext* self = current;
  if (self == nullptr) {
    std::fputs("__syncthreads() called outside a kernel\n", stderr);
    std::abort();
  }
  FiberState& state = *self->fiber;
  asan_start_switch(&state.fake_stack, scheduler_stack_bottom, scheduler_stack_size);
  state.scheduler = std::move(state.scheduler).resume();
  asan_finish_switch(state.fake_stack, &scheduler_stack_bottom, &scheduler_stack_size);
}

namespace {
// The order blocks start in: in order, or with the threads shuffled (seed != 0) a permutation of
// them, n -> (a n + c) mod blocks with a coprime to blocks, so that a step that relies on blocks
// running in index order fails as it may on a GPU.
class BlockOrder {
 public:
  BlockOrder(std::uint64_t blocks, std::uint64_t seed) : blocks_(blocks) {
    if (seed == 0 || blocks < 2) return;
    multiplier_ = (seed % blocks) | 1;
    while (std::gcd(multiplier_, blocks) != 1) multiplier_ += 2;
    offset_ = (seed >> 32) % blocks;
  }
  std::uint64_t operator()(std::uint64_t n) const {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(multiplier_) * n + offset_) % blocks_);
  }

 private:
  std::uint64_t blocks_, multiplier_ = 1, offset_ = 0;
};

// Runs a whole grid on the pool, which runs one grid at a time: launches from several host
// threads (ranks) take turns.
gpuError_t run_grid(dim3 grid, dim3 block, std::size_t shared_bytes, const std::function<void()>& body) {
  static std::mutex one_grid_at_a_time;
  const std::lock_guard turn(one_grid_at_a_time);
  const std::uint64_t blocks = std::uint64_t{grid.x} * grid.y * grid.z;
  const std::uint64_t seed = shuffle_seed_value;
  std::atomic<std::uint64_t> next_block{0};
  LaunchError error;
  const BlockOrder order(blocks, seed);
  const unsigned at_once = StackPool::instance().blocks_at_once(block.x * block.y * block.z);
  std::atomic<unsigned> workers{0};
  pool().run([&] {
    if (workers++ >= at_once) return;  // the fiber stacks' budget runs this many blocks at a time
    for (std::uint64_t n = next_block++; n < blocks && !error.failed; n = next_block++) {
      const std::uint64_t b = order(n);
      const uint3 block_idx{static_cast<unsigned>(b % grid.x), static_cast<unsigned>((b / grid.x) % grid.y),
                            static_cast<unsigned>(b / (std::uint64_t{grid.x} * grid.y))};
      run_block(block_idx, grid, block, shared_bytes, body, seed, error);
    }
  });
  if (error.failed) {
    report_failure(error.message);
    return gpuErrorLaunchFailure;
  }
  return gpuSuccess;
}
}  // namespace

gpuError_t launch(dim3 grid, dim3 block, std::size_t shared_bytes, gpuStream_t stream, std::function<void()> body) {
  const std::uint64_t threads = std::uint64_t{block.x} * block.y * block.z;
  if (threads == 0 || threads > kMaxThreadsPerBlock || block.z > 64 || grid.x == 0 || grid.y == 0 ||
      grid.z == 0 || grid.y > 65535 || grid.z > 65535 || grid.x > 0x7fffffffu) {
    last_launch_message = "invalid grid or block dimensions";
    return record(gpuErrorInvalidConfiguration);
  }
  if (shared_bytes > kMaxSharedBytes) {
    last_launch_message = "more than 48 KiB of dynamic shared memory";
    return record(gpuErrorInvalidValue);
  }
  if (current != nullptr) {
    last_launch_message = "a kernel launched another kernel";
    return record(gpuErrorLaunchFailure);
  }

  return record(submit(stream, [grid, block, shared_bytes, body = std::move(body)] {
    return run_grid(grid, block, shared_bytes, body);
  }));
}

// Device memory. Under AddressSanitizer each block is exact, on a 256-byte boundary as cudaMalloc
// gives, so that ASan names the line of an access one element past its end. Otherwise each block
// has a mapping of its own with an inaccessible page before it and one after it, and ends as close
// to that page as a 16-byte start allows (the widest access the course makes, a float4 or
// cp.async): a kernel that reads or writes past its end stops the program (report_stray_access)
// instead of reading whatever follows. The gap of up to 15 bytes before the page is DeviceBuffer's
// trailing guard band. cudaMalloc's 256-byte start serves speed, not correctness: no step needs
// more than 16.
namespace {
#if defined(COURSE_ASAN)
constexpr std::size_t kDeviceAlignment = 256;
#else
constexpr std::size_t kDeviceAlignment = 16;

struct Mapping {
  void* start;
  std::size_t bytes;
};
std::mutex mappings_mutex;
std::map<void*, Mapping>& mappings() {
  static std::map<void*, Mapping> blocks;  // block -> its mapping
  return blocks;
}

void say(const char* text) { [[maybe_unused]] const ssize_t written = write(STDERR_FILENO, text, std::strlen(text)); }

// Says in one line what a stray access inside a kernel most likely is, then dies as before.
void report_stray_access(int signal_number, siginfo_t* info, void*) {
  if (current != nullptr) {
    const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
    const auto bottom = reinterpret_cast<std::uintptr_t>(current->fiber->stack_bottom);
    const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGE_SIZE));
    if (bottom != 0 && address + page >= bottom && address < bottom + page) {
      say("\nerror: a GPU thread's stack overflowed (the CPU backend gives each thread 64 KiB): a large array "
          "local to a kernel? Make it smaller, or __shared__\n");
    } else if (info->si_code == SEGV_ACCERR) {
      say("\nerror: a kernel read or wrote past the end of a buffer (the CPU backend puts an inaccessible page "
          "after each one): an out-of-bounds access. AddressSanitizer names the line: python3 exercises/grade.py "
          "N --step S --asan, or the cpu-asan preset\n");
    } else {
      say("\nerror: a kernel read or wrote at an address no buffer holds, or a misaligned one (a float4 from an "
          "address that is not a multiple of 16): an out-of-bounds or misaligned access. AddressSanitizer names "
          "the line: python3 exercises/grade.py N --step S --asan, or the cpu-asan preset\n");
    }
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}
const bool stray_access_reported = [] {
  struct sigaction action {};
  action.sa_sigaction = report_stray_access;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, nullptr);
  sigaction(SIGBUS, &action, nullptr);
  return true;
}();
#endif

void* allocate_device_memory(std::size_t bytes) {
#if defined(COURSE_ASAN)
  void* block = nullptr;
  return posix_memalign(&block, kDeviceAlignment, bytes) == 0 ? block : nullptr;
#else
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGE_SIZE));
  const std::size_t rounded = (bytes + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
  const std::size_t data_pages = (rounded + page - 1) / page;
  const std::size_t mapped = (data_pages + 2) * page;
  void* start = mmap(nullptr, mapped, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (start == MAP_FAILED) return nullptr;
  std::byte* const data_start = static_cast<std::byte*>(start) + page;
  if (mprotect(data_start, data_pages * page, PROT_READ | PROT_WRITE) != 0) {
    munmap(start, mapped);
    return nullptr;
  }
  void* block = data_start + data_pages * page - rounded;
  std::lock_guard lock(mappings_mutex);
  mappings()[block] = {start, mapped};
  return block;
#endif
}

// False when `block` is not a block of device memory.
bool free_device_memory(void* block) {
#if defined(COURSE_ASAN)
  std::free(block);
  return true;
#else
  std::lock_guard lock(mappings_mutex);
  const auto found = mappings().find(block);
  if (found == mappings().end()) return false;
  munmap(found->second.start, found->second.bytes);
  mappings().erase(found);
  return true;
#endif
}
}  // namespace

}  // namespace course::cpu

using course::cpu::record;

const char* gpuGetErrorString(gpuError_t status) {
  switch (status) {
    case gpuSuccess: return "no error";
    case gpuErrorInvalidValue: return "invalid argument";
    case gpuErrorMemoryAllocation: return "out of memory";
    case gpuErrorLaunchFailure: return "launch failed";
    case gpuErrorInvalidConfiguration: return "invalid configuration argument";
    case gpuErrorNoDevice: return "no device";
    case gpuErrorInvalidDevice: return "invalid device ordinal";
    case gpuErrorPeerAccessAlreadyEnabled: return "peer access is already enabled";
    case gpuErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
    case gpuErrorStreamCaptureUnjoined: return "capture ended with a forked stream not joined back";
  }
  return "unknown error";
}

gpuError_t gpuGetLastError() { return std::exchange(course::cpu::last_error, gpuSuccess); }

gpuError_t gpuGetDeviceCount(int* count) {
  *count = kCpuDevices;
  return gpuSuccess;
}

gpuError_t gpuGetDeviceProperties(gpuDeviceProp* prop, int device) {
  if (device < 0 || device >= kCpuDevices) return record(gpuErrorInvalidDevice);
  *prop = gpuDeviceProp{};
  const unsigned workers = course::cpu::pool().size();
  std::snprintf(prop->name, sizeof prop->name, "CPU backend (%u threads)", workers);
  prop->multiProcessorCount = static_cast<int>(workers);
  prop->maxThreadsPerBlock = static_cast<int>(course::cpu::kMaxThreadsPerBlock);
  prop->sharedMemPerBlock = course::cpu::kMaxSharedBytes;
  prop->totalGlobalMem = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGE_SIZE));
  prop->warpSize = warpSize;
  return gpuSuccess;
}

gpuError_t gpuMalloc(void** pointer, std::size_t bytes) {
  *pointer = nullptr;
  if (bytes == 0) return gpuSuccess;
  *pointer = course::cpu::allocate_device_memory(bytes);
  return *pointer != nullptr ? gpuSuccess : record(gpuErrorMemoryAllocation);
}

gpuError_t gpuFree(void* pointer) {
  if (pointer == nullptr) return gpuSuccess;
  const gpuError_t status = gpuDeviceSynchronize();  // as CUDA's: work still queued on the device runs first
  if (!course::cpu::free_device_memory(pointer)) return record(gpuErrorInvalidValue);
  return status;
}

gpuError_t gpuMemcpy(void* dst, const void* src, std::size_t bytes, gpuMemcpyKind kind) {
  if (kind < gpuMemcpyHostToHost || kind > gpuMemcpyDeviceToDevice) return record(gpuErrorInvalidValue);
  course::cpu::synchronize_blocking_streams();
  if (bytes != 0) std::memmove(dst, src, bytes);
  return gpuSuccess;
}

gpuError_t gpuMemset(void* dst, int value, std::size_t bytes) {
  course::cpu::synchronize_blocking_streams();
  std::memset(dst, value, bytes);
  return gpuSuccess;
}
