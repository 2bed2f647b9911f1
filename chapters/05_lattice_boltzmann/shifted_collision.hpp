// Step 08's collision of the shifted values s_k = f_k - w_k, as steps 10 and 12 use it: the
// moments of a cell, and each direction's collided value regrouped into multiply-adds with what
// the whole grid shares worked out once on the host.
#pragma once

#include "course/gpu.hpp"
#include "lbm.hpp"

namespace ch05 {

// What the collision needs from the whole grid.
struct GridCollision {
  float keep;                // 1 - omega
  float relax[kDirections];  // omega w_k
  float force[kDirections];  // 3 w_k e_kx g
};

inline GridCollision grid_collision(const Channel& channel) {
  const float omega = 1.0f / channel.tau;
  GridCollision g{};
  g.keep = 1.0f - omega;
  for (int k = 0; k < kDirections; ++k) {
    g.relax[k] = omega * weight(k);
    g.force[k] = 3.0f * weight(k) * velocity_x(k) * channel.force;
  }
  return g;
}

// A cell's moments from its shifted values, and the terms of its equilibrium that do not depend
// on the direction: feq_k - w_k = w_k (a + (b + c e.u) e.u).
struct ShiftedCell {
  float sum, rho, ux, uy;  // sum: of the shifted values, rho - 1
  float a, b, c;
};

// 1/rho by the hardware's approximate reciprocal (__fdividef, within 2 ulp): rho is near 1. As
// compiled for sm_90 the exactly rounded division is 10 instructions on its fast path (a range
// check, a branch, the reciprocal, a Newton step), __fdividef 6 (a branchless rescale, the reciprocal).
__device__ inline ShiftedCell shifted_cell(const float (&s)[kDirections]) {
  const float sum = s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7] + s[8];
  const float rho = 1.0f + sum, inverse = __fdividef(1.0f, rho);
  const float ux = (s[1] - s[3] + s[5] - s[6] - s[7] + s[8]) * inverse;
  const float uy = (s[2] - s[4] + s[5] + s[6] - s[7] - s[8]) * inverse;
  return {sum, rho, ux, uy, rho * (1.0f - 1.5f * (ux * ux + uy * uy)) - 1.0f, 3.0f * rho, 4.5f * rho};
}

// Direction k's collided shifted value: keep s_k + relax_k (feq_k - w_k)/w_k + force_k. e.u
// leaves out a zero component: the compiler keeps 0 * u (it is NaN for an infinite u), one
// multiply-add a value in four of the eight directions.
__device__ inline float collide_shifted(int k, float s_k, const ShiftedCell& cell, const GridCollision& g) {
  const int ex = velocity_x(k), ey = velocity_y(k);
  const float eu = ey == 0 ? ex * cell.ux : ex == 0 ? ey * cell.uy : ex * cell.ux + ey * cell.uy;
  return fmaf(g.relax[k], fmaf(fmaf(cell.c, eu, cell.b), eu, cell.a), fmaf(g.keep, s_k, g.force[k]));
}

}  // namespace ch05
