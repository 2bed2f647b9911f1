// NCCL's communicators and point-to-point calls on every backend, under NCCL's own names.
//
// CUDA builds use NCCL and HIP builds RCCL (the same API) when cmake/GpuBackend.cmake finds them
// (COURSE_NCCL_LIBRARY). Otherwise the subset below is declared: the CPU backend implements it
// (common/cpu_backend/nccl.cpp: ranks are host threads of one process, or MPI processes; a send
// is matched with the receive of the same pair of ranks in order and completes only with it, as
// on a GPU; a group posts all its calls before any waits; a group is a piece of its stream's
// work), and a GPU build without the library gets calls that fail (common/src/nccl_missing.cpp);
// nccl_unavailable_reason() says so first, so that tests skip and programs stop with one line.
// There, ncclSend and ncclRecv also take where they were called (a defaulted last argument),
// so that a deadlock names the call.
//
// Every call is checked with GPU_CHECK, as the runtime's are.
#pragma once

#include <cstddef>
#include <optional>
#include <source_location>
#include <string>

#include "course/gpu.hpp"

#if defined(COURSE_NCCL_LIBRARY) && defined(COURSE_BACKEND_HIP)
#include <rccl/rccl.h>
#elif defined(COURSE_NCCL_LIBRARY)
#include <nccl.h>
#else
enum ncclResult_t {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
};
enum ncclDataType_t {
  ncclInt8 = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclFloat32 = 7,
  ncclFloat64 = 8,
  ncclChar = ncclInt8,
  ncclInt = ncclInt32,
  ncclHalf = ncclFloat16,
  ncclFloat = ncclFloat32,
  ncclDouble = ncclFloat64,
};
struct ncclUniqueId {
  char internal[128];
};
using ncclComm_t = struct ncclComm*;

const char* ncclGetErrorString(ncclResult_t result);
const char* ncclGetLastError(ncclComm_t comm);
ncclResult_t ncclGetUniqueId(ncclUniqueId* id);
ncclResult_t ncclCommInitRank(ncclComm_t* comm, int ranks, ncclUniqueId id, int rank);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
ncclResult_t ncclCommAbort(ncclComm_t comm);
ncclResult_t ncclCommCount(const ncclComm_t comm, int* count);
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank);
ncclResult_t ncclSend(const void* buffer, std::size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                      gpuStream_t stream, std::source_location where = std::source_location::current());
ncclResult_t ncclRecv(void* buffer, std::size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                      gpuStream_t stream, std::source_location where = std::source_location::current());
ncclResult_t ncclGroupStart();
ncclResult_t ncclGroupEnd();
#endif

namespace course {

// Why this build cannot communicate (a GPU build that found no NCCL or RCCL), or nothing.
const std::optional<std::string>& nccl_unavailable_reason();

// Thrown by every failed NCCL call; the message names the call, file and line.
[[noreturn]] void throw_nccl_error(ncclResult_t status, const char* call, const char* file, int line);

inline void check_gpu(ncclResult_t status, const char* call, const char* file, int line) {
  if (status != ncclSuccess) throw_nccl_error(status, call, file, line);
}

}  // namespace course
