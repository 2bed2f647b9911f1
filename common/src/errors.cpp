#include <sstream>
#include <stdexcept>

#include "course/gpu.hpp"

namespace course {

void throw_gpu_error(gpuError_t status, const char* call, const char* file, int line) {
  std::ostringstream message;
  message << call << " failed at " << file << ":" << line << ": " << gpuGetErrorString(status);
#if defined(COURSE_BACKEND_CPU)
  if (status == gpuErrorLaunchFailure || status == gpuErrorInvalidConfiguration ||
      status == gpuErrorInvalidValue) {
    message << " (" << cpu::last_launch_failure() << ")";
  }
#endif
  throw std::runtime_error(message.str());
}

}  // namespace course
