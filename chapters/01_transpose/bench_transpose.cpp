// Chapter 1 benchmark: every transpose step on a rows x cols float matrix (default 16384^2 on a
// GPU) beside the device-to-device copy and the vendor library's transpose (cublasSgeam /
// hipblasSgeam, where the build has the library); then the column consumer y = A^T x over k
// passes (k = 1 and 16; with --all also 2, 4 and 8): every consumer step, the flagged matrix and
// the library's gemv; then, with --all, a size sweep of the best transpose step and the copy,
// from 1 MiB to the whole matrix (L2 flushed, so it shows where fixed costs stop mattering, not
// the L2 helping).
// On a GPU it first measures the latency of a load that misses the caches (the JSON's context,
// "memory_latency_ns"), for the bytes-in-flight model in NOTES.md.
//
//   bench_transpose [--rows=N] [--cols=N] [--all] [--ceilings=FILE] [--warm-l2] [--repetitions=N]
//                   [--benchmark_filter=REGEX] [--benchmark_out=FILE.json --benchmark_out_format=json]
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "course/benchmark.hpp"
#include "course/device_buffer.hpp"
#include "course/peers.hpp"
#include "course/random.hpp"
#include "memory_latency.hpp"
#include "reference.hpp"
#include "transpose.hpp"

using course::DeviceBuffer;

namespace {

// What every case shares: the matrix A, the transposes' output, x and y = A^T x with its
// reference, and the flagged matrix of the consumer being timed. The session builds it when the
// first case runs.
struct Matrix {
  int rows, cols;
  std::vector<float> a, x;
  std::vector<double> y_reference;
  DeviceBuffer<float> d_a, d_out, d_x, d_y;
  std::unique_ptr<ch01::FlaggedMatrix> flagged;  // made fresh (flag clear) before every run of the flagged step

  Matrix(int rows_, int cols_, const course::Seed& seed)
      : rows(rows_), cols(cols_),
        a(course::random_floats(std::size_t(rows) * cols, seed, 0)),
        x(course::random_floats(rows, seed, 1)),
        y_reference(ch01::multiply_transposed_reference(a, x, rows, cols)),
        d_a(std::span<const float>(a)), d_out(a.size()), d_x(std::span<const float>(x)), d_y(cols) {}

  std::string transposed() const {
    const course::Comparison comparison = ch01::check_transpose(a, d_out.to_host(), rows, cols);
    return comparison.ok() ? std::string() : comparison.report();
  }
  std::string y_checked() const {
    const auto comparison = course::compare(d_y.to_host(), y_reference, ch01::sum_tolerance(rows), {size_t(cols)});
    return comparison.ok() ? std::string() : comparison.report();
  }
};

}  // namespace

