// The in-place (AA) pattern of steps 11 and 12 with step 07's lean addressing: a cell's
// neighbourhood as offsets within a plane, the upwind neighbour of a direction, and the
// conversions between the canonical layout and the one buffer's, for any stored type.
//
// One buffer holds nine planes, one a direction, of nx x ny values each. An offset within a
// plane fits 32 bits (nx <= 65536 and ny <= 65535, check_channel's and the benchmark's limits, so
// a plane has fewer than 2^32 cells); the plane's start does not: nine planes of 4.3 billion
// cells are 38.7 billion values. So each access is plane_start<k>() (a 64-bit product of a
// compile-time k and the launch's plane size, the same for every thread) plus a 32-bit offset.
#pragma once

#include <cstddef>

#include "course/gpu.hpp"
#include "lbm.hpp"

namespace ch05 {

// A cell's neighbourhood. Rows are reached by adding `below` or `above` in unsigned 32-bit
// arithmetic, which wraps: -nx is 2^32 - nx, and the wrap from the first row to the last,
// (ny - 1) nx, may be above 2^31.
struct AaNeighbourhood {
  unsigned here, west, east;  // offsets in a plane of this cell and of its row's neighbours
  unsigned below, above;      // added to step a row down (y - 1) or up: -nx and nx, or across the grid where rows wrap
  bool south_wall, north_wall;
};

__host__ __device__ inline AaNeighbourhood aa_neighbourhood(int x, int y, const Channel& c) {
  const unsigned nx = static_cast<unsigned>(c.nx), row_start = static_cast<unsigned>(y) * nx;
  const unsigned wrap = static_cast<unsigned>(c.ny - 1) * nx;  // from the first row to the last
  return {row_start + x, row_start + (x == 0 ? nx - 1 : x - 1), row_start + (x == c.nx - 1 ? 0 : x + 1),
          y == 0 && !c.walls ? wrap : 0u - nx, y == c.ny - 1 && !c.walls ? 0u - wrap : nx, c.walls && y == 0,
          c.walls && y == c.ny - 1};
}

// The offset of cell x - e_k, the upwind neighbour of direction k; `wall` says that it is behind
// a wall.
template <int k>
__host__ __device__ inline unsigned aa_upwind(const AaNeighbourhood& n, bool& wall) {
  constexpr int ex = velocity_x(k), ey = velocity_y(k);
  const unsigned column = ex == 0 ? n.here : ex > 0 ? n.west : n.east;
  wall = ey > 0 ? n.south_wall : ey < 0 ? n.north_wall : false;
  return ey > 0 ? column + n.below : ey < 0 ? column + n.above : column;
}

// Where plane k starts: `plane` is the cells of the grid, as a 64-bit number.
template <int k, class T>
__host__ __device__ inline T* plane_start(T* a, std::size_t plane) {
  return a + k * plane;
}

// The conversions of the one buffer's values, for a type `Stored` with
//   using Bits = ...;  static Bits from_distribution(float f, int k);  static float distribution(Bits b, int k);
// (steps 11 and 12: float as it is, or fp16 of f - w_k).

// A loaded state waits for a pulling step: each value in its own cell's reversed slot.
template <class Stored, int kBlock>
__global__ void to_aa_layout(const float* __restrict__ canonical, typename Stored::Bits* __restrict__ a, Channel c) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const unsigned here = static_cast<unsigned>(y) * c.nx + x;
  const std::size_t plane = static_cast<std::size_t>(c.cells());
#pragma unroll
  for (int k = 0; k < kDirections; ++k)
    a[opposite(k) * plane + here] = Stored::from_distribution(canonical[static_cast<std::size_t>(here) * kDirections + k], k);
}

// `after_pulling`: the last step was a pulling step, so f*_k(x) is in its downwind neighbour's slot k.
template <class Stored, int k = 0>
__device__ inline void gather_canonical(const typename Stored::Bits* a, std::size_t plane, const AaNeighbourhood& n,
                                        bool after_pulling, float* canonical) {
  if constexpr (k < kDirections) {
    bool wall;
    const unsigned to = aa_upwind<opposite(k)>(n, wall);
    canonical[k] = Stored::distribution(
        after_pulling && !wall ? plane_start<k>(a, plane)[to] : plane_start<opposite(k)>(a, plane)[n.here], k);
    gather_canonical<Stored, k + 1>(a, plane, n, after_pulling, canonical);
  }
}

template <class Stored, int kBlock>
__global__ void from_aa_layout(const typename Stored::Bits* __restrict__ a, float* __restrict__ canonical, bool after_pulling,
                               Channel c) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const AaNeighbourhood n = aa_neighbourhood(x, y, c);
  gather_canonical<Stored>(a, static_cast<std::size_t>(c.cells()), n, after_pulling,
                           canonical + static_cast<std::size_t>(n.here) * kDirections);
}

// The fluid at rest (f_k = w_k), written straight into the one buffer: no canonical state beside
// it, so a grid that fills the device's memory can start (the benchmark's --capacity).
template <class Stored, int kBlock>
__global__ void aa_at_rest(typename Stored::Bits* a, Channel c) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const unsigned here = static_cast<unsigned>(y) * c.nx + x;
  const std::size_t plane = static_cast<std::size_t>(c.cells());
#pragma unroll
  for (int k = 0; k < kDirections; ++k) a[k * plane + here] = Stored::from_distribution(weight(k), k);
}

}  // namespace ch05
