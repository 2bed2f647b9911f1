// The CPU backend's devices, streams, events, peers and graphs.
//
// Work on the default stream runs at once (after the work queued on the device's blocking
// streams, as CUDA's legacy default stream waits for them). Work on any other stream is queued
// and runs only when something waits for it:
//   * a synchronize call (stream, event or device) runs the queued work of the caller's device,
//     a piece at a time, until what it waits for has run: each piece from a stream of the
//     highest priority among those with work queued (as a GPU starts the blocks of a
//     high-priority stream first), or, with COURSE_CPU_SHUFFLE set, from any of them at random:
//     streams run in one order of the many a GPU might choose, another one with each seed;
//   * a stream's wait on an event runs the event's stream up to the event first.
// So a program that reads a stream's results without waiting for them sees the data as it was,
// and one that orders two streams' work with no event between them sees them run in whatever
// order was picked: each fails here as it may fail on a GPU. Timing is meaningless, as ever.
#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "course/cpu_backend.hpp"
#include "streams.hpp"

struct CpuStream {
  int device;
  bool blocking;  // waited for by the default stream (created without gpuStreamNonBlocking)
  int priority;
  std::deque<course::cpu::Work> queued;
  std::uint64_t submitted = 0, finished = 0;  // pieces of work, ever
  bool running = false;                       // a thread is running its next piece
  CpuGraph* capture = nullptr;                // the graph its work goes to while it is captured
  std::uint64_t captured = 0;                 // pieces captured in it so far
  bool joined = true;                         // no work captured since it last joined the capture's origin
  gpuError_t error = gpuSuccess;              // its first failure since the last synchronize
  std::string why;
};

struct CpuEvent {
  std::chrono::steady_clock::time_point time;
  bool timing = true;
  CpuStream* stream = nullptr;  // where it was recorded last; nullptr: it has happened
  std::uint64_t position = 0;   // it happens when that stream has finished this many pieces
  CpuGraph* graph = nullptr;    // recorded in a capture: a dependency inside that graph
  std::uint64_t captured = 0;   // ... after this many pieces of `stream_captured`'s
  CpuStream* stream_captured = nullptr;
};

struct CpuGraph {
  CpuStream* origin;                    // where the capture began, and must end
  std::vector<course::cpu::Work> work;  // in the order it was captured, which respects every wait
};
struct CpuGraphExec {
  std::vector<course::cpu::Work> work;
};

