// Generated from solutions/05_lattice_boltzmann/11_lean_in_place.cu by exercises/generate.py (fingerprint ee22056ebf72): edit the TODOs.
// Step 11 — the in-place (AA) pattern with step 07's lean addressing.
//
// Step 05 showed the AA pattern's one buffer at 0.93x the two-buffer step 04 (the H200, 8192^2), but it was
// written as step 04 was: 64-bit indices k * cells + y * nx + x and the periodic wrap by `%`,
// twice a direction in the pulling step (once to read, once to write). Its kernels were never
// given step 07's cure. This step is step 05's two kinds of time step with step 07's
// neighbourhood: the west and east columns by a compare, the rows above and below as offsets,
// everything a 32-bit offset within a plane. In the pulling step direction k is read from the
// upwind neighbour's slot opposite(k) and written to the downwind neighbour's slot k; the
// downwind neighbour along e_k is the upwind one of opposite(k), so both come from the same
// neighbourhood. Float32 (the physics of lbm.hpp's collide()).
// Bytes per cell and time step: 72, as step 05 and step 07's float32; memory: one buffer.
// Predicted: step 07's float32 speed (0.954 of copy at 8192^2) for both kinds of step, since both
// move 72 bytes a cell with step 07's few instructions: about 1.08x step 05, at half the memory
// of step 07.
// Measured: see the README (on the H200 in a run of its own, not yet in the recording).
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 5 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include <stdexcept>

#include "course/device_buffer.hpp"
#include "steps.hpp"

namespace ch05 {
namespace {

using course::DeviceBuffer;

constexpr int kBlock = 128;  // cells of a row

// Step 07's neighbourhood of a cell.
struct Neighbourhood {
  unsigned here, west, east;  // offsets in a plane of this cell and of its row's neighbours
  int below, above;           // added to step a row down (y - 1) or up: -nx and nx, or across the grid where rows wrap
  bool south_wall, north_wall;
};

__device__ inline Neighbourhood neighbourhood_of(int x, int y, const Channel& c) {
  const unsigned row_start = static_cast<unsigned>(y) * c.nx;
  const int wrap = (c.ny - 1) * c.nx;  // from the first row to the last
  return {row_start + x, row_start + (x == 0 ? c.nx - 1 : x - 1), row_start + (x == c.nx - 1 ? 0 : x + 1),
          y == 0 && !c.walls ? wrap : -c.nx, y == c.ny - 1 && !c.walls ? -wrap : c.nx, c.walls && y == 0, c.walls && y == c.ny - 1};
}

// The offset of cell x - e_k, the upwind neighbour of direction k; `wall` says that it is behind
// a wall.
template <int k>
__device__ inline unsigned upwind(const Neighbourhood& n, bool& wall) {
  constexpr int ex = velocity_x(k), ey = velocity_y(k);
  const unsigned column = ex == 0 ? n.here : ex > 0 ? n.west : n.east;
  wall = ey > 0 ? n.south_wall : ey < 0 ? n.north_wall : false;
  return ey > 0 ? column + n.below : ey < 0 ? column + n.above : column;
}

// The pulling step's read of direction k and on: f_k from the upwind neighbour's slot
// opposite(k), or at a wall from this cell's own slot k.
template <int k = 0>
__device__ inline void pull_facing(const float* a, unsigned plane, const Neighbourhood& n, float (&f)[kDirections]) {
  if constexpr (k < kDirections) {
    // TODO: the upwind neighbour by upwind<k>; f[k] from its slot opposite(k), or at a wall from this cell's slot k
    (void)a; (void)plane; (void)n; f[k] = 0.0f;
    pull_facing<k + 1>(a, plane, n, f);
  }
}

// The pulling step's write of direction k and on: f*_k into the downwind neighbour's slot k
// (the downwind neighbour along e_k is the upwind one of opposite(k)), or at a wall into this
// cell's own slot opposite(k).
template <int k = 0>
__device__ inline void push_facing(float* a, unsigned plane, const Neighbourhood& n, const float (&collided)[kDirections]) {
  if constexpr (k < kDirections) {
    // TODO: the downwind neighbour by upwind<opposite(k)>; collided[k] into its slot k, or at a wall into this cell's slot opposite(k)
    (void)a; (void)plane; (void)n; (void)collided;
    push_facing<k + 1>(a, plane, n, collided);
  }
}

__device__ inline void write_moments(const Fields& moments, unsigned at, const Moments& m) {
  moments.rho[at] = m.rho;
  moments.ux[at] = m.ux;
  moments.uy[at] = m.uy;
}

// The pulling step. Not __restrict__: `a` is read and written, each slot by one thread.
__global__ void lean_pulling_kernel(float* a, Fields moments, bool with_moments, Channel c, float omega) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const Neighbourhood n = neighbourhood_of(x, y, c);
  const unsigned plane = static_cast<unsigned>(c.cells());
  float f[kDirections], collided[kDirections];
  pull_facing(a, plane, n, f);
  const Moments m = moments_of(f);
#pragma unroll
  for (int k = 0; k < kDirections; ++k) collided[k] = collide(k, f[k], m, omega, c.force);
  push_facing(a, plane, n, collided);
  if (with_moments) write_moments(moments, n.here, m);
}

// The local step: each slot of the cell read, collided, and written into the opposite slot.
__global__ void lean_local_kernel(float* a, Fields moments, bool with_moments, Channel c, float omega) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const unsigned here = static_cast<unsigned>(y) * c.nx + x, plane = static_cast<unsigned>(c.cells());
  float f[kDirections];
#pragma unroll
  for (int k = 0; k < kDirections; ++k) f[k] = a[k * plane + here];
  const Moments m = moments_of(f);
#pragma unroll
  for (int k = 0; k < kDirections; ++k) a[opposite(k) * plane + here] = collide(k, f[k], m, omega, c.force);
  if (with_moments) write_moments(moments, here, m);
}

