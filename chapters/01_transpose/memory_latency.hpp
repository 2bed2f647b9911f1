// The latency of one load that misses both caches, for the bytes-in-flight model in NOTES.md
// (Little's law: bandwidth = bytes in flight / latency).
#pragma once

#include <cstddef>

namespace ch01 {

// Chases a chain of dependent loads 8 KiB apart through the first half of `scratch` (overwriting
// it; the second half is overwritten to push the chain out of L2) with one thread, and returns
// the time per load in ns: the latency of an idle memory system. 0 when `scratch` is too small
// for a chain of 4096 loads beyond the L2's reach.
double memory_latency_ns(float* scratch, std::size_t elements);

}  // namespace ch01