namespace course::cpu {
namespace {

constexpr int kLeastPriority = 0, kGreatestPriority = -5;  // CUDA's range on recent GPUs

// One lock for every stream's state; work runs with it released.
std::mutex state;
std::condition_variable progress;  // some work has finished, or a message arrived
std::vector<CpuStream*>& streams() {
  static std::vector<CpuStream*> all;
  return all;
}
// Destroyed streams and events, kept until the program ends: queued work may still name them
// (a record into an event destroyed before its stream, a wait on a stream destroyed before the
// waiting one), as a GPU keeps their resources until the work that uses them is done.
struct Retired {
  std::vector<std::unique_ptr<CpuStream>> streams;
  std::vector<std::unique_ptr<CpuEvent>> events;
};
Retired& retired() {
  static Retired kept;
  return kept;
}
std::set<std::pair<int, int>>& peer_access() {  // (device, peer) pairs enabled
  static std::set<std::pair<int, int>> pairs;
  return pairs;
}
thread_local int device_of_thread = 0;

bool valid_device(int device) { return device >= 0 && device < kCpuDevices; }

// The order in which the ready streams run: fixed for a seed, the same in every thread.
std::mt19937_64& stream_order() {
  thread_local std::uint64_t seeded_with = ~std::uint64_t{0};
  thread_local std::mt19937_64 generator;
  if (seeded_with != shuffle_seed()) {
    seeded_with = shuffle_seed();
    generator.seed(0x5eed5eedull ^ seeded_with);
  }
  return generator;
}

// Runs the next piece of `stream`'s work; `lock` holds `state` before and after.
void run_next(std::unique_lock<std::mutex>& lock, CpuStream* stream) {
  stream->running = true;
  Work work = std::move(stream->queued.front());
  stream->queued.pop_front();
  lock.unlock();
  const gpuError_t status = work();
  const std::string why = status == gpuSuccess ? std::string() : std::string(last_launch_failure());
  lock.lock();
  ++stream->finished;
  stream->running = false;
  if (status != gpuSuccess && stream->error == gpuSuccess) {
    stream->error = status;
    stream->why = why;
  }
  progress.notify_all();
}

// Runs `stream`'s work in order until `position` pieces have finished.
void run_until(std::unique_lock<std::mutex>& lock, CpuStream* stream, std::uint64_t position) {
  while (stream->finished < position) {
    if (stream->running) {
      progress.wait(lock);
    } else {
      run_next(lock, stream);
    }
  }
}

// Runs the queued work of `device`'s streams (those `eligible` accepts) until `done()`: each
// time, a piece of the highest-priority stream with work (the first of them picked at random),
// or, when threads are shuffled, of any stream with work, picked at random.
template <class Eligible, class Done>
void drain(std::unique_lock<std::mutex>& lock, int device, Eligible eligible, Done done) {
  std::vector<CpuStream*> ready;
  while (!done()) {
    ready.clear();
    for (CpuStream* stream : streams())
      if (stream->device == device && eligible(stream) && !stream->running && !stream->queued.empty()) ready.push_back(stream);
    if (ready.empty()) {
      progress.wait(lock);  // another thread runs what is left
      continue;
    }
    if (shuffle_seed() == 0) {
      const int first = std::min_element(ready.begin(), ready.end(), [](auto* a, auto* b) { return a->priority < b->priority; })[0]->priority;
      std::erase_if(ready, [first](const CpuStream* s) { return s->priority != first; });
    }
    run_next(lock, ready[stream_order()() % ready.size()]);
  }
}

// The first failure of `stream`'s work since the last report, passed to the caller's thread.
gpuError_t take_error(CpuStream* stream) {
  const gpuError_t status = std::exchange(stream->error, gpuSuccess);
  if (status != gpuSuccess) report_failure(std::move(stream->why));
  return record(status);
}

// Waits for the work queued so far on the current device's streams that `eligible` accepts.
template <class Eligible>
gpuError_t synchronize_device(Eligible eligible) {
  std::unique_lock lock(state);
  std::vector<std::pair<CpuStream*, std::uint64_t>> targets;
  for (CpuStream* stream : streams())
    if (stream->device == device_of_thread && eligible(stream)) targets.emplace_back(stream, stream->submitted);
  if (targets.empty()) return gpuSuccess;
  drain(lock, device_of_thread, eligible, [&] {
    return std::all_of(targets.begin(), targets.end(), [](const auto& t) { return t.first->finished >= t.second; });
  });
  gpuError_t status = gpuSuccess;
  for (const auto& target : targets)
    if (const gpuError_t error = take_error(target.first); status == gpuSuccess) status = error;
  return status;
}

gpuError_t create_stream(gpuStream_t* stream, unsigned flags, int priority) {
  if ((flags & ~gpuStreamNonBlocking) != 0) return record(gpuErrorInvalidValue);
  *stream = new CpuStream{device_of_thread, (flags & gpuStreamNonBlocking) == 0,
                          std::clamp(priority, kGreatestPriority, kLeastPriority), {}, 0, 0, false, nullptr, gpuSuccess, {}};
  const std::lock_guard lock(state);
  streams().push_back(*stream);
  return gpuSuccess;
}

}  // namespace

gpuError_t submit(gpuStream_t stream, Work work) {
  if (stream == nullptr) {
    synchronize_blocking_streams();
    return work();
  }
  const std::lock_guard lock(state);
  if (stream->capture != nullptr) {
    stream->capture->work.push_back(std::move(work));
    ++stream->captured;
    stream->joined = stream == stream->capture->origin;
  } else {
    stream->queued.push_back(std::move(work));
    ++stream->submitted;
  }
  return gpuSuccess;
}

void synchronize_blocking_streams() {
  if (const gpuError_t status = synchronize_device([](const CpuStream* s) { return s->blocking; }); status != gpuSuccess)
    record(status);
}

bool run_queued_work(int device) {
  std::unique_lock lock(state);
  for (CpuStream* stream : streams()) {
    if (stream->device != device || stream->running || stream->queued.empty()) continue;
    run_next(lock, stream);
    return true;
  }
  return false;
}

void wait_for_progress(std::chrono::milliseconds timeout) {
  std::unique_lock lock(state);
  progress.wait_for(lock, timeout);
}

void notify_progress() {
  const std::lock_guard lock(state);
  progress.notify_all();
}

int current_device() { return device_of_thread; }

}  // namespace course::cpu

