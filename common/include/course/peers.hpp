// The libraries a user would call instead of writing a chapter's kernel, for the benchmarks to
// measure beside the steps. This is the one place that knows the vendor libraries; the build
// (cmake/GpuBackend.cmake) says whether this backend has them.
#pragma once

#include <string>

namespace course::peers {

// The vendor BLAS: cuBLAS on CUDA, hipBLAS on HIP when it is installed, none on the CPU backend.
class Blas {
 public:
  static bool available();
  Blas();  // throws std::runtime_error when !available()
  ~Blas();
  Blas(const Blas&) = delete;
  Blas& operator=(const Blas&) = delete;

  // out (cols x rows) = in^T for a rows x cols matrix, both row-major, on the device: geam.
  void transpose(const float* in, float* out, int rows, int cols);
  static std::string transpose_name();  // what the library calls it: "cublasSgeam", "hipblasSgeam"

  // y (cols) = in^T x for a rows x cols row-major matrix and x (rows), on the device: gemv.
  void multiply_transposed(const float* in, const float* x, float* y, int rows, int cols);
  static std::string multiply_transposed_name();  // "cublasSgemv", "hipblasSgemv"

 private:
  void* handle_ = nullptr;
};

}  // namespace course::peers
