#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace ch04 {

std::vector<SliceAtom> atoms_on_slice(std::span<const Atom> atoms, float z) {
  std::vector<SliceAtom> out;
  out.reserve(atoms.size());
  for (const Atom& a : atoms) {
    const double dz = double{z} - a.z;
    out.push_back({a.x, a.y, static_cast<float>(dz * dz), a.q});
  }
  return out;
}

ReferencePoint reference_at(std::span<const SliceAtom> atoms, const Slice& s, int i, int j) {
  constexpr double u = 0x1p-24;
  const double x = double{float(i * s.spacing)}, y = double{float(j * s.spacing)};
  const double extent = std::max({double(s.nx) * s.spacing, double(s.ny) * s.spacing, 1.0});
  double potential = 0, s1 = 0, s2 = 0;
  for (const SliceAtom& a : atoms) {
    const double dx = x - a.x, dy = y - a.y;
    const double r = std::sqrt(dx * dx + dy * dy + a.dz2);
    potential += a.q / r;
    s1 += std::abs(a.q) / r;
    s2 += std::abs(a.q) / (r * r);
  }
  const double k = double(atoms.size());
  return {potential, u * (8 * std::sqrt(k + 1) * s1 + 8 * s1 + 6 * extent * s2)};
}

course::Comparison check_potential(std::span<const SliceAtom> atoms, std::span<const float> out, const Slice& s,
                                   std::size_t sample, course::Seed seed) {
  course::Comparison result;
  result.extents = {std::size_t(s.ny), std::size_t(s.nx)};
  result.per_element_bounds = true;
  auto check = [&](int i, int j) {
    const std::size_t index = std::size_t(j) * s.nx + i;
    const ReferencePoint ref = reference_at(atoms, s, i, j);
    result.check_within(index, out[index], ref.potential, ref.bound);
  };
  if (sample == 0) {
    for (int j = 0; j < s.ny; ++j)
      for (int i = 0; i < s.nx; ++i) check(i, j);
  } else {
    std::mt19937_64 pick(seed.value);
    for (std::size_t n = 0; n < sample; ++n) check(int(pick() % s.nx), int(pick() % s.ny));
  }
  return result;
}

std::vector<Atom> random_atoms(int count, const Slice& s, const course::Seed& seed) {
  std::seed_seq sequence{static_cast<std::uint32_t>(seed.value), static_cast<std::uint32_t>(seed.value >> 32), 4u};
  std::mt19937 engine(sequence);
  std::uniform_real_distribution<float> x(0, s.nx * s.spacing), y(0, s.ny * s.spacing), charge(-1, 1),
      height(0.5f * s.spacing, 4 * s.spacing), side(-1, 1);
  std::vector<Atom> atoms(count);
  for (Atom& a : atoms) {
    a.x = x(engine);
    a.y = y(engine);
    a.z = s.z + std::copysign(height(engine), side(engine));
    a.q = charge(engine);
  }
  return atoms;
}

}  // namespace ch04
