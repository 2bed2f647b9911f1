// What the stencil chapters share: central finite-difference weights, operators given as a
// compile-time table of weights over a box, the float64 reference, and its comparison with a
// kernel's output.
//
// An operator is a type with
//   static constexpr int rx, ry, rz;                          // the box's radius per axis
//   static constexpr const char* name;                        // "box27"
//   static constexpr double weight(int i, int j, int k);      // i, j, k in [-r, r]
//   static constexpr int exact_degree;                        // exact on polynomials of this degree per axis
//   static double image(const Polynomial& u, double x, double y, double z);  // what it gives on u, exactly
// and out(x,y,z) = sum over the box of weight(i,j,k) * in(x+i, y+j, z+k).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/compare.hpp"
#include "course/gpu.hpp"
#include "course/grid3d.hpp"
#include "course/polynomial.hpp"
#include "course/random.hpp"

namespace course {

// Central differences of order 2r (radius r = 1..4), unit spacing, at offset i. An order-2r
// second difference is exact on polynomials of degree 2r+1, a first difference on degree 2r.
// (Cases rather than tables: kernels call these with constant arguments, and a switch folds to
// a constant where a table indexed in device code might not.)
__host__ __device__ constexpr double second_derivative(int radius, int i) {
  if (i > radius || -i > radius) return 0.0;
  switch (radius * 10 + (i < 0 ? -i : i)) {
    case 10: return -2.0;
    case 11: return 1.0;
    case 20: return -30.0 / 12;
    case 21: return 16.0 / 12;
    case 22: return -1.0 / 12;
    case 30: return -49.0 / 18;
    case 31: return 3.0 / 2;
    case 32: return -3.0 / 20;
    case 33: return 1.0 / 90;
    case 40: return -205.0 / 72;
    case 41: return 8.0 / 5;
    case 42: return -1.0 / 5;
    case 43: return 8.0 / 315;
    case 44: return -1.0 / 560;
    default: return 0.0;
  }
}
__host__ __device__ constexpr double first_derivative(int radius, int i) {
  if (i > radius || -i > radius) return 0.0;
  const double sign = i < 0 ? -1.0 : 1.0;
  switch (radius * 10 + (i < 0 ? -i : i)) {
    case 11: return sign * (1.0 / 2);
    case 21: return sign * (8.0 / 12);
    case 22: return sign * (-1.0 / 12);
    case 31: return sign * (3.0 / 4);
    case 32: return sign * (-3.0 / 20);
    case 33: return sign * (1.0 / 60);
    case 41: return sign * (4.0 / 5);
    case 42: return sign * (-1.0 / 5);
    case 43: return sign * (4.0 / 105);
    case 44: return sign * (-1.0 / 280);
    default: return 0.0;
  }
}
__host__ __device__ constexpr double identity(int i) { return i == 0 ? 1.0 : 0.0; }

// The separable form of an operator: a sum of terms, each a coefficient times a product of 1D
// filters, one per axis. An operator that has it also declares
//   static constexpr int kTerms;
//   __host__ __device__ static constexpr Term term(int t);
// and separable_form_matches<Op>() checks, at compile time, that the terms add up to its weights.
enum class Filter { identity, first_derivative, second_derivative, ones };
struct Filter1D {
  Filter kind;
  int radius;
};
__host__ __device__ constexpr double tap(Filter1D f, int i) {
  switch (f.kind) {
    case Filter::identity: return identity(i);
    case Filter::first_derivative: return first_derivative(f.radius, i);
    case Filter::second_derivative: return second_derivative(f.radius, i);
    case Filter::ones: return i >= -f.radius && i <= f.radius ? 1.0 : 0.0;
  }
  return 0.0;
}
struct Term {
  Filter1D x, y, z;
  double coefficient;
};

template <class Op>
constexpr bool separable_form_matches() {
  for (int k = -Op::rz; k <= Op::rz; ++k)
    for (int j = -Op::ry; j <= Op::ry; ++j)
      for (int i = -Op::rx; i <= Op::rx; ++i) {
        double sum = 0;
        for (int t = 0; t < Op::kTerms; ++t)
          sum += Op::term(t).coefficient * tap(Op::term(t).x, i) * tap(Op::term(t).y, j) * tap(Op::term(t).z, k);
        const double w = Op::weight(i, j, k);
        if ((sum - w) * (sum - w) > 1e-24 * (1.0 + w * w)) return false;  // equal to rounding
      }
  return true;
}

// FMAs a point of the separable form, applied one axis at a time with shared work: every
// distinct x filter once (its nonzero taps), every distinct (x, y) pair once more along y, and
// every term along z. (A kernel that filters a window row for several output rows pays a little
// more along x at the tile's edge rows; this is the form's own count.)
template <class Op>
constexpr int separable_fmas() {
  auto taps = [](Filter1D f) {
    int count = 0;
    for (int i = -4; i <= 4; ++i) count += tap(f, i) != 0.0;
    return count;
  };
  auto same = [](Filter1D a, Filter1D b) { return a.kind == b.kind && a.radius == b.radius; };
  int fmas = 0;
  for (int t = 0; t < Op::kTerms; ++t) {
    const Term term = Op::term(t);
    bool x_seen = term.x.kind == Filter::identity, pair_seen = term.y.kind == Filter::identity;
    for (int s = 0; s < t; ++s) {
      x_seen = x_seen || same(Op::term(s).x, term.x);
      pair_seen = pair_seen || (same(Op::term(s).x, term.x) && same(Op::term(s).y, term.y));
    }
    fmas += (x_seen ? 0 : taps(term.x)) + (pair_seen ? 0 : taps(term.y)) + taps(term.z);
  }
  return fmas;
}

// sum over the box of weight * u(i, j, k), in a fixed order (k outer, i inner), in type T.
// Zero weights are skipped at compile time.
template <class Op, class T, class Access>
__host__ __device__ inline T apply(const Access& u) {
  T sum = 0;
#pragma unroll
  for (int k = -Op::rz; k <= Op::rz; ++k)
#pragma unroll
    for (int j = -Op::ry; j <= Op::ry; ++j)
#pragma unroll
      for (int i = -Op::rx; i <= Op::rx; ++i)
        if (Op::weight(i, j, k) != 0.0) sum += static_cast<T>(Op::weight(i, j, k)) * u(i, j, k);
  return sum;
}

// True when column (i, j) of the box has a nonzero weight in some plane: kernels that read a
// plane's window once skip the columns that no plane uses.
template <class Op>
__host__ __device__ constexpr bool column_used(int i, int j) {
  for (int k = -Op::rz; k <= Op::rz; ++k)
    if (Op::weight(i, j, k) != 0.0) return true;
  return false;
}

template <class Op>
constexpr int nonzero_weights() {
  int count = 0;
  for (int k = -Op::rz; k <= Op::rz; ++k)
    for (int j = -Op::ry; j <= Op::ry; ++j)
      for (int i = -Op::rx; i <= Op::rx; ++i) count += Op::weight(i, j, k) != 0.0;
  return count;
}

// sum |weight|: the largest |out| for inputs in [-1, 1], and what rounding errors scale with.
template <class Op>
constexpr double abs_weight_sum() {
  double sum = 0;
  for (int k = -Op::rz; k <= Op::rz; ++k)
    for (int j = -Op::ry; j <= Op::ry; ++j)
      for (int i = -Op::rx; i <= Op::rx; ++i) sum += Op::weight(i, j, k) < 0 ? -Op::weight(i, j, k) : Op::weight(i, j, k);
  return sum;
}

// Every step calls this first: the halo must be at least the operator's radius.
template <class Op>
void require_halo(const Grid& grid) {
  if (grid.hx < Op::rx || grid.hy < Op::ry || grid.hz < Op::rz)
    throw std::invalid_argument(std::string(Op::name) + " needs halos of at least " + std::to_string(Op::rx) + "," +
                                std::to_string(Op::ry) + "," + std::to_string(Op::rz));
}

// The float64 result at interior point (x, y, z) of `in` (the whole array).
template <class Op>
double reference_at(const std::vector<float>& in, const Grid& g, int x, int y, int z) {
  return apply<Op, double>([&](int i, int j, int k) { return double{in[g.at(x + i, y + j, z + k)]}; });
}

// Compares the interior of `out` (the whole array) with the float64 reference of Op(in): at
// every point, or at `sample` points drawn with `seed` when sample > 0 (for arrays too large to
// check whole after a benchmark). Coordinates in the report are (z, y, x) of the interior.
template <class Op>
Comparison compare_with_reference(const std::vector<float>& in, const std::vector<float>& out, const Grid& g,
                                  Tolerance tolerance, std::size_t sample = 0, Seed seed = {0}) {
  Comparison result;
  result.extents = g.interior_extents();
  result.tolerance = tolerance;
  auto check = [&](int x, int y, int z) {
    const std::size_t dense = (std::size_t(z) * g.dy + y) * g.dx + x;
    result.check(dense, out[g.at(x, y, z)], reference_at<Op>(in, g, x, y, z));
  };
  if (sample == 0) {
    for (int z = 0; z < g.dz; ++z)
      for (int y = 0; y < g.dy; ++y)
        for (int x = 0; x < g.dx; ++x) check(x, y, z);
  } else {
    std::mt19937_64 pick(seed.value);
    for (std::size_t n = 0; n < sample; ++n) check(int(pick() % g.dx), int(pick() % g.dy), int(pick() % g.dz));
  }
  return result;
}

// An input whose exact result is known: a random polynomial of degree Op::exact_degree, on which
// the operator's differences are exact, so that Op::image gives the result at every point.
struct AnalyticField {
  std::vector<float> in;          // the whole array, halo included
  std::vector<double> expected;   // the interior, dense, z slowest
  Tolerance tolerance;            // the float rounding of `in` (relative 6e-8), amplified by the weights
};

template <class Op>
AnalyticField analytic_field(const Grid& g, const Seed& seed) {
  // Coordinates from the interior's centre, and terms scaled to at most 1 on the array, keep the
  // field small where float rounds it.
  const double cx = (g.dx - 1) / 2.0, cy = (g.dy - 1) / 2.0, cz = (g.dz - 1) / 2.0;
  const auto u = Polynomial::random(Op::exact_degree, cx + g.hx, seed);
  AnalyticField field{std::vector<float>(g.size, 0.0f), {}, {}};
  double largest = 0;
  for (int z = -g.hz; z < g.dz + g.hz; ++z)
    for (int y = -g.hy; y < g.dy + g.hy; ++y)
      for (int x = -g.hx; x < g.dx + g.hx; ++x) {
        const double value = u.value(x - cx, y - cy, z - cz);
        field.in[g.at(x, y, z)] = static_cast<float>(value);
        largest = std::max(largest, std::abs(value));
      }
  for (int z = 0; z < g.dz; ++z)
    for (int y = 0; y < g.dy; ++y)
      for (int x = 0; x < g.dx; ++x) field.expected.push_back(Op::image(u, x - cx, y - cy, z - cz));
  field.tolerance = {4e-7 * largest * abs_weight_sum<Op>(), 1e-5};
  return field;
}

}  // namespace course
