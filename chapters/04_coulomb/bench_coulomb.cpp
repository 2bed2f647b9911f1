// Chapter 4 benchmark: every step on grid slices of nx x ny points with K atoms: by default the
// document's 512 x 512 points and 10,000 atoms, and a production size, 2048 x 2048 and 100,000
// (on the CPU backend, 64 x 32 and 500). A case counts its evaluations (points x atoms) against
// the rsqrt ceiling, 5 flops each (dx, the squared distance's FMA, the term's FMA) against the
// FMA ceiling, and the fewest bytes (the atoms read once, the output written once). It also
// times the float64 reference on one host core, for the GPU-against-CPU comparison.
// PyTorch is measured by peer_torch.py.
//
//   bench_coulomb [--sizes=NXxNY:ATOMS[,...]] [--ceilings=FILE] [--warm-l2] [--quiet] [--repetitions=N]
//                 [--benchmark_filter=REGEX] [--benchmark_out=FILE.json --benchmark_out_format=json]
#include <chrono>
#include <cstdio>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/benchmark.hpp"
#include "course/device_buffer.hpp"
#include "course/numbers.hpp"
#include "course/random.hpp"
#include "reference.hpp"
#include "steps.hpp"

namespace {

using course::DeviceBuffer;

struct Size {
  int nx, ny, atoms;
};

std::vector<Size> parse_sizes(const std::string& text) {
  std::vector<Size> sizes;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    const std::size_t times = item.find('x'), colon = item.find(':');
    const auto number = [&item](std::size_t from, std::size_t to, std::uint64_t min, std::uint64_t max) {
      return from <= to && to != std::string::npos ? course::parse_whole_number(std::string_view(item).substr(from, to - from), min, max)
                                                   : std::nullopt;
    };
    const auto nx = number(0, times, 1, 1 << 16), ny = number(times + 1, colon, 1, 1 << 16);
    const auto atoms = number(colon + 1, item.size(), 0, 1 << 24);
    if (times == std::string::npos || !nx || !ny || !atoms)
      throw std::invalid_argument("--sizes needs NXxNY:ATOMS[,...] with NX, NY from 1 to 65536 and ATOMS from 0 to 16777216, not '" + item + "'");
    sizes.push_back({int(*nx), int(*ny), int(*atoms)});
    start = end + 1;
  }
  return sizes;
}

// One size's atoms and output, shared by its cases.
struct Problem {
  ch04::Slice slice;
  std::vector<ch04::SliceAtom> atoms;
  DeviceBuffer<ch04::SliceAtom> d_atoms;
  DeviceBuffer<float> d_out;
  Problem(Size size, const course::Seed& seed)
      : slice{size.nx, size.ny, 0.5f, 1.25f},
        atoms(ch04::atoms_on_slice(ch04::random_atoms(size.atoms, slice, seed), slice.z)),
        d_atoms(std::max<std::size_t>(atoms.size(), 1)),
        d_out(std::size_t(size.nx) * size.ny) {
    if (!atoms.empty()) d_atoms.copy_from(atoms);
  }
};

// Evaluations per second of the float64 reference on one host core, over `points` points.
double host_reference_rate(const Problem& problem, int points) {
  const auto start = std::chrono::steady_clock::now();
  double sink = 0;
  for (int n = 0; n < points; ++n)
    sink += ch04::reference_at(problem.atoms, problem.slice, n % problem.slice.nx, n / problem.slice.nx % problem.slice.ny)
                .potential;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (sink == 1e300) std::printf(" ");  // keeps the loop from being optimised away
  return double(points) * problem.atoms.size() / seconds;
}

}  // namespace

int main(int argc, char** argv) try {
  course::bench::Session session(
      argc, argv,
      {{"sizes", course::bench::on_cpu_backend() ? "64x32:500" : "512x512:10000,2048x2048:100000"}});
  const std::vector<Size> sizes = parse_sizes(session.text("sizes"));
  const course::Seed seed = session.seed();
  std::printf("inputs from %s\n", seed.describe().c_str());
  std::deque<Problem> problems;  // stable addresses for the cases' lambdas
  for (const Size size : sizes) {
    Problem& problem = problems.emplace_back(size, seed);
    const double evaluations = double(size.nx) * size.ny * size.atoms;
    const double bytes = 4.0 * size.nx * size.ny + sizeof(ch04::SliceAtom) * size.atoms;
    const std::string group = std::to_string(size.nx) + "x" + std::to_string(size.ny) + ", " +
                              std::to_string(size.atoms) + " atoms";
    const double host_rate = host_reference_rate(problem, 64);
    std::printf("%s: the float64 reference on one host core, %.3f G evaluations/s\n", group.c_str(), host_rate / 1e9);
    session.add_context("host_reference_Gevals_per_s " + group, std::to_string(host_rate / 1e9));
    // The tests' check, at 1024 random points: the whole slice would take minutes on the host.
    auto validate = [&problem, seed] {
      const course::Comparison comparison =
          ch04::check_potential(problem.atoms, problem.d_out.to_host(), problem.slice, 1024, seed);
      return comparison.ok() ? std::string() : comparison.report();
    };
    for (const ch04::Step& step : ch04::steps()) {
      session.add({.group = group, .name = step.source.id(), .prepare = [&problem] { problem.d_out.poison(); },
                   .run = [&problem, run = step.run] {
                     run(problem.d_atoms.data(), int(problem.atoms.size()), problem.d_out.data(), problem.slice);
                   },
                   .bytes = bytes,
                   .rates = {course::bench::rsqrts(evaluations), course::bench::flops(5 * evaluations)},
                   .validate = validate});
    }
  }
  return session.run();
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
