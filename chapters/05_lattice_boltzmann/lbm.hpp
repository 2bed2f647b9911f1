// Chapter 5: the D2Q9 lattice Boltzmann method, BGK collision, on a channel (Poiseuille flow).
//
// The channel: nx cells along the flow (x, periodic) by ny across it (y), every cell fluid. The
// walls lie half a cell outside the first and last rows (y = -1/2 and y = ny - 1/2): halfway
// bounce-back, so a distribution that would leave through a wall comes back to its own cell in
// the opposite direction. Without walls (Channel::walls false) y is periodic too. A body force g along x drives the flow; its steady state is the
// parabola of steady_velocity() below.
//
// The state between two time steps is the post-collision distributions f*_k(x, y), k = 0..8.
// One time step:
//   stream   f_k(x, y) = f*_k(x - e_kx mod nx, y - e_ky)         (pull; at a wall, f*_opp(k)(x, y))
//   moments  rho = sum_k f_k,  u = sum_k f_k e_k / rho
//   collide  f*_k = f_k - (f_k - feq_k(rho, u)) / tau + 3 w_k e_kx g
// The paper cuts its loop in another place (collide, copy, stream, calculate); it is the same
// cycle, and every step here holds the same state between steps, so all can be compared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "course/gpu.hpp"
#include "course/random.hpp"

namespace ch05 {

struct Channel {
  int nx, ny;   // cells along the flow (periodic) and across it (between the walls)
  float tau;    // relaxation time, > 1/2: the kinematic viscosity is (tau - 1/2) / 3
  float force;  // the body force g along x, per unit volume
  // false: no walls, the rows wrap around as the columns do (the Taylor-Green vortex's box).
  bool walls = true;
  __host__ __device__ long long cells() const { return static_cast<long long>(nx) * ny; }
};

// The row from which a value moving e_y rows a step arrives at row y: y - e_y, wrapped around
// when the channel has no walls; outside 0 .. ny - 1 when the value comes from behind a wall.
__host__ __device__ inline int upwind_row(const Channel& c, int y, int ey) {
  const int from = y - ey;
  return c.walls ? from : (from + c.ny) % c.ny;
}

// Throws std::invalid_argument, naming what is wrong, for an empty grid or tau <= 1/2 (where
// the viscosity is zero or negative and the scheme blows up), a force that is not finite, or
// more than 65535 cells across (a grid has at most that many blocks along y) or 65536 along (so
// a plane of cells, fewer than 2^32, is offset in 32 bits).
void check_channel(const Channel& channel);

// The D2Q9 velocity set: rest, the four axis directions, the four diagonals.
//   k:    0  1  2  3  4  5  6  7  8
//   e_x:  0  1  0 -1  0  1 -1 -1  1
//   e_y:  0  0  1  0 -1  1  1 -1 -1
inline constexpr int kDirections = 9;
__host__ __device__ constexpr int velocity_x(int k) {
  constexpr int x[kDirections] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
  return x[k];
}
__host__ __device__ constexpr int velocity_y(int k) {
  constexpr int y[kDirections] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
  return y[k];
}
__host__ __device__ constexpr int opposite(int k) { return k == 0 ? 0 : k < 5 ? (k + 1) % 4 + 1 : (k - 3) % 4 + 5; }
__host__ __device__ constexpr float weight(int k) { return k == 0 ? 4.0f / 9 : k < 5 ? 1.0f / 9 : 1.0f / 36; }

// Density and velocity of one cell.
struct Moments {
  float rho, ux, uy;
};

__host__ __device__ inline Moments moments_of(const float (&f)[kDirections]) {
  // Written out: the sums over the directions with e_x (or e_y) = +1 minus those with -1.
  const float rho = f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7] + f[8];
  const float mx = f[1] - f[3] + f[5] - f[6] - f[7] + f[8];
  const float my = f[2] - f[4] + f[5] + f[6] - f[7] - f[8];
  const float inverse = 1.0f / rho;
  return {rho, mx * inverse, my * inverse};
}

// feq_k(rho, u) = w_k rho (1 + 3 e.u + 9/2 (e.u)^2 - 3/2 u.u).
__host__ __device__ inline float equilibrium(int k, const Moments& m) {
  const float eu = velocity_x(k) * m.ux + velocity_y(k) * m.uy;
  const float uu = m.ux * m.ux + m.uy * m.uy;
  return weight(k) * m.rho * (1.0f + 3.0f * eu + 4.5f * eu * eu - 1.5f * uu);
}

