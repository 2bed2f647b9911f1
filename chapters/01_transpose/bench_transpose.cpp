// Chapter 1 benchmark: every transpose step on a rows x cols float matrix (default 16384^2 on a
// GPU) beside the device-to-device copy and the vendor library's transpose (cublasSgeam /
// hipblasSgeam); then the column consumer y = A^T x over k passes, naive, coalesced and flagged.
//
//   bench_transpose [--rows=N] [--cols=N] [--ceilings=FILE] [--warm-l2] [--repetitions=N]
//                   [--benchmark_filter=REGEX] [--benchmark_out=FILE.json --benchmark_out_format=json]
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/benchmark.hpp"
#include "course/compare.hpp"
#include "course/device_buffer.hpp"
#include "course/random.hpp"
#include "reference.hpp"
#include "transpose.hpp"

#if defined(COURSE_BACKEND_CUDA)
#include <cublas_v2.h>
#define COURSE_BLAS_PEER "cublasSgeam"
#elif defined(COURSE_BACKEND_HIP) && defined(COURSE_HAVE_HIPBLAS)
#include <hipblas/hipblas.h>
#define COURSE_BLAS_PEER "hipblasSgeam"
#endif

namespace {

using course::DeviceBuffer;

#if defined(COURSE_BLAS_PEER)
#if defined(COURSE_BACKEND_CUDA)
using BlasHandle = cublasHandle_t;
#define BLAS_CALL(call)                                                                             \
  if (const cublasStatus_t status = (call); status != CUBLAS_STATUS_SUCCESS)                        \
    throw std::runtime_error(std::string(#call " failed at " __FILE__ ": ") + cublasGetStatusString(status));
#define blasCreate cublasCreate
#define blasDestroy cublasDestroy
#define blasSgeam cublasSgeam
#define BLAS_OP_N CUBLAS_OP_N
#define BLAS_OP_T CUBLAS_OP_T
#else
using BlasHandle = hipblasHandle_t;
#define BLAS_CALL(call)                                                                             \
  if (const hipblasStatus_t status = (call); status != HIPBLAS_STATUS_SUCCESS)                      \
    throw std::runtime_error(std::string(#call " failed at " __FILE__ ": status ") + std::to_string(status));
#define blasCreate hipblasCreate
#define blasDestroy hipblasDestroy
#define blasSgeam hipblasSgeam
#define BLAS_OP_N HIPBLAS_OP_N
#define BLAS_OP_T HIPBLAS_OP_T
#endif

// The library a user would otherwise call: out (cols x rows, row-major) = in^T. In BLAS's
// column-major terms `in` is a cols x rows matrix with leading dimension cols.
class BlasTranspose {
 public:
  BlasTranspose() { BLAS_CALL(blasCreate(&handle_)); }
  ~BlasTranspose() { blasDestroy(handle_); }
  void operator()(const float* in, float* out, int rows, int cols) {
    const float one = 1.0f, zero = 0.0f;
    BLAS_CALL(blasSgeam(handle_, BLAS_OP_T, BLAS_OP_N, rows, cols, &one, in, cols, &zero, out, rows, out, rows));
  }

 private:
  BlasHandle handle_;
};
#endif

// "" when out is exactly in transposed, else where it first is not.
std::string check_transpose(const std::vector<float>& in, const DeviceBuffer<float>& out, int rows, int cols) {
  const std::vector<float> got = out.to_host();
  for (size_t r = 0; r < size_t(rows); ++r)
    for (size_t c = 0; c < size_t(cols); ++c)
      if (!(got[c * rows + r] == in[r * cols + c]))
        return "output differs from the transpose at " +
               course::coordinates(c * rows + r, std::vector<size_t>{size_t(cols), size_t(rows)});
  return "";
}

}  // namespace

int main(int argc, char** argv) try {
  // The CPU backend runs every GPU thread as a fiber: its default problem is small.
  const char* edge = course::bench::on_cpu_backend() ? "1024" : "16384";
  course::bench::Session session(argc, argv, {{"rows", edge}, {"cols", edge}});
  const int rows = static_cast<int>(session.integer("rows"));
  const int cols = static_cast<int>(session.integer("cols"));
  const size_t elements = size_t(rows) * cols;
  std::printf("matrix %d x %d floats (%.1f MB)\n", rows, cols, elements * 4 / 1e6);

  const course::Seed seed = course::fresh_seed();
  const std::vector<float> a = course::random_floats(elements, seed, 0);
  const std::vector<float> x = course::random_floats(rows, seed, 1);
  DeviceBuffer<float> d_a{std::span<const float>(a)}, d_out(elements), d_x{std::span<const float>(x)}, d_y(cols);
  const double transpose_bytes = 2.0 * elements * sizeof(float);  // read once, write once
  const std::string group = "transpose " + std::to_string(rows) + "x" + std::to_string(cols);
  auto transposed = [&] { return check_transpose(a, d_out, rows, cols); };

  auto poison_out = [&] { d_out.poison(); };
  session.add({.group = group, .name = "device copy (" COURSE_BACKEND_NAME " memcpy)", .prepare = poison_out,
               .run = [&] { GPU_CHECK(gpuMemcpy(d_out.data(), d_a.data(), elements * sizeof(float), gpuMemcpyDeviceToDevice)); },
               .bytes = transpose_bytes, .is_peer = true});
#if defined(COURSE_BLAS_PEER)
  auto blas = std::make_shared<BlasTranspose>();
  session.add({.group = group, .name = COURSE_BLAS_PEER, .prepare = poison_out,
               .run = [&, blas] { (*blas)(d_a.data(), d_out.data(), rows, cols); },
               .bytes = transpose_bytes, .validate = transposed, .is_peer = true});
#endif
  for (const auto& step : ch01::transpose_steps()) {
    session.add({.group = group, .name = std::string(step.id), .prepare = poison_out,
                 .run = [&, run = step.run] { run(d_a.data(), d_out.data(), rows, cols); },
                 .bytes = transpose_bytes, .validate = transposed});
  }

  // y = A^T x over k passes of the same matrix: the flagged matrix pays its transpose once.
  const std::vector<double> y_reference = ch01::multiply_transposed_reference(a, x, rows, cols);
  auto poison_y = [&] { d_y.poison(); };
  auto y_checked = [&] {
    const auto comparison = course::compare(d_y.to_host(), y_reference, {2e-6 * rows, 1e-5}, {size_t(cols)});
    return comparison.ok() ? std::string() : comparison.report();
  };
  for (int passes : {1, 2, 4, 8, 16}) {
    const std::string pass_group = "A^T x, " + std::to_string(passes) + " passes";
    const double bytes = double(passes) * elements * sizeof(float);  // A read once per pass
    auto repeat = [&, passes](ch01::ColumnConsumerFn consumer) {
      return [&, passes, consumer] {
        for (int p = 0; p < passes; ++p) consumer(d_a.data(), d_x.data(), d_y.data(), rows, cols);
      };
    };
    session.add({.group = pass_group, .name = "00_naive", .prepare = poison_y, .run = repeat(ch01::multiply_transposed_naive),
                 .bytes = bytes, .operations = double(passes), .operation_unit = "passes", .validate = y_checked});
    session.add({.group = pass_group, .name = "01_coalesced", .prepare = poison_y,
                 .run = repeat(ch01::multiply_transposed_coalesced), .bytes = bytes, .operations = double(passes),
                 .operation_unit = "passes", .validate = y_checked});
    // A fresh flagged matrix (flag clear) before every timed run; its copy's storage is reserved
    // there too, outside the timing.
    auto matrix = std::make_shared<std::unique_ptr<ch01::FlaggedMatrix>>();
    session.add({.group = pass_group, .name = "03_flagged",
                 .prepare = [&, matrix] {
                   matrix->reset();
                   *matrix = std::make_unique<ch01::FlaggedMatrix>(d_a.data(), rows, cols);
                   d_y.poison();
                 },
                 .run = [&, passes, matrix] {
                   for (int p = 0; p < passes; ++p) (*matrix)->multiply_transposed(d_x.data(), d_y.data());
                 },
                 .bytes = bytes, .operations = double(passes), .operation_unit = "passes", .validate = y_checked});
  }
  return session.run();
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
