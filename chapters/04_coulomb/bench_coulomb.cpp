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
#include <memory>
#include <optional>
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

std::string group_of(Size size) {
  return std::to_string(size.nx) + "x" + std::to_string(size.ny) + ", " + std::to_string(size.atoms) + " atoms";
}

ch04::Slice slice_of(Size size) { return {size.nx, size.ny, 0.5f, 1.25f}; }

std::vector<ch04::SliceAtom> atoms_for(Size size, const course::Seed& seed) {
  const ch04::Slice slice = slice_of(size);
  return ch04::atoms_on_slice(ch04::random_atoms(size.atoms, slice, seed), slice.z);
}

// One size's atoms and output, shared by its cases: the session builds them when it reaches the size.
struct Buffers {
  ch04::Slice slice;
  course::Seed seed;
  std::vector<ch04::SliceAtom> atoms;
  DeviceBuffer<ch04::SliceAtom> d_atoms;
  DeviceBuffer<float> d_out;
  Buffers(Size size, const course::Seed& seed_)
      : slice(slice_of(size)),
        seed(seed_),
        atoms(atoms_for(size, seed)),
        d_atoms(std::max<std::size_t>(atoms.size(), 1)),
        d_out(std::size_t(size.nx) * size.ny) {
    if (!atoms.empty()) d_atoms.copy_from(atoms);
  }
};

// Evaluations per second of the float64 reference on one host core, over `points` points.
double host_reference_rate(const std::vector<ch04::SliceAtom>& atoms, const ch04::Slice& slice, int points) {
  const auto start = std::chrono::steady_clock::now();
  double sink = 0;
  for (int n = 0; n < points; ++n) sink += ch04::reference_at(atoms, slice, n % slice.nx, n / slice.nx % slice.ny).potential;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (sink == 1e300) std::printf(" ");  // keeps the loop from being optimised away
  return double(points) * atoms.size() / seconds;
}

}  // namespace

int main(int argc, char** argv) try {
  course::bench::Session session(
      argc, argv,
      {{"sizes", course::bench::on_cpu_backend() ? "64x32:500" : "512x512:10000,2048x2048:100000"}});
  const std::vector<Size> sizes = parse_sizes(session.text("sizes"));
  const course::Seed seed = session.seed();
  std::printf("inputs from %s\n", seed.describe().c_str());
  for (const Size size : sizes) {
    const double evaluations = double(size.nx) * size.ny * size.atoms;
    const double output_bytes = 4.0 * size.nx * size.ny;
    const double bytes = output_bytes + sizeof(ch04::SliceAtom) * size.atoms;  // each read or written once
    const std::string group = group_of(size);
    // Device: the atoms and the output; host: the atoms before and after atoms_on_slice, and the
    // output read back.
    auto buffers = std::make_shared<std::optional<Buffers>>();
    session.add_problem({.name = group,
                         .device_bytes = bytes,
                         .host_bytes = output_bytes + (sizeof(ch04::Atom) + sizeof(ch04::SliceAtom)) * size.atoms,
                         .build = [buffers, size](const course::Seed& inputs) { buffers->emplace(size, inputs); },
                         .release = [buffers] { buffers->reset(); }});
    // The tests' check, at 1024 random points: the whole slice would take minutes on the host.
    auto validate = [buffers] {
      Buffers& b = **buffers;
      const course::Comparison comparison = ch04::check_potential(b.atoms, b.d_out.to_host(), b.slice, 1024, b.seed);
      return comparison.ok() ? std::string() : comparison.report();
    };
    for (const ch04::Step& step : ch04::steps()) {
      session.add({.group = group, .name = step.source.id(), .prepare = [buffers] { (*buffers)->d_out.poison(); },
                   .run = [buffers, run = step.run] {
                     Buffers& b = **buffers;
                     run(b.d_atoms.data(), int(b.atoms.size()), b.d_out.data(), b.slice);
                   },
                   .bytes = bytes,
                   .rates = {course::bench::rsqrts(evaluations), course::bench::flops(5 * evaluations)},
                   .validate = validate, .is_experiment = step.source.experiment, .family = "potential"});
    }
  }
  // Measured once every case is declared (a size given twice is refused first), from the atoms
  // each size's cases start with: the JSON's context is written before the session builds any.
  for (const Size size : sizes) {
    const double host_rate = host_reference_rate(atoms_for(size, seed), slice_of(size), 64);
    std::printf("%s: the float64 reference on one host core, %.3f G evaluations/s\n", group_of(size).c_str(), host_rate / 1e9);
    session.add_context("host_reference_Gevals_per_s " + group_of(size), std::to_string(host_rate / 1e9));
  }
  return session.run();
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