using course::cpu::record;
using course::cpu::state;

gpuError_t gpuSetDevice(int device) {
  if (!course::cpu::valid_device(device)) return record(gpuErrorInvalidDevice);
  course::cpu::device_of_thread = device;
  return gpuSuccess;
}

gpuError_t gpuGetDevice(int* device) {
  *device = course::cpu::device_of_thread;
  return gpuSuccess;
}

gpuError_t gpuDeviceSynchronize() {
  return course::cpu::synchronize_device([](const CpuStream*) { return true; });
}

gpuError_t gpuStreamCreate(gpuStream_t* stream) { return course::cpu::create_stream(stream, 0, course::cpu::kLeastPriority); }
gpuError_t gpuStreamCreateWithFlags(gpuStream_t* stream, unsigned flags) {
  return course::cpu::create_stream(stream, flags, course::cpu::kLeastPriority);
}
gpuError_t gpuStreamCreateWithPriority(gpuStream_t* stream, unsigned flags, int priority) {
  return course::cpu::create_stream(stream, flags, priority);
}

gpuError_t gpuDeviceGetStreamPriorityRange(int* least, int* greatest) {
  *least = course::cpu::kLeastPriority;
  *greatest = course::cpu::kGreatestPriority;
  return gpuSuccess;
}

gpuError_t gpuStreamSynchronize(gpuStream_t stream) {
  if (stream == nullptr) return course::cpu::synchronize_device([](const CpuStream* s) { return s->blocking; });
  std::unique_lock lock(state);
  if (stream->capture != nullptr) return record(gpuErrorStreamCaptureUnsupported);
  const std::uint64_t target = stream->submitted;
  course::cpu::drain(lock, stream->device, [](const CpuStream*) { return true; },
                     [&] { return stream->finished >= target; });
  return course::cpu::take_error(stream);
}

gpuError_t gpuStreamDestroy(gpuStream_t stream) {
  if (stream == nullptr) return record(gpuErrorInvalidValue);
  const gpuError_t status = gpuStreamSynchronize(stream);  // queued work still runs, as on a GPU
  const std::lock_guard lock(state);
  std::erase(course::cpu::streams(), stream);
  course::cpu::retired().streams.emplace_back(stream);
  return status;
}

gpuError_t gpuEventCreate(gpuEvent_t* event) {
  *event = new CpuEvent{};
  return gpuSuccess;
}
gpuError_t gpuEventCreateWithFlags(gpuEvent_t* event, unsigned flags) {
  if ((flags & ~gpuEventDisableTiming) != 0) return record(gpuErrorInvalidValue);
  *event = new CpuEvent{};
  (*event)->timing = (flags & gpuEventDisableTiming) == 0;
  return gpuSuccess;
}
gpuError_t gpuEventDestroy(gpuEvent_t event) {
  const std::lock_guard lock(state);
  course::cpu::retired().events.emplace_back(event);
  return gpuSuccess;
}

