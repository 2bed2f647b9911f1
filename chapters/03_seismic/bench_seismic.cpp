// Chapter 3 benchmark: every step on an N^3 interior (default 512^3 on a GPU), beside a device
// copy of the same bytes. Effective bandwidth counts the fewest bytes the problem must move:
// reading the field once and writing the result once (2 x 4 N^3 bytes), whatever the step moves
// (three passes move 32 bytes per point at best: the y and z passes read out back). GFLOP/s counts the 25 FMAs of a point.
// Step 00 runs on packed rows, the others on rows padded to 64 floats (steps.hpp): one input
// and one output array of each layout. PyTorch's convolutions are measured by peer_torch.py.
// Beside the device copy, two copies through the loads of the one-pass steps (copy_ceiling.hpp):
// the ceilings of those structures, with none of the arithmetic; and the same two held to the
// steps' 2 blocks per multiprocessor, to tell the structure apart from the occupancy. And a peer
// in the course's code: the CUDA samples' FDTD3d design (fdtd3d_peer.hpp).
//
//   bench_seismic [--size=N] [--ceilings=FILE] [--warm-l2] [--quiet] [--repetitions=N]
//                 [--benchmark_filter=REGEX] [--benchmark_out=FILE.json --benchmark_out_format=json]
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "course/benchmark.hpp"
#include "course/device_buffer.hpp"
#include "course/random.hpp"
#include "copy_ceiling.hpp"
#include "fdtd3d_peer.hpp"
#include "steps.hpp"

namespace {

using ch03::Laplacian8;
using course::DeviceBuffer;
using course::Grid;

Grid grid_of(int n, int align) { return course::make_grid(n, n, n, ch03::kRadius, ch03::kRadius, ch03::kRadius, align); }

// The input and output arrays of one row alignment.
struct Arrays {
  Grid grid;
  std::vector<float> in;
  DeviceBuffer<float> d_in, d_out;
  Arrays(const Grid& g, const course::Seed& seed)
      : grid(g), in(course::random_floats(grid.size, seed)), d_in(std::span<const float>(in)), d_out(grid.size) {}
};

// Every layout's arrays, by row alignment: the session builds them when the first case runs.
struct Layouts {
  course::Seed seed;
  std::map<int, Arrays> by_align;
  Layouts(int n, const course::Seed& seed_) : seed(seed_) {
    for (const ch03::Step& step : ch03::steps())
      if (!by_align.count(step.align)) by_align.try_emplace(step.align, grid_of(n, step.align), seed);
  }
  Arrays& aligned() { return by_align.rbegin()->second; }  // the widest alignment, the copies'
};

}  // namespace

