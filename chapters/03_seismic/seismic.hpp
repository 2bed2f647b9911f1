// Chapter 3's problem: out = Dxx(in) + Dyy(in) + Dzz(in), the radius-4 (8th-order) central
// second differences of a float field on a padded grid (course/grid3d.hpp), summed.
//
// The steps compute it either in three passes (x writes out = Dxx, y and z add to it) or fused.
// The operator, its float64 reference and the tolerance are here, once; so are the small
// device helpers every step shares (the weights as float, vectors of 1, 2 or 4 floats).
#pragma once

#include "course/polynomial.hpp"
#include "course/stencil.hpp"

namespace ch03 {

using course::Grid;

constexpr int kRadius = 4;

// The operator as a table of weights over the 9x9x9 box (course/stencil.hpp): a star of 25 points.
struct Laplacian8 {
  static constexpr int rx = kRadius, ry = kRadius, rz = kRadius;
  static constexpr const char* name = "laplacian8";
  __host__ __device__ static constexpr double weight(int i, int j, int k) {
    using course::identity;
    using course::second_derivative;
    return second_derivative(kRadius, i) * identity(j) * identity(k) +
           identity(i) * second_derivative(kRadius, j) * identity(k) +
           identity(i) * identity(j) * second_derivative(kRadius, k);
  }
  // An 8th-order second difference is exact on polynomials of degree 9.
  static constexpr int exact_degree = 2 * kRadius + 1;
  static double image(const course::Polynomial& u, double x, double y, double z) {
    return u.derivative(2, 0, 0, x, y, z) + u.derivative(0, 2, 0, x, y, z) + u.derivative(0, 0, 2, x, y, z);
  }
};

// Sums of 25 products of numbers in [-1, 1]; sum |weight| is 3 x 6.5 = 19.5.
inline course::Tolerance tolerance() { return {2e-6 * course::abs_weight_sum<Laplacian8>(), 1e-5}; }

// The weight of offset i (-4..4) along one axis, in float. Called with constant arguments in
// unrolled loops, so it folds to an immediate.
__host__ __device__ constexpr float weight(int i) { return static_cast<float>(course::second_derivative(kRadius, i)); }

// float, float2 or float4: what one thread loads or stores at once when it handles kVec
// neighbouring x points; lane(v, i) is its i-th float.
template <int kVec> struct VecOf;
template <> struct VecOf<1> { using type = float; };
template <> struct VecOf<2> { using type = float2; };
template <> struct VecOf<4> { using type = float4; };
template <int kVec> using Vec = typename VecOf<kVec>::type;

template <class V> __host__ __device__ inline float& lane(V& v, int i) { return reinterpret_cast<float*>(&v)[i]; }
template <class V> __host__ __device__ inline float lane(const V& v, int i) { return reinterpret_cast<const float*>(&v)[i]; }
template <class V> __host__ __device__ inline V zero() {
  V v;
  for (int i = 0; i < int(sizeof(V) / sizeof(float)); ++i) lane(v, i) = 0.0f;
  return v;
}

// Step 02's z pass (02_sliding_window.cu), which steps 03-05 reuse: out += Dzz(in), each thread a
// column whose 2R+1 values slide up 64 planes in registers. Launched, not synchronised.
void add_z_window(const float* in, float* out, const Grid& grid);

// Steps from 01 on assume rows aligned to 64 floats, as the source document pads them (steps
// 03-06 load float4s, which need at least 4); they call this first.
void require_aligned_rows(const Grid& grid, int align, const char* step);

}  // namespace ch03