gpuError_t gpuEventRecord(gpuEvent_t event, gpuStream_t stream) {
  if (stream == nullptr) {
    course::cpu::synchronize_blocking_streams();
    const std::lock_guard lock(state);
    *event = CpuEvent{std::chrono::steady_clock::now(), event->timing, nullptr, 0, nullptr};
    return gpuSuccess;
  }
  std::unique_lock lock(state);
  if (stream->capture != nullptr) {
    event->graph = stream->capture;
    event->stream = nullptr;
    event->stream_captured = stream;
    event->captured = stream->captured;
    return gpuSuccess;
  }
  stream->queued.push_back([event] {
    event->time = std::chrono::steady_clock::now();
    return gpuSuccess;
  });
  ++stream->submitted;
  event->graph = nullptr;
  event->stream = stream;
  event->position = stream->submitted;
  return gpuSuccess;
}

gpuError_t gpuEventSynchronize(gpuEvent_t event) {
  std::unique_lock lock(state);
  CpuStream* stream = event->stream;
  if (event->graph != nullptr) return record(gpuErrorStreamCaptureUnsupported);
  if (stream == nullptr) return gpuSuccess;
  const std::uint64_t position = event->position;
  course::cpu::drain(lock, stream->device, [](const CpuStream*) { return true; },
                     [&] { return stream->finished >= position; });
  return course::cpu::take_error(stream);
}

gpuError_t gpuEventElapsedTime(float* milliseconds, gpuEvent_t start, gpuEvent_t stop) {
  if (!start->timing || !stop->timing) return record(gpuErrorInvalidValue);
  const std::lock_guard lock(state);
  *milliseconds = std::chrono::duration<float, std::milli>(stop->time - start->time).count();
  return gpuSuccess;
}

gpuError_t gpuStreamWaitEvent(gpuStream_t stream, gpuEvent_t event, unsigned flags) {
  if (flags != 0) return record(gpuErrorInvalidValue);
  std::unique_lock lock(state);
  if (event->graph != nullptr) {  // a fork or a join inside a capture
    if (stream == nullptr) return record(gpuErrorStreamCaptureUnsupported);
    if (stream->capture == nullptr) {
      stream->capture = event->graph;
      stream->captured = 0;
      stream->joined = true;
    }
    CpuStream* source = event->stream_captured;
    if (source != stream && source->capture == event->graph && source->captured == event->captured) source->joined = true;
    return gpuSuccess;
  }
  CpuStream* source = event->stream;
  if (source == nullptr) return gpuSuccess;  // it has happened
  const std::uint64_t position = event->position;
  if (stream == nullptr) {
    course::cpu::run_until(lock, source, position);
    return gpuSuccess;
  }
  course::cpu::Work wait = [source, position] {
    std::unique_lock inner(state);
    course::cpu::run_until(inner, source, position);
    return gpuSuccess;
  };
  if (stream->capture != nullptr) return gpuSuccess;  // inside a graph, captured order is kept
  stream->queued.push_back(std::move(wait));
  ++stream->submitted;
  return gpuSuccess;
}

gpuError_t gpuMemcpyAsync(void* dst, const void* src, std::size_t bytes, gpuMemcpyKind kind, gpuStream_t stream) {
  if (kind < gpuMemcpyHostToHost || kind > gpuMemcpyDeviceToDevice) return record(gpuErrorInvalidValue);
  return record(course::cpu::submit(stream, [dst, src, bytes] {
    if (bytes != 0) std::memmove(dst, src, bytes);
    return gpuSuccess;
  }));
}

gpuError_t gpuMemsetAsync(void* dst, int value, std::size_t bytes, gpuStream_t stream) {
  return record(course::cpu::submit(stream, [dst, value, bytes] {
    std::memset(dst, value, bytes);
    return gpuSuccess;
  }));
}

