// An owning device allocation with checked copies; the harness's only way to hold device memory.
//
// Guard bands around the elements hold the sentinel (below), checked by to_host(), the way tests
// read results back: a kernel that writes just outside its buffer then fails its test ("wrote
// outside ...") instead of passing, or corrupting the heap, and one that reads there computes a
// NaN. On the CPU backend the band after the elements only fills them up to 16 bytes: its
// allocations end against an inaccessible page (common/cpu_backend/runtime.cpp), so an access
// further past the end, a read whose value is thrown away included, stops the program. Under
// AddressSanitizer (CPU backend) the allocation is exact instead, so that ASan names the line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "course/gpu.hpp"

namespace course {

// What the harness fills memory with. Poison, all bits set, is a quiet NaN: an output element a
// kernel forgot stays NaN and fails its comparison. The sentinel marks memory a kernel must not
// write at all (guard bands; the halo and padding of an output grid): a signaling NaN, because
// any arithmetic on it yields another bit pattern on every backend (a quiet NaN), so even
// `out[i] += x` outside the interior shows, and a result computed from it is NaN. (On x86 a quiet
// NaN plus x keeps the NaN's bits, and a finite sentinel plus a tiny x keeps its own.)
inline constexpr std::uint32_t kPoisonBits = 0xffffffffu;
inline constexpr std::uint32_t kSentinelBits = 0x7fa57fa5u;  // and each 16-bit half a NaN (fp16, bf16)

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ == 0) return;
    void* block = nullptr;
    GPU_CHECK(gpuMalloc(&block, kGuardBytes + bytes() + trailing_guard_bytes()));
    data_ = reinterpret_cast<T*>(static_cast<std::byte*>(block) + kGuardBytes);
    arm_guards();
  }
  explicit DeviceBuffer(std::span<const T> host) : DeviceBuffer(host.size()) { copy_from(host); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }
  ~DeviceBuffer() {
    // A destructor cannot throw; a failure here means the context is already broken (an earlier
    // error, reported where it happened, usually explains it).
    if (data_ == nullptr) return;
    if (const gpuError_t status = gpuFree(start_bytes()); status != gpuSuccess)
      std::fprintf(stderr, "gpuFree(%p) failed in ~DeviceBuffer: %s\n", start_bytes(), gpuGetErrorString(status));
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  // The block the runtime allocated, guard band included: what a CUDA IPC handle names, and where
  // the process that opens the handle finds it; the elements start allocation_offset() bytes in.
  void* allocation() const { return start_bytes(); }
  static constexpr std::size_t allocation_offset() { return kGuardBytes; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  // The elements from the host; the guard bands are set again too, as poison() does.
  void copy_from(std::span<const T> host) {
    if (host.size() != count_) throw std::invalid_argument("DeviceBuffer::copy_from: size mismatch");
    if (count_ == 0) return;
    GPU_CHECK(gpuMemcpy(data_, host.data(), bytes(), gpuMemcpyHostToDevice));
    arm_guards();
  }
  std::vector<T> to_host() const {
    std::vector<T> host(count_);
    if (count_ == 0) return host;
    GPU_CHECK(gpuMemcpy(host.data(), data_, bytes(), gpuMemcpyDeviceToHost));
    check_guards();
    return host;
  }
  // Every element the poison (all bits set: a NaN for float, double and half), so an element the
  // kernel forgot stays visible. The guard bands are set again too, so the next check sees only
  // the next run's writes.
  void poison() {
    if (count_ == 0) return;
    GPU_CHECK(gpuMemset(data_, 0xff, bytes()));
    arm_guards();
  }

 private:
#if defined(COURSE_ASAN)
  static constexpr std::size_t kGuardBytes = 0;
#else
  static constexpr std::size_t kGuardBytes = 256;  // keeps the elements as aligned as the allocation
#endif
  // The band after the elements: on the CPU backend up to the next 16 bytes, where the allocation
  // ends against its inaccessible page; elsewhere as wide as the band before.
  std::size_t trailing_guard_bytes() const {
#if defined(COURSE_BACKEND_CPU)
    return kGuardBytes == 0 ? 0 : (16 - bytes() % 16) % 16;
#else
    return kGuardBytes;
#endif
  }
  void* start_bytes() const { return const_cast<std::byte*>(reinterpret_cast<const std::byte*>(data_)) - kGuardBytes; }
  void* end_bytes() const { return const_cast<std::byte*>(reinterpret_cast<const std::byte*>(data_)) + bytes(); }

  static std::vector<std::uint32_t> sentinel_words(std::size_t bytes) {
    return std::vector<std::uint32_t>((bytes + 3) / 4, kSentinelBits);
  }

  void arm_guards() {
    const std::vector<std::uint32_t> words = sentinel_words(kGuardBytes);
    if constexpr (kGuardBytes > 0) GPU_CHECK(gpuMemcpy(start_bytes(), words.data(), kGuardBytes, gpuMemcpyHostToDevice));
    if (trailing_guard_bytes() > 0)
      GPU_CHECK(gpuMemcpy(end_bytes(), words.data(), trailing_guard_bytes(), gpuMemcpyHostToDevice));
  }

  void check_guards() const {
    if constexpr (kGuardBytes > 0) {
      const auto untouched = [](const void* band, std::size_t bytes) {
        const std::vector<std::uint32_t> expected = sentinel_words(bytes);
        std::vector<std::uint32_t> seen(expected.size());
        GPU_CHECK(gpuMemcpy(seen.data(), band, bytes, gpuMemcpyDeviceToHost));
        return std::memcmp(seen.data(), expected.data(), bytes) == 0;
      };
      const bool before_ok = untouched(start_bytes(), kGuardBytes);
      const bool after_ok = trailing_guard_bytes() == 0 || untouched(end_bytes(), trailing_guard_bytes());
      if (!before_ok || !after_ok)
        throw std::runtime_error("a kernel wrote outside a buffer of " + std::to_string(count_) + " element" +
                                 (count_ == 1 ? "" : "s") + " (just " + (before_ok ? "after its end" : "before its start") +
                                 "): an out-of-bounds write. On the CPU backend, AddressSanitizer names the line "
                                 "(python3 exercises/grade.py N --step S --asan, or the cpu-asan preset)");
    }
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace course