int main(int argc, char** argv) try {
  course::bench::Session session(argc, argv, {{"size", course::bench::on_cpu_backend() ? "40" : "512"}});
  const int n = static_cast<int>(session.integer("size", 1024));  // 32-bit indices within a plane
  std::printf("interior %d^3 floats (%.1f MB); effective bandwidth counts 2 x that\n", n, 4.0 * n * n * n / 1e6);
  std::printf("inputs from %s\n", session.seed().describe().c_str());

  // On the device: an input and an output array per layout; on the host: the inputs and one
  // output read back.
  std::set<int> aligns;
  for (const ch03::Step& step : ch03::steps()) aligns.insert(step.align);
  double device_bytes = 0, host_bytes = 0, largest = 0;
  for (const int align : aligns) {
    const double array_bytes = 4.0 * grid_of(n, align).size;
    device_bytes += 2 * array_bytes;
    host_bytes += array_bytes;
    largest = std::max(largest, array_bytes);
  }
  const std::string group = "laplacian8 " + std::to_string(n) + "^3";
  auto layouts = std::make_shared<std::optional<Layouts>>();
  session.add_problem({.name = group, .device_bytes = device_bytes, .host_bytes = host_bytes + largest,
                       .build = [layouts, n](const course::Seed& seed) { layouts->emplace(n, seed); },
                       .release = [layouts] { layouts->reset(); }});

  const double points = double(n) * n * n;
  const double bytes = 2 * points * sizeof(float);
  const double flops = 2.0 * course::nonzero_weights<Laplacian8>() * points;
  session.add({.group = group, .name = "device copy (" COURSE_BACKEND_NAME " memcpy)",
               .run = [layouts, points] {
                 Arrays& aligned = (*layouts)->aligned();
                 GPU_CHECK(gpuMemcpy(aligned.d_out.data(), aligned.d_in.data(), size_t(points) * sizeof(float),
                                     gpuMemcpyDeviceToDevice));
               },
               .bytes = bytes, .is_peer = true});
  // A structural copy must leave exactly the input in the output's interior.
  auto copied_exactly = [layouts] {
    Arrays& aligned = (*layouts)->aligned();
    const std::vector<float> out = aligned.d_out.to_host();
    const Grid& g = aligned.grid;
    for (int z = 0; z < g.dz; ++z)
      for (int y = 0; y < g.dy; ++y)
        for (int x = 0; x < g.dx; ++x)
          if (out[g.at(x, y, z)] != aligned.in[g.at(x, y, z)])
            return "out(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ") is not the input";
    return std::string();
  };
  const std::pair<const char*, ch03::LaplacianFn> structural_copies[] = {
      {"copy through step 07's loads", ch03::copy_through_prefetch},
      {"copy through step 08's loads", ch03::copy_through_async_ring},
      {"copy through step 07's loads at its occupancy", ch03::copy_through_prefetch_at_step_occupancy},
      {"copy through step 08's loads at its occupancy", ch03::copy_through_async_ring_at_step_occupancy}};
  for (const auto& [name, copy] : structural_copies)
    session.add({.group = group, .name = name, .prepare = [layouts] { (*layouts)->aligned().d_out.poison(); },
                 .run = [layouts, copy] {
                   Arrays& aligned = (*layouts)->aligned();
                   copy(aligned.d_in.data(), aligned.d_out.data(), aligned.grid);
                 },
                 .bytes = bytes, .validate = copied_exactly, .is_peer = true});
  // The tests' check, at 4096 random interior points: the whole cube would take minutes on the host.
  auto matches_reference = [layouts](int align) {
    return [layouts, align] {
      const Arrays& arrays = (*layouts)->by_align.at(align);
      const course::Comparison comparison = course::compare_with_reference<Laplacian8>(
          arrays.in, arrays.d_out.to_host(), arrays.grid, ch03::tolerance(), 4096, (*layouts)->seed);
      return comparison.ok() ? std::string() : comparison.report();
    };
  };
  auto run_on = [layouts](int align, ch03::LaplacianFn laplacian) {
    return [layouts, align, laplacian] {
      Arrays& arrays = (*layouts)->by_align.at(align);
      laplacian(arrays.d_in.data(), arrays.d_out.data(), arrays.grid);
    };
  };
  auto poison = [layouts](int align) { return [layouts, align] { (*layouts)->by_align.at(align).d_out.poison(); }; };
  const int widest = *aligns.rbegin();
  session.add({.group = group, .name = "FDTD3d's design (CUDA samples), the course's code", .prepare = poison(widest),
               .run = run_on(widest, ch03::laplacian_fdtd3d_design), .bytes = bytes, .rates = {course::bench::flops(flops)},
               .validate = matches_reference(widest), .is_peer = true});
  for (const ch03::Step& step : ch03::steps())
    session.add({.group = group, .name = step.source.id(), .prepare = poison(step.align), .run = run_on(step.align, step.run),
                 .bytes = bytes, .rates = {course::bench::flops(flops)}, .validate = matches_reference(step.align),
                 .is_experiment = step.source.experiment, .family = "laplacian8"});
  return session.run();
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
