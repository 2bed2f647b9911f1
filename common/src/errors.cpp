#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

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

void require_aligned(const void* pointer, std::size_t bytes, const char* why) {
  if (reinterpret_cast<std::uintptr_t>(pointer) % bytes != 0)
    throw std::invalid_argument(std::string(why) + ": the pointer must be " + std::to_string(bytes) + "-byte aligned");
}

}  // namespace course
