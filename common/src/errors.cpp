#include <stdexcept>
#include <string>

#include "course/gpu.hpp"

namespace course {

void throw_gpu_error(gpuError_t status, const char* call, const char* file, int line) {
  std::string message = std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                        gpuGetErrorString(status);
#if defined(COURSE_BACKEND_CPU)
  if (status == gpuErrorLaunchFailure || status == gpuErrorInvalidConfiguration ||
      status == gpuErrorInvalidValue) {
    message += std::string(" (") + cpu::last_launch_failure() + ")";
  }
#endif
  throw std::runtime_error(message);
}

}  // namespace course
