// Generated from solutions/05_lattice_boltzmann/11_lean_in_place.cu by exercises/generate.py (fingerprint c9be49f1c5ba): edit the TODOs.
// Step 11 — the in-place (AA) pattern with step 07's lean addressing.
//
// Step 05 brought the AA pattern's one buffer close to the two-buffer step 04, but it was
// written as step 04 was: 64-bit indices k * cells + y * nx + x and the periodic wrap by `%`,
// twice a direction in the pulling step (once to read, once to write). Its kernels were never
// given step 07's cure. This step is step 05's two kinds of time step with step 07's
// neighbourhood: the west and east columns by a compare, the rows above and below as offsets,
// a 32-bit offset within a plane added to the plane's 64-bit start (in_place.hpp, shared with
// step 12: the one buffer of a grid that fills the device holds more than 2^32 values). In the pulling step direction k is read from the
// upwind neighbour's slot opposite(k) and written to the downwind neighbour's slot k; the
// downwind neighbour along e_k is the upwind one of opposite(k), so both come from the same
// neighbourhood. Float32 (the physics of lbm.hpp's collide()).
// Bytes per cell and time step: 72, as step 05 and step 07's float32; memory: one buffer.
// Predicted: step 07's float32 speed (near the copy ceiling at 8192^2) for both kinds of step, since both
// move 72 bytes a cell with step 07's few instructions: about 1.08x step 05, at half the memory
// of step 07.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 5 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include <cstddef>

#include "course/device_buffer.hpp"
#include "in_place.hpp"
#include "steps.hpp"

namespace ch05 {
namespace {

using course::DeviceBuffer;

constexpr int kBlock = 128;  // cells of a row

// The float32 state as it is (in_place.hpp's conversions).
struct Float32 {
  using Bits = float;
  __host__ __device__ static float from_distribution(float f, int) { return f; }
  __host__ __device__ static float distribution(float f, int) { return f; }
};

// The pulling step's read of direction k and on: f_k from the upwind neighbour's slot
// opposite(k), or at a wall from this cell's own slot k.
template <int k = 0>
__device__ inline void pull_facing(const float* a, std::size_t plane, const AaNeighbourhood& n, float (&f)[kDirections]) {
  if constexpr (k < kDirections) {
    // TODO: part 1 of 2, the pulling read: the upwind neighbour's offset by aa_upwind<k> (it also says whether a wall is in the way); f[k] from that neighbour's slot in plane opposite(k), where the last local step left it reversed, or at a wall from this cell's own slot in plane k (plane_start<k>). Invariant: plane starts are 64-bit (plane_start), offsets within a plane 32-bit. Mistake to avoid: plane k at the neighbour (that is where this step writes, not where the value waits), or plane_start<opposite(k)> at a wall
    (void)a; (void)plane; (void)n; f[k] = 0.0f;
    pull_facing<k + 1>(a, plane, n, f);
  }
}

// The pulling step's write of direction k and on: f*_k into the downwind neighbour's slot k
// (the downwind neighbour along e_k is the upwind one of opposite(k)), or at a wall into this
// cell's own slot opposite(k).
template <int k = 0>
__device__ inline void push_facing(float* a, std::size_t plane, const AaNeighbourhood& n, const float (&collided)[kDirections]) {
  if constexpr (k < kDirections) {
    // TODO: part 2 of 2, the pulling write: the downwind neighbour along e_k is the upwind one of opposite(k), aa_upwind<opposite(k)>; collided[k] into its slot in plane k, or at a wall into this cell's own slot in plane opposite(k), where the next local step looks for the bounced value. Invariant: the nine slots this cell writes are the nine it read (the same ones, other planes), so one buffer is safe. Mistake to avoid: aa_upwind<k> (the write then lands upwind, where the read came from), or plane k at a wall
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
  const AaNeighbourhood n = aa_neighbourhood(x, y, c);
  const std::size_t plane = static_cast<std::size_t>(c.cells());
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
  const unsigned here = static_cast<unsigned>(y) * c.nx + x;
  const std::size_t plane = static_cast<std::size_t>(c.cells());
  float f[kDirections];
#pragma unroll
  for (int k = 0; k < kDirections; ++k) f[k] = a[k * plane + here];
  const Moments m = moments_of(f);
#pragma unroll
  for (int k = 0; k < kDirections; ++k) a[opposite(k) * plane + here] = collide(k, f[k], m, omega, c.force);
  if (with_moments) write_moments(moments, here, m);
}

class LeanInPlaceLattice final : public Lattice {
 public:
  explicit LeanInPlaceLattice(const Channel& channel)
      : c_(channel), grid_(course::blocks_for(channel.nx, kBlock), channel.ny), a_(channel.cells() * kDirections),
        omega_(1.0f / channel.tau) {}

  void load(const float* f) override {
    course::launch(to_aa_layout<Float32, kBlock>, {grid_, kBlock}, f, a_.data(), c_);
    next_is_pulling_ = true;
  }
  void load_at_rest(const Channel&) override {
    course::launch(aa_at_rest<Float32, kBlock>, {grid_, kBlock}, a_.data(), c_);
    next_is_pulling_ = true;
  }
  void store(float* f) override {
    course::launch(from_aa_layout<Float32, kBlock>, {grid_, kBlock}, a_.data(), f, !next_is_pulling_, c_);
  }

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
