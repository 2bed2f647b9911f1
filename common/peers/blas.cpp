#include <stdexcept>
#include <string>

#include "course/gpu.hpp"
#include "course/peers.hpp"

#if defined(COURSE_HAVE_BLAS) && defined(COURSE_BACKEND_CUDA)
#include <cublas_v2.h>
#define BLAS_PREFIX "cublas"
using BlasHandle = cublasHandle_t;
using BlasStatus = cublasStatus_t;
constexpr BlasStatus kBlasSuccess = CUBLAS_STATUS_SUCCESS;
#define blasCreate cublasCreate
#define blasDestroy cublasDestroy
#define blasSgeam cublasSgeam
#define blasSgemv cublasSgemv
#define BLAS_OP_N CUBLAS_OP_N
#define BLAS_OP_T CUBLAS_OP_T
static std::string status_text(BlasStatus status) { return cublasGetStatusString(status); }
#elif defined(COURSE_HAVE_BLAS) && defined(COURSE_BACKEND_HIP)
#include <hipblas/hipblas.h>
#define BLAS_PREFIX "hipblas"
using BlasHandle = hipblasHandle_t;
using BlasStatus = hipblasStatus_t;
constexpr BlasStatus kBlasSuccess = HIPBLAS_STATUS_SUCCESS;
#define blasCreate hipblasCreate
#define blasDestroy hipblasDestroy
#define blasSgeam hipblasSgeam
#define blasSgemv hipblasSgemv
#define BLAS_OP_N HIPBLAS_OP_N
#define BLAS_OP_T HIPBLAS_OP_T
static std::string status_text(BlasStatus status) { return "status " + std::to_string(static_cast<int>(status)); }
#endif

namespace course::peers {

#if defined(BLAS_PREFIX)

namespace {
// Every library call is checked; the message names the call, file and line.
void check_blas(BlasStatus status, const char* call, const char* file, int line) {
  if (status != kBlasSuccess)
    throw std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                             status_text(status));
}
#define BLAS_CHECK(call) check_blas((call), #call, __FILE__, __LINE__)
BlasHandle handle_of(void* handle) { return static_cast<BlasHandle>(handle); }
}  // namespace

bool Blas::available() { return true; }

Blas::Blas() {
  BlasHandle handle;
  BLAS_CHECK(blasCreate(&handle));
  handle_ = handle;
}

Blas::~Blas() { blasDestroy(handle_of(handle_)); }

void Blas::transpose(const float* in, float* out, int rows, int cols) {
  // In BLAS's column-major terms `in` is a cols x rows matrix with leading dimension cols, and
  // out = in^T is rows x cols with leading dimension rows.
  const float one = 1.0f, zero = 0.0f;
  BLAS_CHECK(blasSgeam(handle_of(handle_), BLAS_OP_T, BLAS_OP_N, rows, cols, &one, in, cols, &zero, out, rows, out, rows));
}

std::string Blas::transpose_name() { return BLAS_PREFIX "Sgeam"; }

void Blas::multiply_transposed(const float* in, const float* x, float* y, int rows, int cols) {
  // In BLAS's column-major terms `in` is the cols x rows matrix in^T with leading dimension cols,
  // so y = in^T x is the plain (non-transposed) gemv of that matrix.
  const float one = 1.0f, zero = 0.0f;
  BLAS_CHECK(blasSgemv(handle_of(handle_), BLAS_OP_N, cols, rows, &one, in, cols, x, 1, &zero, y, 1));
}

std::string Blas::multiply_transposed_name() { return BLAS_PREFIX "Sgemv"; }

#else

bool Blas::available() { return false; }
Blas::Blas() { throw std::runtime_error("this build has no vendor BLAS (backend " COURSE_BACKEND_NAME ")"); }
Blas::~Blas() = default;
void Blas::transpose(const float*, float*, int, int) {}
std::string Blas::transpose_name() { return "none"; }
void Blas::multiply_transposed(const float*, const float*, float*, int, int) {}
std::string Blas::multiply_transposed_name() { return "none"; }

#endif

}  // namespace course::peers
