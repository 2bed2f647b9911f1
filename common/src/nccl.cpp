#include "course/nccl.hpp"

#include <sstream>
#include <stdexcept>

namespace course {

const std::optional<std::string>& nccl_unavailable_reason() {
#if defined(COURSE_NCCL_LIBRARY) || defined(COURSE_BACKEND_CPU)
  static const std::optional<std::string> reason;
#else
  static const std::optional<std::string> reason =
      "this " COURSE_BACKEND_NAME " build has no NCCL (RCCL on HIP): CMake found none when it configured it; "
      "see what it printed about NCCL, install it or set NCCL_ROOT, and configure again";
#endif
  return reason;
}

void throw_nccl_error(ncclResult_t status, const char* call, const char* file, int line) {
  std::ostringstream message;
  message << call << " failed at " << file << ":" << line << ": " << ncclGetErrorString(status);
#if !defined(COURSE_NCCL_LIBRARY) || NCCL_VERSION_CODE >= 21300  // ncclGetLastError() came with NCCL 2.13
  if (const char* why = ncclGetLastError(nullptr); why != nullptr && *why != '\0') message << " (" << why << ")";
#endif
  throw std::runtime_error(message.str());
}

}  // namespace course

#if !defined(COURSE_NCCL_LIBRARY)
const char* ncclGetErrorString(ncclResult_t result) {
  switch (result) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "a runtime call failed";
    case ncclSystemError: return "a system call failed";
    case ncclInternalError: return "internal error";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage";
    case ncclRemoteError: return "another rank failed";
  }
  return "unknown result code";
}
#endif
