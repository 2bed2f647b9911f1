// An owning device allocation with checked copies; the harness's only way to hold device memory.
#pragma once

#include <cstddef>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "course/gpu.hpp"

namespace course {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) { GPU_CHECK(gpuMalloc(&data_, bytes())); }
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
    if (const gpuError_t status = gpuFree(data_); status != gpuSuccess)
      std::fprintf(stderr, "gpuFree(%p) failed in ~DeviceBuffer: %s\n", static_cast<void*>(data_), gpuGetErrorString(status));
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
    GPU_CHECK(gpuMemcpy(host.data(), data_, bytes(), gpuMemcpyDeviceToHost));
    return host;
  }
  // All bytes 0xff: a NaN for float and double, so an element the kernel forgot stays visible.
  void poison() { GPU_CHECK(gpuMemset(data_, 0xff, bytes())); }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace course
