// An owning device allocation with checked copies; the harness's only way to hold device memory.
//
// Guard bands of kGuardBytes before and after the elements hold a known pattern, checked by
// to_host(), the way tests read results back: a kernel that writes just outside its buffer then
// fails its test ("wrote outside ...") instead of passing, or corrupting the heap. Under
// AddressSanitizer (CPU backend) the allocation is exact instead, so that ASan names the line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "course/gpu.hpp"

namespace course {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ == 0) return;
    void* block = nullptr;
    GPU_CHECK(gpuMalloc(&block, bytes() + 2 * kGuardBytes));
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
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void copy_from(std::span<const T> host) {
    if (host.size() != count_) throw std::invalid_argument("DeviceBuffer::copy_from: size mismatch");
    GPU_CHECK(gpuMemcpy(data_, host.data(), bytes(), gpuMemcpyHostToDevice));
  }
  std::vector<T> to_host() const {
    std::vector<T> host(count_);
    if (count_ == 0) return host;
    GPU_CHECK(gpuMemcpy(host.data(), data_, bytes(), gpuMemcpyDeviceToHost));
    check_guards();
    return host;
  }
  // All bytes 0xff: a NaN for float and double, so an element the kernel forgot stays visible.
  // The guard bands are set again too, so the next check sees only the next run's writes.
  void poison() {
    if (count_ == 0) return;
    GPU_CHECK(gpuMemset(data_, 0xff, bytes()));
    arm_guards();
  }

 private:
#if defined(COURSE_ASAN)
  static constexpr std::size_t kGuardBytes = 0;
#else
  static constexpr std::size_t kGuardBytes = 256;  // keeps the elements 256-byte aligned, as gpuMalloc's are
#endif
  static constexpr int kGuardPattern = 0xa5;

  void* start_bytes() const { return const_cast<std::byte*>(reinterpret_cast<const std::byte*>(data_)) - kGuardBytes; }
  void* end_bytes() const { return const_cast<std::byte*>(reinterpret_cast<const std::byte*>(data_)) + bytes(); }

  void arm_guards() {
    if constexpr (kGuardBytes > 0) {
      GPU_CHECK(gpuMemset(start_bytes(), kGuardPattern, kGuardBytes));
      GPU_CHECK(gpuMemset(end_bytes(), kGuardPattern, kGuardBytes));
    }
  }

  void check_guards() const {
    if constexpr (kGuardBytes > 0) {
      std::vector<std::uint8_t> before(kGuardBytes), after(kGuardBytes);
      GPU_CHECK(gpuMemcpy(before.data(), start_bytes(), kGuardBytes, gpuMemcpyDeviceToHost));
      GPU_CHECK(gpuMemcpy(after.data(), end_bytes(), kGuardBytes, gpuMemcpyDeviceToHost));
      const auto untouched = [](const std::vector<std::uint8_t>& guard) {
        for (const std::uint8_t byte : guard)
          if (byte != kGuardPattern) return false;
        return true;
      };
      if (!untouched(before) || !untouched(after))
        throw std::runtime_error("a kernel wrote outside a buffer of " + std::to_string(count_) + " elements (just " +
                                 (untouched(before) ? "after its end" : "before its start") +
                                 "): an out-of-bounds write. On the CPU backend, AddressSanitizer names the line "
                                 "(python3 exercises/grade.py N --asan, or the cpu-asan preset)");
    }
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace course
