// What the CPU backend's runtime files share about streams (streams.cpp); not for course code.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "course/cpu_backend.hpp"

namespace course::cpu {

// One piece of a stream's work: a grid, a copy, a group of sends and receives. It returns how
// it went; a failure says why through report_failure() first.
using Work = std::function<gpuError_t()>;

// Runs `work` at once on the default stream (nullptr), after the work queued on the device's
// blocking streams, and returns its status; on another stream queues it (or records it into the
// graph the stream captures) and returns gpuSuccess.
gpuError_t submit(gpuStream_t stream, Work work);

// The default stream waits for the work queued on the current device's blocking streams.
void synchronize_blocking_streams();

// Runs one piece of queued work of `device`'s streams, if one is ready; false when none is.
// For a wait that can end only when another rank's queued work has run.
bool run_queued_work(int device);

// Sleeps until some work has run or `timeout` passed; what a poll between run_queued_work()
// calls waits on. notify_progress() wakes such waits (a message arrived).
void wait_for_progress(std::chrono::milliseconds timeout);
void notify_progress();

// Keeps a failed call's status for gpuGetLastError(), and returns it.
gpuError_t record(gpuError_t status);

// The device the calling thread works on (gpuSetDevice).
int current_device();

// Says why the work that is failing failed; the synchronize call that reports the failure
// passes it on to last_launch_failure().
void report_failure(std::string why);

}  // namespace course::cpu