gpuError_t gpuMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes,
                              gpuStream_t stream) {
  if (!course::cpu::valid_device(dst_device) || !course::cpu::valid_device(src_device)) return record(gpuErrorInvalidDevice);
  return gpuMemcpyAsync(dst, src, bytes, gpuMemcpyDeviceToDevice, stream);
}

gpuError_t gpuDeviceCanAccessPeer(int* can_access, int device, int peer) {
  if (!course::cpu::valid_device(device) || !course::cpu::valid_device(peer)) return record(gpuErrorInvalidDevice);
  *can_access = device != peer;  // as CUDA answers: a device is not its own peer
  return gpuSuccess;
}

gpuError_t gpuDeviceEnablePeerAccess(int peer, unsigned flags) {
  const int device = course::cpu::device_of_thread;
  if (!course::cpu::valid_device(peer) || peer == device) return record(gpuErrorInvalidDevice);
  if (flags != 0) return record(gpuErrorInvalidValue);
  const std::lock_guard lock(state);
  if (!course::cpu::peer_access().emplace(device, peer).second) return record(gpuErrorPeerAccessAlreadyEnabled);
  return gpuSuccess;
}

gpuError_t gpuMallocHost(void** pointer, std::size_t bytes) {
  constexpr std::size_t kAlignment = 256;
  *pointer = bytes == 0 ? nullptr : std::aligned_alloc(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
  return bytes == 0 || *pointer != nullptr ? gpuSuccess : record(gpuErrorMemoryAllocation);
}

gpuError_t gpuFreeHost(void* pointer) {
  const gpuError_t status = gpuDeviceSynchronize();  // as CUDA's: copies still queued to it land first
  std::free(pointer);
  return status;
}

gpuError_t gpuStreamBeginCapture(gpuStream_t stream, gpuStreamCaptureMode) {
  if (stream == nullptr) return record(gpuErrorStreamCaptureUnsupported);  // as CUDA: not the legacy stream
  const std::lock_guard lock(state);
  if (stream->capture != nullptr) return record(gpuErrorInvalidValue);
  stream->capture = new CpuGraph{stream, {}};
  stream->captured = 0;
  stream->joined = true;
  return gpuSuccess;
}

gpuError_t gpuStreamEndCapture(gpuStream_t stream, gpuGraph_t* graph) {
  if (stream == nullptr) return record(gpuErrorInvalidValue);
  const std::lock_guard lock(state);
  CpuGraph* captured = stream->capture;
  if (captured == nullptr || captured->origin != stream) return record(gpuErrorInvalidValue);
  bool all_joined = true;
  for (CpuStream* other : course::cpu::streams())
    if (other->capture == captured) {  // the streams it forked end with it
      all_joined = all_joined && other->joined;
      other->capture = nullptr;
    }
  if (!all_joined) {
    delete captured;
    return record(gpuErrorStreamCaptureUnjoined);
  }
  *graph = captured;
  return gpuSuccess;
}

gpuError_t gpuGraphInstantiateWithFlags(gpuGraphExec_t* executable, gpuGraph_t graph, unsigned long long) {
  *executable = new CpuGraphExec{graph->work};
  return gpuSuccess;
}

gpuError_t gpuGraphUpload(gpuGraphExec_t executable, gpuStream_t) {
  return executable == nullptr ? record(gpuErrorInvalidValue) : gpuSuccess;
}

gpuError_t gpuGraphLaunch(gpuGraphExec_t executable, gpuStream_t stream) {
  return record(course::cpu::submit(stream, [work = executable->work] {
    for (const course::cpu::Work& piece : work)
      if (const gpuError_t status = piece(); status != gpuSuccess) return status;
    return gpuSuccess;
  }));
}

gpuError_t gpuGraphDestroy(gpuGraph_t graph) {
  delete graph;
  return gpuSuccess;
}

gpuError_t gpuGraphExecDestroy(gpuGraphExec_t executable) {
  delete executable;
  return gpuSuccess;
}
