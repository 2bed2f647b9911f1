// The chapter's stencils, each a compile-time table of weights over a (2rx+1)(2ry+1)(2rz+1) box:
// out(x,y,z) = sum of weight(i,j,k) * in(x+i, y+j, z+k). Every step applies them through
// `apply`, which unrolls the box and skips zero weights, so the formula F is written once.
#pragma once

#include <stdexcept>
#include <string>

#include "course/gpu.hpp"
#include "stencil.hpp"

namespace ch02 {

// 1D finite-difference weights at offset i, unit spacing: second derivative, first derivative
// and the identity, of order 2 (radius 1) or 4 (radius 2).
__host__ __device__ constexpr double second_derivative(int radius, int i) {
  if (radius == 1) return i == 0 ? -2.0 : (i == 1 || i == -1) ? 1.0 : 0.0;
  switch (i) {
    case 0: return -30.0 / 12;
    case 1: case -1: return 16.0 / 12;
    case 2: case -2: return -1.0 / 12;
    default: return 0.0;
  }
}
__host__ __device__ constexpr double first_derivative(int radius, int i) {
  if (radius == 1) return i == 1 ? 0.5 : i == -1 ? -0.5 : 0.0;
  switch (i) {
    case 1: return 8.0 / 12;
    case -1: return -8.0 / 12;
    case 2: return -1.0 / 12;
    case -2: return 1.0 / 12;
    default: return 0.0;
  }
}
__host__ __device__ constexpr double identity(int i) { return i == 0 ? 1.0 : 0.0; }

// The 7-point Laplacian: a star (faces only).
struct Star7 {
  static constexpr int rx = 1, ry = 1, rz = 1;
  static constexpr const char* name = "star7";
  __host__ __device__ static constexpr double weight(int i, int j, int k) {
    return second_derivative(1, i) * identity(j) * identity(k) + identity(i) * second_derivative(1, j) * identity(k) +
           identity(i) * identity(j) * second_derivative(1, k);
  }
};

// The 27-point box mean: every point of the 3x3x3 cube, corners and edges included.
struct Box27 {
  static constexpr int rx = 1, ry = 1, rz = 1;
  static constexpr const char* name = "box27";
  __host__ __device__ static constexpr double weight(int, int, int) { return 1.0 / 27; }
};

// A compound operator that 2.5D blocking cannot do in one pass: the Laplacian plus every mixed
// derivative, d2/dxdy + d2/dydz + d2/dxdz (the cube's edges) + d3/dxdydz (its corners).
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
};
using CompoundR1 = Compound<1>;
using CompoundR2 = Compound<2>;

// sum over the box of weight * u(i, j, k), in a fixed order (k outer, i inner), in type T.
template <class Stencil, class T, class Access>
__host__ __device__ inline T apply(const Access& u) {
  T sum = 0;
#pragma unroll
  for (int k = -Stencil::rz; k <= Stencil::rz; ++k)
#pragma unroll
    for (int j = -Stencil::ry; j <= Stencil::ry; ++j)
#pragma unroll
      for (int i = -Stencil::rx; i <= Stencil::rx; ++i)
        if (Stencil::weight(i, j, k) != 0.0) sum += static_cast<T>(Stencil::weight(i, j, k)) * u(i, j, k);
  return sum;
}

// True when column (i, j) of the box has a nonzero weight in some plane: the steps that read a
// plane's window once (05 on) skip the columns that no plane uses.
template <class Stencil>
__host__ __device__ constexpr bool column_used(int i, int j) {
  for (int k = -Stencil::rz; k <= Stencil::rz; ++k)
    if (Stencil::weight(i, j, k) != 0.0) return true;
  return false;
}

// Every step calls this first: the halo must be at least the stencil's radius.
template <class Stencil>
void require_halo(const Grid& grid) {
  if (grid.hx < Stencil::rx || grid.hy < Stencil::ry || grid.hz < Stencil::rz)
    throw std::invalid_argument(std::string(Stencil::name) + " needs halos of at least " + std::to_string(Stencil::rx) +
                                "," + std::to_string(Stencil::ry) + "," + std::to_string(Stencil::rz));
}

// Explicit instantiations of a step for every stencil, at the end of each step's file.
#define CH02_INSTANTIATE_FOR_EVERY_STENCIL(step)                               \
  template void step<Star7>(const float*, float*, const Grid&);                \
  template void step<Box27>(const float*, float*, const Grid&);                \
  template void step<CompoundR1>(const float*, float*, const Grid&);           \
  template void step<CompoundR2>(const float*, float*, const Grid&);

}  // namespace ch02
