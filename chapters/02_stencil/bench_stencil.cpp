// Chapter 2 benchmark: every step for every operator (stencils.hpp) on an N^3 interior (default
// 512^3 on a GPU), beside a device copy of the same bytes.
// Effective bandwidth counts reading and writing the cube once (2 x 4 N^3 bytes); GFLOP/s counts
// 2 flops per FMA of the form the step computes: per nonzero weight for the weight table, per
// tap of the separable form (course::separable_fmas). PyTorch's conv3d is measured by
// peer_conv3d.py.
//
//   bench_stencil [--size=N] [--ceilings=FILE] [--warm-l2] [--quiet] [--repetitions=N]
//                 [--benchmark_filter=REGEX] [--benchmark_out=FILE.json --benchmark_out_format=json]
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "course/benchmark.hpp"
#include "course/device_buffer.hpp"
#include "course/random.hpp"
#include "steps.hpp"

namespace {

using course::DeviceBuffer;
using course::Grid;

// One operator's input and output arrays, for its radius: the session builds them when it
// reaches the operator's cases.
struct Arrays {
  Grid grid;
  course::Seed seed;
  std::vector<float> in;
  DeviceBuffer<float> d_in, d_out;
  Arrays(const Grid& g, const course::Seed& seed_)
      : grid(g), seed(seed_), in(course::random_floats(grid.size, seed)), d_in(std::span<const float>(in)), d_out(grid.size) {}

  // The tests' check, at 4096 random interior points: the whole cube would take minutes on the host.
  template <class Op>
  std::string check() const {
    const course::Comparison comparison =
        course::compare_with_reference<Op>(in, d_out.to_host(), grid, ch02::tolerance<Op>(), 4096, seed);
    return comparison.ok() ? std::string() : comparison.report();
  }
};

template <class Op>
void add_operator(course::bench::Session& session, int n) {
  const Grid g = course::make_grid(n, n, n, Op::rx, Op::ry, Op::rz);
  const double points = double(g.dx) * g.dy * g.dz;
  const double bytes = 2 * points * sizeof(float);
  const double table_flops = 2.0 * course::nonzero_weights<Op>() * points;
  const double separable_flops = 2.0 * course::separable_fmas<Op>() * points;
  const std::string group = std::string(Op::name) + " " + std::to_string(g.dx) + "^3";
  // On the device: the input and the output; on the host: the input and the output read back.
  auto arrays = std::make_shared<std::optional<Arrays>>();
  session.add_problem({.name = group, .device_bytes = 2.0 * g.size * sizeof(float), .host_bytes = 2.0 * g.size * sizeof(float),
                       .build = [arrays, g](const course::Seed& seed) { arrays->emplace(g, seed); },
                       .release = [arrays] { arrays->reset(); }});
  session.add({.group = group, .name = "device copy (" COURSE_BACKEND_NAME " memcpy)",
               .run = [arrays, points] {
                 Arrays& a = **arrays;
                 GPU_CHECK(gpuMemcpy(a.d_out.data(), a.d_in.data(), size_t(points) * sizeof(float), gpuMemcpyDeviceToDevice));
               },
               .bytes = bytes, .is_peer = true});
  for (const ch02::Step& step : ch02::steps<Op>()) {
    session.add({.group = group, .name = step.source.id(), .prepare = [arrays] { (*arrays)->d_out.poison(); },
                 .run = [arrays, run = step.run] {
                   Arrays& a = **arrays;
                   run(a.d_in.data(), a.d_out.data(), a.grid);
                 },
                 .bytes = bytes,
                 .rates = {course::bench::flops(step.form == ch02::Form::separable ? separable_flops : table_flops)},
                 .validate = [arrays] { return (*arrays)->template check<Op>(); },
                 .is_experiment = step.source.experiment, .family = Op::name});
  }
}

}  // namespace

int main(int argc, char** argv) try {
  course::bench::Session session(argc, argv, {{"size", course::bench::on_cpu_backend() ? "48" : "512"}});
  const int n = static_cast<int>(session.integer("size", 1024));  // 32-bit indices in the kernels
  std::printf("interior %d^3 floats (%.1f MB); effective bandwidth counts 2 x that\n", n, 4.0 * n * n * n / 1e6);
  std::printf("inputs from %s\n", session.seed().describe().c_str());
  course::for_each_type(ch02::Operators{}, [&]<class Op>() { add_operator<Op>(session, n); });
  return session.run();
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