// A loaded state waits for a pulling step: each value in its own cell's reversed slot.
__global__ void to_lean_aa_layout(const float* __restrict__ canonical, float* __restrict__ a, Channel c) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const unsigned here = static_cast<unsigned>(y) * c.nx + x, plane = static_cast<unsigned>(c.cells());
#pragma unroll
  for (int k = 0; k < kDirections; ++k) a[opposite(k) * plane + here] = canonical[static_cast<long long>(here) * kDirections + k];
}
// `after_pulling`: the last step was a pulling step, so f*_k(x) is in its downwind neighbour's slot k.
template <int k = 0>
__device__ inline void gather_canonical(const float* a, unsigned plane, const Neighbourhood& n, bool after_pulling,
                                        float* canonical) {
  if constexpr (k < kDirections) {
    bool wall;
    const unsigned to = upwind<opposite(k)>(n, wall);
    canonical[k] = after_pulling && !wall ? a[k * plane + to] : a[opposite(k) * plane + n.here];
    gather_canonical<k + 1>(a, plane, n, after_pulling, canonical);
  }
}
__global__ void from_lean_aa_layout(const float* __restrict__ a, float* __restrict__ canonical, bool after_pulling, Channel c) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const Neighbourhood n = neighbourhood_of(x, y, c);
  gather_canonical(a, static_cast<unsigned>(c.cells()), n, after_pulling, canonical + static_cast<long long>(n.here) * kDirections);
}

class LeanInPlaceLattice final : public Lattice {
 public:
  explicit LeanInPlaceLattice(const Channel& channel)
      : c_(channel), grid_(course::blocks_for(channel.nx, kBlock), channel.ny), a_(channel.cells() * kDirections),
        omega_(1.0f / channel.tau) {
    if (channel.cells() * kDirections > (1LL << 32) - 1)
      throw std::invalid_argument("step 11 offsets the state's values in 32 bits: at most 477,218,588 cells");
  }

  void load(const float* f) override {
    course::launch(to_lean_aa_layout, {grid_, kBlock}, f, a_.data(), c_);
    next_is_pulling_ = true;
  }
  void store(float* f) override { course::launch(from_lean_aa_layout, {grid_, kBlock}, a_.data(), f, !next_is_pulling_, c_); }

  void advance(int steps, const Fields* fields) override {
    for (int step = 0; step < steps; ++step) {
      const bool with_moments = fields && step == steps - 1;
      const Fields moments = with_moments ? *fields : Fields{};
      if (next_is_pulling_)
        course::launch(lean_pulling_kernel, {grid_, kBlock}, a_.data(), moments, with_moments, c_, omega_);
      else
        course::launch(lean_local_kernel, {grid_, kBlock}, a_.data(), moments, with_moments, c_, omega_);
      next_is_pulling_ = !next_is_pulling_;
    }
  }

 private:
  Channel c_;
  dim3 grid_;
  DeviceBuffer<float> a_;
  float omega_;
  bool next_is_pulling_ = true;
};

}  // namespace

std::unique_ptr<Lattice> make_lean_in_place(const Channel& channel) { return std::make_unique<LeanInPlaceLattice>(channel); }

}  // namespace ch05
