// Chapter 1 benchmark: every transpose step on a rows x cols float matrix (default 16384^2 on a
// GPU) beside the device-to-device copy and the vendor library's transpose (cublasSgeam /
// hipblasSgeam, where the build has the library); then the column consumer y = A^T x over k
// passes: every consumer step, the flagged matrix and the library's gemv; then a size sweep of
// the best transpose step and the copy, from 1 MiB to the whole matrix (L2 flushed, so it shows
// where fixed costs stop mattering, not the L2 helping).
// On a GPU it first measures the latency of a load that misses the caches (the JSON's context,
// "memory_latency_ns"), for the README's bytes-in-flight model.
//
//   bench_transpose [--rows=N] [--cols=N] [--ceilings=FILE] [--warm-l2] [--repetitions=N]
//                   [--benchmark_filter=REGEX] [--benchmark_out=FILE.json --benchmark_out_format=json]
#include <algorithm>
#include <cstdio>
#include <memory>
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

int main(int argc, char** argv) try {
  // The CPU backend runs every GPU thread as a fiber: its default problem is small.
  const char* edge = course::bench::on_cpu_backend() ? "1024" : "16384";
  course::bench::Session session(argc, argv, {{"rows", edge}, {"cols", edge}});
  const int rows = static_cast<int>(session.integer("rows", 1 << 16));
  const int cols = static_cast<int>(session.integer("cols", 1 << 16));
  const size_t elements = size_t(rows) * cols;
  // On the device: A, the output, and the flagged matrix's transposed copy; on the host: A and
  // the output read back to check it.
  session.require_memory(3.0 * elements * sizeof(float), 2.0 * elements * sizeof(float),
                         "a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
  std::printf("matrix %d x %d floats (%.1f MB)\n", rows, cols, elements * 4 / 1e6);

  const course::Seed seed = session.seed();
  std::printf("inputs from %s\n", seed.describe().c_str());
  const std::vector<float> a = course::random_floats(elements, seed, 0);
  const std::vector<float> x = course::random_floats(rows, seed, 1);
  DeviceBuffer<float> d_a{std::span<const float>(a)}, d_out(elements), d_x{std::span<const float>(x)}, d_y(cols);
  if (!course::bench::on_cpu_backend()) {
    if (const double latency = ch01::memory_latency_ns(d_out.data(), elements); latency > 0)
      session.add_context("memory_latency_ns", std::to_string(latency));
  }
  const double transpose_bytes = 2.0 * elements * sizeof(float);  // read once, write once
  const std::string group = "transpose " + std::to_string(rows) + "x" + std::to_string(cols);
  auto transposed = [&] {
    const course::Comparison comparison = ch01::check_transpose(a, d_out.to_host(), rows, cols);
    return comparison.ok() ? std::string() : comparison.report();
  };

  auto poison_out = [&] { d_out.poison(); };
  session.add({.group = group, .name = "device copy (" COURSE_BACKEND_NAME " memcpy)", .prepare = poison_out,
               .run = [&] { GPU_CHECK(gpuMemcpy(d_out.data(), d_a.data(), elements * sizeof(float), gpuMemcpyDeviceToDevice)); },
               .bytes = transpose_bytes, .is_peer = true});
  auto blas = course::peers::Blas::available() ? std::make_shared<course::peers::Blas>() : nullptr;
  if (blas) {
    session.add({.group = group, .name = course::peers::Blas::transpose_name(), .prepare = poison_out,
                 .run = [&, blas] { blas->transpose(d_a.data(), d_out.data(), rows, cols); },
                 .bytes = transpose_bytes, .validate = transposed, .is_peer = true});
  }
  for (const auto& step : ch01::transpose_steps()) {
    session.add({.group = group, .name = step.source.id(), .prepare = poison_out,
                 .run = [&, run = step.run] { run(d_a.data(), d_out.data(), rows, cols); },
                 .bytes = transpose_bytes, .validate = transposed});
  }

  // y = A^T x over k passes of the same matrix: the flagged matrix pays its transpose once.
  const std::vector<double> y_reference = ch01::multiply_transposed_reference(a, x, rows, cols);
  auto poison_y = [&] { d_y.poison(); };
  auto y_checked = [&] {
    const auto comparison = course::compare(d_y.to_host(), y_reference, ch01::sum_tolerance(rows), {size_t(cols)});
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
    for (const auto& step : ch01::consumer_steps()) {
      session.add({.group = pass_group, .name = step.source.id(), .prepare = poison_y, .run = repeat(step.run),
                   .bytes = bytes, .rates = {{"passes", double(passes)}}, .validate = y_checked});
    }
    if (blas) {
      session.add({.group = pass_group, .name = course::peers::Blas::multiply_transposed_name(), .prepare = poison_y,
                   .run = [&, passes, blas] {
                     for (int p = 0; p < passes; ++p) blas->multiply_transposed(d_a.data(), d_x.data(), d_y.data(), rows, cols);
                   },
                   .bytes = bytes, .rates = {{"passes", double(passes)}}, .validate = y_checked, .is_peer = true});
    }
    // A fresh flagged matrix (flag clear) before every timed run; its copy's storage is reserved
    // there too, outside the timing.
    auto matrix = std::make_shared<std::unique_ptr<ch01::FlaggedMatrix>>();
    session.add({.group = pass_group, .name = ch01::kFlaggedStep.id(),
                 .prepare = [&, matrix] {
                   matrix->reset();
                   *matrix = std::make_unique<ch01::FlaggedMatrix>(d_a.data(), rows, cols);
                   d_y.poison();
                 },
                 .run = [&, passes, matrix] {
                   for (int p = 0; p < passes; ++p) (*matrix)->multiply_transposed(d_x.data(), d_y.data());
                 },
                 .bytes = bytes, .rates = {{"passes", double(passes)}}, .validate = y_checked});
  }

  // Size sweep: the best transpose step and the copy on the leading 2^k floats of the same
  // buffers, as a (rows x cols) matrix with rows = cols or 2 cols; groups "size sweep, N MiB".
  const auto steps = ch01::transpose_steps();
  const auto& best = *std::find_if(steps.begin(), steps.end(), [](const auto& s) { return s.source.id() == "06_block_order"; });
  for (size_t bytes = size_t(1) << 20; bytes <= elements * sizeof(float); bytes *= 2) {
    const size_t count = bytes / sizeof(float);
    int sweep_cols = 1;
    while (size_t(sweep_cols) * sweep_cols * 2 <= count) sweep_cols *= 2;
    const int sweep_rows = static_cast<int>(count / sweep_cols);
    const std::string sweep_group = "size sweep, " + std::to_string(bytes >> 20) + " MiB";
    session.add({.group = sweep_group, .name = "device copy (" COURSE_BACKEND_NAME " memcpy)", .prepare = poison_out,
                 .run = [&, bytes] { GPU_CHECK(gpuMemcpy(d_out.data(), d_a.data(), bytes, gpuMemcpyDeviceToDevice)); },
                 .bytes = 2.0 * bytes, .is_peer = true});
    session.add({.group = sweep_group, .name = best.source.id(), .prepare = poison_out,
                 .run = [&, run = best.run, sweep_rows, sweep_cols] { run(d_a.data(), d_out.data(), sweep_rows, sweep_cols); },
                 .bytes = 2.0 * bytes,
                 .validate = [&, count, sweep_rows, sweep_cols] {
                   std::vector<float> out(count);
                   GPU_CHECK(gpuMemcpy(out.data(), d_out.data(), count * sizeof(float), gpuMemcpyDeviceToHost));
                   const std::vector<float> in(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(count));
                   const course::Comparison comparison = ch01::check_transpose(in, out, sweep_rows, sweep_cols);
                   return comparison.ok() ? std::string() : comparison.report();
                 }});
  }
  return session.run();
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