int main(int argc, char** argv) try {
  // The CPU backend runs every GPU thread as a fiber: its default problem is small.
  const char* edge = course::bench::on_cpu_backend() ? "1024" : "16384";
  course::bench::Session session(argc, argv, {{"rows", edge}, {"cols", edge}});
  const int rows = static_cast<int>(session.integer("rows", 1 << 16));
  const int cols = static_cast<int>(session.integer("cols", 1 << 16));
  const size_t elements = size_t(rows) * cols;
  std::printf("matrix %d x %d floats (%.1f MB)\n", rows, cols, elements * 4 / 1e6);
  std::printf("inputs from %s\n", session.seed().describe().c_str());

  // On the device: A, the output, and the flagged matrix's transposed copy; on the host: A, the
  // output read back to check it, and a leading part of A in the size sweep's check.
  auto matrix = std::make_shared<std::optional<Matrix>>();
  session.add_problem({.name = "a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix",
                       .device_bytes = 3.0 * elements * sizeof(float),
                       .host_bytes = 3.0 * elements * sizeof(float),
                       .build = [matrix, rows, cols](const course::Seed& seed) { matrix->emplace(rows, cols, seed); },
                       .release = [matrix] { matrix->reset(); }});
  const double transpose_bytes = 2.0 * elements * sizeof(float);  // read once, write once
  const std::string group = "transpose " + std::to_string(rows) + "x" + std::to_string(cols);
  auto poison_out = [matrix] { (*matrix)->d_out.poison(); };
  auto transposed = [matrix] { return (*matrix)->transposed(); };

  session.add({.group = group, .name = "device copy (" COURSE_BACKEND_NAME " memcpy)", .prepare = poison_out,
               .run = [matrix] {
                 Matrix& m = **matrix;
                 GPU_CHECK(gpuMemcpy(m.d_out.data(), m.d_a.data(), m.a.size() * sizeof(float), gpuMemcpyDeviceToDevice));
               },
               .bytes = transpose_bytes, .is_peer = true});
  auto blas = course::peers::Blas::available() ? std::make_shared<course::peers::Blas>() : nullptr;
  if (blas) {
    session.add({.group = group, .name = course::peers::Blas::transpose_name(), .prepare = poison_out,
                 .run = [matrix, blas] {
                   Matrix& m = **matrix;
                   blas->transpose(m.d_a.data(), m.d_out.data(), m.rows, m.cols);
                 },
                 .bytes = transpose_bytes, .validate = transposed, .is_peer = true});
  }
  for (const auto& step : ch01::transpose_steps()) {
    session.add({.group = group, .name = step.source.id(), .prepare = poison_out,
                 .run = [matrix, run = step.run] {
                   Matrix& m = **matrix;
                   run(m.d_a.data(), m.d_out.data(), m.rows, m.cols);
                 },
                 .bytes = transpose_bytes, .validate = transposed, .is_experiment = step.source.experiment,
                 .family = "transpose"});
  }

  // y = A^T x over k passes of the same matrix: the flagged matrix pays its transpose once.
  auto poison_y = [matrix] { (*matrix)->d_y.poison(); };
  auto y_checked = [matrix] { return (*matrix)->y_checked(); };
  const std::vector<int> pass_counts = session.all() ? std::vector<int>{1, 2, 4, 8, 16} : std::vector<int>{1, 16};
  for (const int passes : pass_counts) {
    const std::string pass_group = "A^T x, " + std::to_string(passes) + " passes";
    const double bytes = double(passes) * elements * sizeof(float);  // A read once per pass
    auto repeat = [matrix, passes](ch01::ColumnConsumerFn consumer) {
      return [matrix, passes, consumer] {
        Matrix& m = **matrix;
        for (int p = 0; p < passes; ++p) consumer(m.d_a.data(), m.d_x.data(), m.d_y.data(), m.rows, m.cols);
      };
    };
    for (const auto& step : ch01::consumer_steps()) {
      session.add({.group = pass_group, .name = step.source.id(), .prepare = poison_y, .run = repeat(step.run),
                   .bytes = bytes, .rates = {{"passes", double(passes)}}, .validate = y_checked, .family = "A^T x"});
    }
    if (blas) {
      session.add({.group = pass_group, .name = course::peers::Blas::multiply_transposed_name(), .prepare = poison_y,
                   .run = [matrix, passes, blas] {
                     Matrix& m = **matrix;
                     for (int p = 0; p < passes; ++p) blas->multiply_transposed(m.d_a.data(), m.d_x.data(), m.d_y.data(), m.rows, m.cols);
                   },
                   .bytes = bytes, .rates = {{"passes", double(passes)}}, .validate = y_checked, .is_peer = true});
    }
    // A fresh flagged matrix (flag clear) before every timed run; its copy's storage is reserved
    // there too, outside the timing, after the last one's is freed.
    session.add({.group = pass_group, .name = ch01::kFlaggedStep.id(),
                 .prepare = [matrix] {
                   Matrix& m = **matrix;
                   m.flagged.reset();
                   m.flagged = std::make_unique<ch01::FlaggedMatrix>(m.d_a.data(), m.rows, m.cols);
                   m.d_y.poison();
                 },
                 .run = [matrix, passes] {
                   Matrix& m = **matrix;
                   for (int p = 0; p < passes; ++p) m.flagged->multiply_transposed(m.d_x.data(), m.d_y.data());
                 },
                 .bytes = bytes, .rates = {{"passes", double(passes)}}, .validate = y_checked, .family = "A^T x"});
  }

  // Size sweep: the best transpose step and the copy on the leading 2^k floats of the same
  // buffers, as a (rows x cols) matrix with rows = cols or 2 cols; groups "size sweep, N MiB".
  const auto steps = ch01::transpose_steps();
  const auto& best = *std::find_if(steps.begin(), steps.end(), [](const auto& s) { return s.source.id() == "06_block_order"; });
  for (size_t bytes = size_t(1) << 20; session.all() && bytes <= elements * sizeof(float); bytes *= 2) {
    const size_t count = bytes / sizeof(float);
    int sweep_cols = 1;
    while (size_t(sweep_cols) * sweep_cols * 2 <= count) sweep_cols *= 2;
    const int sweep_rows = static_cast<int>(count / sweep_cols);
    const std::string sweep_group = "size sweep, " + std::to_string(bytes >> 20) + " MiB";
    session.add({.group = sweep_group, .name = "device copy (" COURSE_BACKEND_NAME " memcpy)", .prepare = poison_out,
                 .run = [matrix, bytes] {
                   Matrix& m = **matrix;
                   GPU_CHECK(gpuMemcpy(m.d_out.data(), m.d_a.data(), bytes, gpuMemcpyDeviceToDevice));
                 },
                 .bytes = 2.0 * bytes, .is_peer = true});
    session.add({.group = sweep_group, .name = best.source.id(), .prepare = poison_out,
                 .run = [matrix, run = best.run, sweep_rows, sweep_cols] {
                   Matrix& m = **matrix;
                   run(m.d_a.data(), m.d_out.data(), sweep_rows, sweep_cols);
                 },
                 .bytes = 2.0 * bytes,
                 .validate = [matrix, count, sweep_rows, sweep_cols] {
                   const Matrix& m = **matrix;
                   std::vector<float> out(count);
                   GPU_CHECK(gpuMemcpy(out.data(), m.d_out.data(), count * sizeof(float), gpuMemcpyDeviceToHost));
                   const std::vector<float> in(m.a.begin(), m.a.begin() + static_cast<std::ptrdiff_t>(count));
                   const course::Comparison comparison = ch01::check_transpose(in, out, sweep_rows, sweep_cols);
                   return comparison.ok() ? std::string() : comparison.report();
                 }});
  }

  // The latency of a load that misses the caches, in a buffer of its own freed before the cases
  // run: 1 GiB, which holds the longest chain memory_latency_ns() walks, far beyond any L2; left
  // out, in one line, where it would not fit (the harness's measure, COURSE_DEVICE_MEMORY_MB too).
  if (!course::bench::on_cpu_backend()) {
    const course::bench::Problem chain{.name = "the memory latency's chain", .device_bytes = 4.0 * (std::size_t(1) << 28)};
    if (const std::string why = session.does_not_fit(chain); !why.empty()) {
      std::printf("skipped %s: %s\n", chain.name.c_str(), why.c_str());
    } else {
      DeviceBuffer<float> scratch(std::size_t(1) << 28);
      if (const double latency = ch01::memory_latency_ns(scratch.data(), scratch.size()); latency > 0)
        session.add_context("memory_latency_ns", std::to_string(latency));
    }
  }
  return session.run();
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
