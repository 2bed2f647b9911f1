#pragma once

#include "course/device_buffer.hpp"

namespace course::bench {

class L2Flusher {
 public:
  explicit L2Flusher(size_t l2_bytes);  // 0: nothing to flush (the CPU backend)
  void flush();

 private:
  DeviceBuffer<float4> buffer_;
  DeviceBuffer<float> sink_;
};

}  // namespace course::bench
