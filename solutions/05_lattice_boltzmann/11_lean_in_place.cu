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
// BEGIN FINDINGS
// Measured in runs of their own, not yet in the recordings (NOTES.md).
// Measured (H200, results/h200/in-place-2026-11-24.txt): 51,784 MLUPS at 8192^2, 0.93x step 07
// of the same run (predicted ~1.00x: missed, the gap step 05 had); 51,424 (0.877 of copy) at
// 49152^2, where its one buffer (87 GB) fits and two would not. The profile (4096^2): the local
// step moves its 1.96 states at 3,944 GB/s; the pulling step at 3,397, with 1.14 states written
// through L2 (its writes shifted a cell along x straddle a 32-byte sector more often) and 75% more
// instructions a cell, 290 against 166, at 42% of issue slots: step 05's pulling kernel issued
// 401 in the same 0.35 ms, so the lean addressing saved instructions, not time. H100
// (results/h100-80gb-hbm3/in-place-2026-11-24.txt): 38,432 at 8192^2, 0.97x step 07; 37,899 at
// 40960^2 (60 GB; two buffers, 121 GB, would not fit).
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit a61db01af046, 2026-11-24):
//     11_lean_in_place  256x256    0.0629 ms (20 time steps), 1499 GB/s (0.502 of copy), 20824 MLUP/s
//     11_lean_in_place  1024x1024  0.4928 ms (20 time steps), 3064 GB/s (1.027 of copy), 42557 MLUP/s
//     11_lean_in_place  2048x2048  2.2270 ms (20 time steps), 2712 GB/s (0.909 of copy), 37667 MLUP/s
//     11_lean_in_place  4096x4096  8.8540 ms (20 time steps), 2729 GB/s (0.914 of copy), 37898 MLUP/s
//     11_lean_in_place  8192x8192  35.2601 ms (20 time steps), 2741 GB/s (0.918 of copy), 38065 MLUP/s
//   NVIDIA H200 (commit a61db01af046, 2026-11-24):
//     11_lean_in_place  256x256    0.0745 ms (20 time steps), 1267 GB/s (0.299 of copy), 17591 MLUP/s
//     11_lean_in_place  1024x1024  0.3389 ms (20 time steps), 4455 GB/s (1.052 of copy), 61876 MLUP/s
//     11_lean_in_place  2048x2048  1.6936 ms (20 time steps), 3566 GB/s (0.842 of copy), 49531 MLUP/s
//     11_lean_in_place  4096x4096  6.5236 ms (20 time steps), 3703 GB/s (0.875 of copy), 51435 MLUP/s
//     11_lean_in_place  8192x8192  25.7505 ms (20 time steps), 3753 GB/s (0.886 of copy), 52122 MLUP/s
// END MEASURED
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
    // BEGIN SOLUTION: part 1 of 2, the pulling read: the upwind neighbour's offset by aa_upwind<k> (it also says whether a wall is in the way); f[k] from that neighbour's slot in plane opposite(k), where the last local step left it reversed, or at a wall from this cell's own slot in plane k (plane_start<k>). Invariant: plane starts are 64-bit (plane_start), offsets within a plane 32-bit. Mistake to avoid: plane k at the neighbour (that is where this step writes, not where the value waits), or plane_start<opposite(k)> at a wall
    bool wall;
    const unsigned from = aa_upwind<k>(n, wall);
    f[k] = wall ? plane_start<k>(a, plane)[n.here] : plane_start<opposite(k)>(a, plane)[from];
    // STUB: (void)a; (void)plane; (void)n; f[k] = 0.0f;
    // END SOLUTION
    pull_facing<k + 1>(a, plane, n, f);
  }
}

// The pulling step's write of direction k and on: f*_k into the downwind neighbour's slot k
// (the downwind neighbour along e_k is the upwind one of opposite(k)), or at a wall into this
// cell's own slot opposite(k).
template <int k = 0>
__device__ inline void push_facing(float* a, std::size_t plane, const AaNeighbourhood& n, const float (&collided)[kDirections]) {
  if constexpr (k < kDirections) {
    // BEGIN SOLUTION: part 2 of 2, the pulling write: the downwind neighbour along e_k is the upwind one of opposite(k), aa_upwind<opposite(k)>; collided[k] into its slot in plane k, or at a wall into this cell's own slot in plane opposite(k), where the next local step looks for the bounced value. Invariant: the nine slots this cell writes are the nine it read (the same ones, other planes), so one buffer is safe. Mistake to avoid: aa_upwind<k> (the write then lands upwind, where the read came from), or plane k at a wall
    bool wall;
    const unsigned to = aa_upwind<opposite(k)>(n, wall);
    (wall ? plane_start<opposite(k)>(a, plane)[n.here] : plane_start<k>(a, plane)[to]) = collided[k];
    // STUB: (void)a; (void)plane; (void)n; (void)collided;
    // END SOLUTION
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
