#pragma once

#include "course/device_buffer.hpp"

#include <string>

namespace course::bench {

// "" when this build holds code for the device's architecture, else the runtime's reason (a
// build for another GPU would fail every launch): the harness stops before any case.
std::string why_kernels_cannot_run_here();

// What runs on the GPU just before a timed run: a kernel that reads twice the L2 (evicting what
// the last run left there), or, with the L2 kept warm, a kernel that only spins for ~50 us.
// Either way the GPU is still busy when the start event and the timed kernel are queued behind
// it, so the event pair times the kernel, not the host's launch gap.
class L2Flusher {
 public:
  explicit L2Flusher(size_t l2_bytes);  // 0: keep the L2 warm
  void flush();

 private:
  DeviceBuffer<float4> buffer_;
  DeviceBuffer<float> sink_;
};

}  // namespace course::bench
