// NCCL's calls in a GPU build that found no NCCL (RCCL on HIP): each fails, saying why. The
// chapters ask course::nccl_unavailable_reason() first, so these are reached only by mistake.
#include "course/nccl.hpp"

namespace {
ncclResult_t unavailable() { return ncclInvalidUsage; }
}  // namespace

const char* ncclGetLastError(ncclComm_t) { return course::nccl_unavailable_reason()->c_str(); }
ncclResult_t ncclGetUniqueId(ncclUniqueId*) { return unavailable(); }
ncclResult_t ncclCommInitRank(ncclComm_t*, int, ncclUniqueId, int) { return unavailable(); }
ncclResult_t ncclCommDestroy(ncclComm_t) { return unavailable(); }
ncclResult_t ncclCommAbort(ncclComm_t) { return unavailable(); }
ncclResult_t ncclCommCount(const ncclComm_t, int*) { return unavailable(); }
ncclResult_t ncclCommUserRank(const ncclComm_t, int*) { return unavailable(); }
ncclResult_t ncclSend(const void*, std::size_t, ncclDataType_t, int, ncclComm_t, gpuStream_t, std::source_location) {
  return unavailable();
}
ncclResult_t ncclRecv(void*, std::size_t, ncclDataType_t, int, ncclComm_t, gpuStream_t, std::source_location) {
  return unavailable();
}
ncclResult_t ncclGroupStart() { return unavailable(); }
ncclResult_t ncclGroupEnd() { return unavailable(); }