// The BGK collision of direction k with the body force (the force term sums to zero over k, so
// mass is conserved).
__host__ __device__ inline float collide(int k, float f, const Moments& m, float omega, float force) {
  return f - omega * (f - equilibrium(k, m)) + 3.0f * weight(k) * velocity_x(k) * force;
}

// The macroscopic fields of one time step: nx x ny floats each, row-major (row y, column x),
// device memory.
struct Fields {
  float* rho;
  float* ux;
  float* uy;
};

// One step's simulation, living on the device in the step's own layout. The canonical layout,
// in which states come in and go out, is f[(y nx + x) 9 + k] (device memory, float).
class Lattice {
 public:
  virtual ~Lattice() = default;
  // Replaces the state by the post-collision distributions `f` (canonical layout).
  virtual void load(const float* f) = 0;
  // Writes the state into `f` (canonical layout).
  virtual void store(float* f) = 0;
  // Replaces the state by the fluid at rest (f_k = w_k) on `channel`, the lattice's own. By
  // default through load(), from a canonical state on the device (36 bytes a cell while it runs);
  // the in-place steps write their one buffer directly, so a grid that only their buffer fits
  // can start.
  virtual void load_at_rest(const Channel& channel);
  // Advances `steps` time steps (launches only). With `fields`, the density and velocity
  // computed in the last of them are written there.
  virtual void advance(int steps, const Fields* fields) = 0;
};

// A step's constructor: the lattice of one channel, allocated and ready for load().
using MakeLattice = std::unique_ptr<Lattice> (*)(const Channel& channel);

// Distributions in the canonical layout, on the host.
using State = std::vector<float>;
// The fluid at rest, rho = 1: f_k = w_k.
State state_at_rest(const Channel& channel);
// A random state near equilibrium: rho in 1 +- 0.05, u in +-0.05 per axis, each f_k off its
// equilibrium by up to 1% of w_k.
State random_state(const Channel& channel, const course::Seed& seed);

// The steady Poiseuille profile for halfway bounce-back walls: ux(y) = g / (2 nu) (y + 1/2)
// (ny - 1/2 - y), with nu = (tau - 1/2) / 3 and rho = 1.
double steady_velocity(const Channel& channel, int y);

// A channel 4 cells long and `ny` across, tau = 0.8 (nu = 0.1), with the force that makes the
// centre velocity 0.05 (g = 8 nu 0.05 / ny^2): the same Mach number at every width.
constexpr Channel poiseuille_channel(int ny) { return {4, ny, 0.8f, 0.05f * 8 * 0.1f / (float(ny) * ny)}; }
// Time steps from rest until the start-up's slowest mode, exp(-nu (pi/ny)^2 t), is 1e-4 of
// itself, below the errors worth measuring (0.01% of the profile): ln(1e4) ny^2 / (nu pi^2),
// 9.3 ny^2 at nu = 0.1 (5,376 at 24 cells, 344,016 at 192, rounded up; beyond a 32-bit int from
// about 15,000 cells, so in 64 bits).
std::int64_t steps_to_steady(const Channel& channel);

// The channel the tests and the figures bring from rest to the steady flow, 24 cells across, and
// the tests' steps: to 1e-3 of the start-up's slowest mode (7.0 ny^2 at nu = 0.1), enough for
// their 1% bound.
inline constexpr Channel kPoiseuille = poiseuille_channel(24);
inline constexpr int kPoiseuilleSteps = 4000;

// The Taylor-Green vortex in a box of n x n cells without walls (periodic both ways), k = 2 pi / n:
//   ux = -U cos(k x) sin(k y) D(t),  uy = U sin(k x) cos(k y) D(t),  D(t) = exp(-2 nu k^2 t),
// an exact solution of the incompressible Navier-Stokes equations in which the advection
// (u.grad)u is balanced by the pressure p = -U^2 (cos 2kx + cos 2ky) D(t)^2 / 4 (rho = 1 + 3p):
// unlike Poiseuille flow it moves across the rows and varies along them, so the equilibrium's
// quadratic terms decide it. Cells sit at integer x and y.
inline constexpr double kTaylorGreenAmplitude = 0.05;  // U, a Mach number of 0.087
Channel taylor_green_box(int n, float tau);
struct Velocity {
  double ux, uy;
};
Velocity taylor_green_velocity(const Channel& box, int x, int y, double time);
// The vortex at time 0 as equilibrium distributions (with its pressure in the density).
State taylor_green_state(const Channel& box);

// Relative L2 distance of a velocity field ux (row-major, every column) from the parabola.
double profile_error(const std::vector<float>& ux, const Channel& channel);

}  // namespace ch05
