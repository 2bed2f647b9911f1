// Chapter 6's application: the 3D acoustic wave equation u_tt = c^2 (u_xx + u_yy + u_zz) on a
// periodic grid, chapter 3's radius-4 Laplacian in space and the leapfrog in time:
//   u(n+1) = 2 u(n) - u(n-1) + K L u(n),   K = (c dt / h)^2 (the Courant number squared).
// The grid is split into z slabs, one per rank; a rank keeps R = 4 halo planes on each side of
// its slab and R halo columns and rows in x and y, filled from the periodic images.
//
// Here, once: the problem, the kernels every step launches (wave.cu), where a slab's halos and
// boundary planes lie, the exact standing mode, and the tolerance the tests and the benchmark
// check against. The ranks, their threads and their devices are in team.hpp.
#pragma once

#include <cmath>
#include <cstddef>
#include <numbers>
#include <vector>

#include "course/compare.hpp"
#include "course/grid3d.hpp"
#include "course/stencil.hpp"

namespace ch06 {

using course::Grid;

constexpr int kRadius = 4;
// Rows aligned to 32 floats, so that the interior of every row starts on a 128-byte line: the
// kernel's tile centres are 128 floats from there, whole lines. A halo message is a whole number
// of planes, padding included, so the padding is sent every step: at 512^3 a row is 576 floats
// for 512 (the 32 before the interior and the rest to a multiple of 32), the message 11% more
// than the interior's rows and halos alone, 5% at 1024^3 (NOTES.md).
constexpr int kAlign = 32;
// K = (c dt / h)^2. The leapfrog is stable while K * max|eigenvalue| <= 4; the radius-4 Laplacian's
// largest magnitude is 3 x 6.50 in 3D, so K <= 0.205. 0.1 keeps every mode's frequency real.
constexpr double kCourant2 = 0.1;

struct Problem {
  int nx, ny, nz;  // the global interior
  double courant2 = kCourant2;
};

// Planes [begin, end) of a slab, in its own z.
struct Planes {
  int begin, end;
  bool empty() const { return end <= begin; }
};

// The layout of a slab of `thickness` planes of the problem.
inline Grid slab_grid(const Problem& problem, int thickness) {
  return course::make_grid(problem.nx, problem.ny, thickness, kRadius, kRadius, kRadius, kAlign);
}

// next = 2 u - next + K L(u) on planes [planes.begin, planes.end) of the slab, in place in `next`
// (which holds u(n-1) there before). Reads u's halos; writes nothing outside the planes'
// interior points. Launched on `stream`, not synchronised (wave.cu: the tensor-copy ring where
// the GPU has the tensor memory accelerator, else the portable kernel).
void leapfrog(const float* u, float* next, const Grid& grid, double courant2, Planes planes, gpuStream_t stream);
// The same on two ranges of planes in one launch (a slab's two boundaries, step 04).
void leapfrog(const float* u, float* next, const Grid& grid, double courant2, Planes first, Planes second, gpuStream_t stream);
// The portable kernel alone, which leapfrog() runs where there is no tensor memory accelerator
// (HIP, NVIDIA before sm_90): the tests check it on the CPU backend, which runs both.
void leapfrog_portable(const float* u, float* next, const Grid& grid, double courant2, Planes planes, gpuStream_t stream);

// u's halo columns and rows in x and y, on planes `planes` (or on two ranges in one launch),
// from the periodic images. Launched on `stream`, not synchronised (wave.cu).
void wrap_xy(float* u, const Grid& grid, Planes planes, gpuStream_t stream);
void wrap_xy(float* u, const Grid& grid, Planes first, Planes second, gpuStream_t stream);

// Where a slab's array holds R whole planes, padding included: contiguous, so each is one message.
inline std::size_t halo_floats(const Grid& g) { return std::size_t(kRadius) * g.plane; }
inline std::size_t plane_offset(const Grid& g, int z) { return std::size_t(z + g.hz) * g.plane; }
inline float* below_halo(float* u, const Grid& g) { return u + plane_offset(g, -kRadius); }   // z = -R .. -1
inline float* bottom_planes(float* u, const Grid& g) { return u + plane_offset(g, 0); }      // z = 0 .. R-1
inline float* top_planes(float* u, const Grid& g) { return u + plane_offset(g, g.dz - kRadius); }
inline float* above_halo(float* u, const Grid& g) { return u + plane_offset(g, g.dz); }     // z = dz .. dz+R-1

// A slab's planes as step 04 splits them: the R planes at each end, which its neighbours need,
// and the interior between them, which only it reads. A slab of R to 2R planes has no interior.
inline Planes low_boundary(const Grid&) { return {0, kRadius}; }
inline Planes high_boundary(const Grid& g) { return {g.dz < 2 * kRadius ? kRadius : g.dz - kRadius, g.dz}; }
inline Planes interior_planes(const Grid& g) { return {kRadius, g.dz - kRadius}; }
inline Planes all_planes(const Grid& g) { return {0, g.dz}; }

// A standing mode sin(kx x) sin(ky y) sin(kz z), k = 2 pi m / n on the periodic grid: an
// eigenvector of the discrete Laplacian, with eigenvalue the sum over the axes of
//   w(0) + 2 sum_{i=1..R} w(i) cos(k i),
// so the leapfrog multiplies it by cos(n theta) after n steps, cos(theta) = 1 + K eigenvalue / 2,
// exactly, whatever the decomposition: the tests' exact solution.
struct StandingMode {
  int mx, my, mz;
  __host__ __device__ static double axis(int m, int n, int x) {
    const long long turns = (2LL * m * x) % (2LL * n);  // sin(2 pi m x / n), its argument reduced exactly
    return sin(std::numbers::pi * double(turns) / n);
  }
  __host__ __device__ double value(const Problem& p, int x, int y, int z) const {
    return axis(mx, p.nx, x) * axis(my, p.ny, y) * axis(mz, p.nz, z);
  }
  double eigenvalue(const Problem& p) const;
  double theta(const Problem& p) const;  // radians per time step
};

// Sets a slab's interior to cos(phase) times the mode (global z from z0). Launched, not synchronised.
void set_standing_mode(float* u, const Grid& grid, const Problem& problem, int z0, StandingMode mode, double phase,
                       gpuStream_t stream);

// After `steps` steps, the field is within this of the float64 result. Each step rounds a
// sum of 25 products of values near the amplitude, and the leapfrog carries an error in
// u(n) forward with a growth of at most the number of steps (for the slowest modes), so the
// bound is quadratic in the steps; the constant is 5x the largest error seen on random fields.
course::Tolerance tolerance(int steps, double amplitude);

}  // namespace ch06

namespace ch06 {

// The float64 reference (reference.cpp), on dense global fields: x fastest, then y, then z.
// `steps` leapfrog steps from (u, previous) = (u(n), u(n-1)) to (u(n+steps), u(n+steps-1)).
void reference_steps(const Problem& problem, std::vector<double>& u, std::vector<double>& previous, int steps);
// The leapfrog's conserved energy between u(n-1) and u(n): |u(n) - u(n-1)|^2 - K <u(n), L u(n-1)>.
double energy(const Problem& problem, const std::vector<double>& u, const std::vector<double>& previous);
// A Ricker pulse (a "Mexican hat", the second derivative of a Gaussian) of width sigma points at the grid's centre.
std::vector<double> ricker_pulse(const Problem& problem, double sigma);

}  // namespace ch06
