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
#include <string>
#include <vector>

#include "course/benchmark.hpp"
#include "course/device_buffer.hpp"
#include "course/random.hpp"
#include "steps.hpp"

namespace {

using course::DeviceBuffer;
using course::Grid;

// One radius's input and output arrays, shared by the operators of that radius.
struct Arrays {
  Grid grid;
  std::vector<float> in;
  DeviceBuffer<float> d_in, d_out;
  Arrays(int n, int radius, const course::Seed& seed)
      : grid(course::make_grid(n, n, n, radius, radius, radius)),
        in(course::random_floats(grid.size, seed, radius)),
        d_in(std::span<const float>(in)),
        d_out(grid.size) {}
};

template <class Op>
void add_operator(course::bench::Session& session, Arrays& arrays, const course::Seed& seed) {
  const Grid& g = arrays.grid;
  const double points = double(g.dx) * g.dy * g.dz;
  const double bytes = 2 * points * sizeof(float);
  const double table_flops = 2.0 * course::nonzero_weights<Op>() * points;
  const double separable_flops = 2.0 * course::separable_fmas<Op>() * points;
  const std::string group = std::string(Op::name) + " " + std::to_string(g.dx) + "^3";
  auto poison = [&arrays] { arrays.d_out.poison(); };
  // The tests' check, at 4096 random interior points: the whole cube would take minutes on the host.
  auto validate = [&arrays, seed] {
    const course::Comparison comparison = course::compare_with_reference<Op>(
        arrays.in, arrays.d_out.to_host(), arrays.grid, ch02::tolerance<Op>(), 4096, seed);
    return comparison.ok() ? std::string() : comparison.report();
  };
  session.add({.group = group, .name = "device copy (" COURSE_BACKEND_NAME " memcpy)",
               .run = [&arrays, points] {
                 GPU_CHECK(gpuMemcpy(arrays.d_out.data(), arrays.d_in.data(), size_t(points) * sizeof(float),
                                     gpuMemcpyDeviceToDevice));
               },
               .bytes = bytes, .is_peer = true});
  for (const ch02::Step& step : ch02::steps<Op>()) {
    session.add({.group = group, .name = step.source.id(), .prepare = poison,
                 .run = [&arrays, run = step.run] { run(arrays.d_in.data(), arrays.d_out.data(), arrays.grid); },
                 .bytes = bytes,
                 .rates = {course::bench::flops(step.form == ch02::Form::separable ? separable_flops : table_flops)},
                 .validate = validate});
  }
}

}  // namespace

int main(int argc, char** argv) try {
  course::bench::Session session(argc, argv, {{"size", course::bench::on_cpu_backend() ? "48" : "512"}});
  const int n = static_cast<int>(session.integer("size", 1024));  // 32-bit indices in the kernels
  const double array_bytes = 4.0 * (n + 4.0) * (n + 4.0) * (n + 4.0);  // the widest halo, radius 2
  // On the device: an input and an output array per radius; on the host: the inputs and one
  // output read back to check it.
  session.require_memory(4 * array_bytes, 3 * array_bytes, "a " + std::to_string(n) + "^3 grid");
  const course::Seed seed = session.seed();
  std::printf("interior %d^3 floats (%.1f MB); effective bandwidth counts 2 x that\n", n, 4.0 * n * n * n / 1e6);
  std::printf("inputs from %s\n", seed.describe().c_str());
  Arrays radius1(n, 1, seed), radius2(n, 2, seed);
  course::for_each_type(ch02::Operators{}, [&]<class Op>() {
    add_operator<Op>(session, Op::rx == 1 ? radius1 : radius2, seed);
  });
  return session.run();
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
