// Chapter 4's float64 reference, and the one check of a computed potential that the tests and
// the benchmark share.
//
// Error model of a float kernel, per point: the coordinates are floats (i h rounds, and
// x_k - i h then carries an error up to about 3 u L, u = 2^-24, L the largest coordinate), so a
// term q/r is off by at most about u (6 L / r + 6) |q| / r: the coordinates, then the
// reciprocal square root's 2 ulp (4 u; step 06's roots on the FMA pipe stay below that), the
// squared distance's and the product's roundings. Adding K terms in float in any order adds
// rounding errors that behave like a random walk, about u sqrt(K) times the terms' sizes (the
// worst case, u K, is far from seen and would hide a missing atom). The bound used, with room on
// both parts:
//   |V - V_ref| <= u (8 sqrt(K + 1) S1 + 8 S1 + 6 L S2),  S1 = sum |q|/r,  S2 = sum |q|/r^2.
// The tests plant atoms whose own term is far above this bound, so that a step which drops or
// repeats one fails (test_coulomb.cpp).
#pragma once

#include <span>
#include <vector>

#include "coulomb.hpp"
#include "course/compare.hpp"
#include "course/random.hpp"

namespace ch04 {

struct ReferencePoint {
  double potential;
  double bound;  // the error bound above
};
// The potential at point (i, j) in float64, from the same float inputs the kernels read.
ReferencePoint reference_at(std::span<const SliceAtom> atoms, const Slice& slice, int i, int j);

// Compares `out` (nx x ny, row-major) with the reference at every point, or at `sample` random
// points (seeded) when sample > 0. Coordinates in the report are (y, x) = (j, i).
course::Comparison check_potential(std::span<const SliceAtom> atoms, std::span<const float> out, const Slice& slice,
                                   std::size_t sample = 0, course::Seed seed = {0});

// K atoms spread over the slice's rectangle, their heights at least half a grid spacing from the
// slice (so that no atom sits on a grid point) and at most 4 spacings, charges in [-1, 1].
std::vector<Atom> random_atoms(int count, const Slice& slice, const course::Seed& seed);

}  // namespace ch04
