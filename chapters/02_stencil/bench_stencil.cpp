// Chapter 2 benchmark: every step for the 7-point star, the 27-point box and both compound
// operators on an N^3 interior (default 512^3 on a GPU), beside a device copy of the same bytes.
// Effective bandwidth counts reading and writing the cube once (2 x 4 N^3 bytes); GFLOP/s counts
// 2 flops per nonzero weight per point. PyTorch's conv3d is measured by peer_conv3d.py.
//
//   bench_stencil [--size=N] [--ceilings=FILE] [--warm-l2] [--quiet] [--repetitions=N]
//                 [--benchmark_filter=REGEX] [--benchmark_out=FILE.json --benchmark_out_format=json]
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "course/benchmark.hpp"
#include "course/device_buffer.hpp"
#include "course/random.hpp"
#include "stencils.hpp"

namespace {

using course::DeviceBuffer;
using ch02::Grid;

template <class Stencil>
int nonzero_weights() {
  int count = 0;
  for (int k = -Stencil::rz; k <= Stencil::rz; ++k)
    for (int j = -Stencil::ry; j <= Stencil::ry; ++j)
      for (int i = -Stencil::rx; i <= Stencil::rx; ++i) count += Stencil::weight(i, j, k) != 0.0;
  return count;
}

// One radius's input and output arrays, shared by the stencils of that radius.
struct Arrays {
  Grid grid;
  std::vector<float> in;
  DeviceBuffer<float> d_in, d_out;
  Arrays(int n, int radius, const course::Seed& seed)
      : grid(ch02::make_grid(n, n, n, radius, radius, radius)),
        in(course::random_floats(grid.size, seed, radius)),
        d_in(std::span<const float>(in)),
        d_out(grid.size) {}
};

// "" when 4096 random interior points of the output match the float64 formula.
template <class Stencil>
std::string spot_check(const Arrays& arrays) {
  const Grid& g = arrays.grid;
  const std::vector<float> out = arrays.d_out.to_host();
  std::mt19937 pick(12345);
  for (int n = 0; n < 4096; ++n) {
    const int x = pick() % g.dx, y = pick() % g.dy, z = pick() % g.dz;
    const double expected =
        ch02::apply<Stencil, double>([&](int i, int j, int k) { return double{arrays.in[g.at(x + i, y + j, z + k)]}; });
    if (!(std::abs(out[g.at(x, y, z)] - expected) <= 1e-4 + 1e-4 * std::abs(expected)))
      return "output at (" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ") is " +
             std::to_string(out[g.at(x, y, z)]) + ", expected " + std::to_string(expected);
  }
  return "";
}

template <class Stencil>
void add_stencil(course::bench::Session& session, Arrays& arrays) {
  const Grid& g = arrays.grid;
  const double points = double(g.dx) * g.dy * g.dz;
  const double bytes = 2 * points * sizeof(float);
  const double gflop = 2.0 * nonzero_weights<Stencil>() * points / 1e9;
  const std::string group = std::string(Stencil::name) + " " + std::to_string(g.dx) + "^3";
  auto poison = [&arrays] { arrays.d_out.poison(); };
  session.add({.group = group, .name = "device copy (" COURSE_BACKEND_NAME " memcpy)",
               .run = [&arrays, points] {
                 GPU_CHECK(gpuMemcpy(arrays.d_out.data(), arrays.d_in.data(), size_t(points) * sizeof(float),
                                     gpuMemcpyDeviceToDevice));
               },
               .bytes = bytes, .is_peer = true});
  for (const ch02::Step& step : ch02::steps()) {
    if (step.stencil != Stencil::name) continue;
    session.add({.group = group, .name = std::string(step.id), .prepare = poison,
                 .run = [&arrays, run = step.run] { run(arrays.d_in.data(), arrays.d_out.data(), arrays.grid); },
                 .bytes = bytes, .operations = gflop, .operation_unit = "GFLOP",
                 .validate = [&arrays] { return spot_check<Stencil>(arrays); }});
  }
}

}  // namespace

int main(int argc, char** argv) try {
  course::bench::Session session(argc, argv, {{"size", course::bench::on_cpu_backend() ? "48" : "512"}});
  const int n = static_cast<int>(session.integer("size"));
  const course::Seed seed = course::fresh_seed();
  std::printf("interior %d^3 floats (%.1f MB); effective bandwidth counts 2 x that\n", n, 4.0 * n * n * n / 1e6);
  Arrays radius1(n, 1, seed), radius2(n, 2, seed);
  add_stencil<ch02::Star7>(session, radius1);
  add_stencil<ch02::Box27>(session, radius1);
  add_stencil<ch02::CompoundR1>(session, radius1);
  add_stencil<ch02::CompoundR2>(session, radius2);
  return session.run();
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
