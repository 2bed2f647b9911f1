// Chapter 2's operators, each a compile-time table of weights over a (2rx+1)(2ry+1)(2rz+1) box:
// out(x,y,z) = sum of weight(i,j,k) * in(x+i, y+j, z+k) (course/stencil.hpp). The float64
// reference and steps 00-04 apply the table through course::apply; steps 05-11 read each plane's
// window once and loop over the same weights themselves; step 12 applies the separable form.
// An operator is added here, once: its type (weights, separable form, analytic image) and a row
// of CH02_OPERATORS.
#pragma once

#include "course/polynomial.hpp"
#include "course/stencil.hpp"
#include "course/type_list.hpp"

namespace ch02 {

using course::apply;
using course::column_used;
using course::Filter;
using course::first_derivative;
using course::Grid;
using course::identity;
using course::Polynomial;
using course::require_halo;
using course::second_derivative;
using course::Term;

// Each operator also gives its separable form (course/stencil.hpp), which step 12 applies one
// axis at a time; a static_assert below checks that it adds up to the weights.
constexpr course::Filter1D kIdentity{Filter::identity, 0};

// The 7-point Laplacian: a star (faces only).
struct Star7 {
  static constexpr int rx = 1, ry = 1, rz = 1;
  static constexpr const char* name = "star7";
  __host__ __device__ static constexpr double weight(int i, int j, int k) {
    return second_derivative(1, i) * identity(j) * identity(k) + identity(i) * second_derivative(1, j) * identity(k) +
           identity(i) * identity(j) * second_derivative(1, k);
  }
  static constexpr int kTerms = 3;
  __host__ __device__ static constexpr Term term(int t) {
    constexpr course::Filter1D d2{Filter::second_derivative, 1};
    return t == 0 ? Term{d2, kIdentity, kIdentity, 1.0} : t == 1 ? Term{kIdentity, d2, kIdentity, 1.0}
                                                                 : Term{kIdentity, kIdentity, d2, 1.0};
  }
  static constexpr int exact_degree = 3;
  static double image(const Polynomial& u, double x, double y, double z) {
    return u.derivative(2, 0, 0, x, y, z) + u.derivative(0, 2, 0, x, y, z) + u.derivative(0, 0, 2, x, y, z);
  }
};

// The 27-point box mean: every point of the 3x3x3 cube, corners and edges included.
struct Box27 {
  static constexpr int rx = 1, ry = 1, rz = 1;
  static constexpr const char* name = "box27";
  __host__ __device__ static constexpr double weight(int, int, int) { return 1.0 / 27; }
  static constexpr int kTerms = 1;
  __host__ __device__ static constexpr Term term(int) {
    constexpr course::Filter1D ones{Filter::ones, 1};
    return {ones, ones, ones, 1.0 / 27};
  }
  // The mean of f(x+s) over s = -1, 0, 1 is f + f''/3 when f is a cubic; in 3D the product of
  // (1 + D^2/3) over the axes.
  static constexpr int exact_degree = 3;
  static double image(const Polynomial& u, double x, double y, double z) {
    auto d = [&](int nx, int ny, int nz) { return u.derivative(nx, ny, nz, x, y, z); };
    return d(0, 0, 0) + (d(2, 0, 0) + d(0, 2, 0) + d(0, 0, 2)) / 3 + (d(2, 2, 0) + d(0, 2, 2) + d(2, 0, 2)) / 9 +
           d(2, 2, 2) / 27;
  }
};

// A compound operator, the Laplacian plus every mixed derivative, d2/dxdy + d2/dydz + d2/dxdz (the
// cube's edges) + d3/dxdydz (its corners), from 1D differences of order 2 kRadius. The patent says
// 2.5D blocking cannot do it in one pass; steps 05-12 do (the lesson's step 05 says which 2.5D
// blocking the claim holds for).
template <int kRadius>
struct Compound {
  static constexpr int rx = kRadius, ry = kRadius, rz = kRadius;
  static constexpr const char* name = kRadius == 1 ? "compound_r1" : "compound_r2";
  __host__ __device__ static constexpr double weight(int i, int j, int k) {
    const double d2x = second_derivative(kRadius, i), d2y = second_derivative(kRadius, j),
                 d2z = second_derivative(kRadius, k);
    const double d1x = first_derivative(kRadius, i), d1y = first_derivative(kRadius, j),
                 d1z = first_derivative(kRadius, k);
    const double ix = identity(i), iy = identity(j), iz = identity(k);
    return d2x * iy * iz + ix * d2y * iz + ix * iy * d2z  // Laplacian
           + d1x * d1y * iz + ix * d1y * d1z + d1x * iy * d1z  // mixed second derivatives
           + d1x * d1y * d1z;                                   // mixed third derivative
  }
  static constexpr int kTerms = 7;
  __host__ __device__ static constexpr Term term(int t) {
    constexpr course::Filter1D d1{Filter::first_derivative, kRadius}, d2{Filter::second_derivative, kRadius},
        id = kIdentity;
    switch (t) {  // in the order of weight()'s sum
      case 0: return {d2, id, id, 1.0};
      case 1: return {id, d2, id, 1.0};
      case 2: return {id, id, d2, 1.0};
      case 3: return {d1, d1, id, 1.0};
      case 4: return {id, d1, d1, 1.0};
      case 5: return {d1, id, d1, 1.0};
      default: return {d1, d1, d1, 1.0};
    }
  }
  static constexpr int exact_degree = 2 * kRadius;  // the first differences'
  static double image(const Polynomial& u, double x, double y, double z) {
    auto d = [&](int nx, int ny, int nz) { return u.derivative(nx, ny, nz, x, y, z); };
    return d(2, 0, 0) + d(0, 2, 0) + d(0, 0, 2) + d(1, 1, 0) + d(0, 1, 1) + d(1, 0, 1) + d(1, 1, 1);
  }
};
using CompoundR1 = Compound<1>;
using CompoundR2 = Compound<2>;

#define CH02_CHECK_SEPARABLE_FORM(Op, ...) \
  static_assert(course::separable_form_matches<Op>(), #Op "'s terms do not add up to its weights");
// Every operator of the chapter: the tests, the benchmark and the step tables iterate this list.
#define CH02_OPERATORS(X, ...) X(Star7, __VA_ARGS__) X(Box27, __VA_ARGS__) X(CompoundR1, __VA_ARGS__) X(CompoundR2, __VA_ARGS__)
using Operators = COURSE_TYPE_LIST(CH02_OPERATORS);
CH02_OPERATORS(CH02_CHECK_SEPARABLE_FORM)

// The tests' and the benchmark's tolerance: float sums of products of numbers in [-1, 1], whose
// rounding grows with the sum of |weight|.
template <class Op>
course::Tolerance tolerance() {
  return {2e-6 * course::abs_weight_sum<Op>(), 1e-5};
}

}  // namespace ch02
