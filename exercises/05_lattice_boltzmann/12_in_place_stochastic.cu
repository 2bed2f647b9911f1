// Generated from solutions/05_lattice_boltzmann/12_in_place_stochastic.cu by exercises/generate.py (fingerprint e6c1ba544f22): edit the TODOs.
// Step 12 — the in-place (AA) pattern storing fp16 with stochastic rounding: one buffer of 18
// bytes a cell, FluidX3D's headline combination.
//
// Step 11's two kinds of time step (in_place.hpp: its neighbourhood, plane starts and layout
// conversions) with step 10's storage: each value is stored as s = f - w in fp16, rounded to
// either neighbouring fp16 number by a draw from the cell's hash and the time step
// (half_bits.hpp), and the rest direction takes the mass the eight stored values leave. The
// pulling step reads direction k from the upwind neighbour's slot opposite(k) and writes its
// collided value, rounded, into the downwind neighbour's slot k; the local step reads and writes
// the cell's own slots. Every value is rounded by the step that stores it, as in step 10, so the
// physics is step 10's (its accuracy at every width: bench_lbm --accuracy).
// Bytes per cell and time step: 36 (nine 2-byte values read and written), as steps 06-10; memory:
// one buffer of 18 bytes a cell, half of step 10's two, a quarter of the float32 two-buffer
// steps'. A grid of 65536 x 65535 cells (4.3 billion) holds 77 GB of state: on the H200 it fits
// with its moments (12 bytes a cell: 129 GB); step 10's two buffers (155 GB) do not.
// Predicted: bandwidth alone would give the 2-byte stream copy's rate, 104,390 MLUPS at 4096^2
// (results/h200/steps-10-11.txt); but step 10, with the same draws and roundings, is issue-bound
// at 62,261 MLUPS there (0.60 of that copy), and this step adds the AA pattern's wall selects on
// the writes of the pulling step (about 9 instructions a cell over step 10's ~345). So predicted
// ~60,000 MLUPS at 8192^2 (0.97x step 10), and the same rate at a size only its one buffer fits.
// Measured: see the README (on the H200 in a run of its own, not yet in the recording).
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 5 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include <cstddef>
#include <cstdint>

#include "course/device_buffer.hpp"
#include "half_bits.hpp"
#include "in_place.hpp"
#include "steps.hpp"

namespace ch05 {
namespace {

using course::DeviceBuffer;

constexpr int kBlock = 128;  // cells of a row

// fp16 of f - w_k (in_place.hpp's conversions; loading rounds to nearest: it is not a time step).
struct ShiftedFp16 {
  using Bits = std::uint16_t;
  __host__ __device__ static Bits from_distribution(float f, int k) { return fp16_nearest(f - weight(k)); }
  __host__ __device__ static float distribution(Bits bits, int k) { return fp16_value(bits) + weight(k); }
};

// The pulling step's read of direction k and on (shifted values): from the upwind neighbour's
// slot opposite(k), or at a wall from this cell's own slot k.
template <int k = 0>
__device__ inline void pull_facing(const std::uint16_t* a, std::size_t plane, const AaNeighbourhood& n, float (&s)[kDirections]) {
  if constexpr (k < kDirections) {
    // TODO: as step 11's pull_facing, each value decoded from fp16 (fp16_value)
    (void)a; (void)plane; (void)n; s[k] = 0.0f;
    pull_facing<k + 1>(a, plane, n, s);
  }
}

// What the collision needs from the whole grid, worked out once on the host.
struct GridCollision {
  float keep;                // 1 - omega
  float relax[kDirections];  // omega w_k
  float force[kDirections];  // 3 w_k e_kx g
};

// Where each kind of step puts direction k's collided value (its bits): Push, the pulling step,
// into the downwind neighbour's slot k, or at a wall into this cell's own slot opposite(k);
// StoreLocal, the local step, into this cell's own slot opposite(k).
template <int k>
struct Push {
  __device__ static void put(std::uint16_t* a, std::size_t plane, const AaNeighbourhood& n, std::uint16_t bits) {
    // TODO: as step 11's push_facing, for direction k
    (void)a; (void)plane; (void)n; (void)bits;
  }
};
template <int k>
struct StoreLocal {
  __device__ static void put(std::uint16_t* a, std::size_t plane, const AaNeighbourhood& n, std::uint16_t bits) {
    plane_start<opposite(k)>(a, plane)[n.here] = bits;
  }
};

// Collides the shifted values `s`, rounds each result stochastically (the rest direction last,
// taking the mass the others' stored values leave) and hands direction k's bits to `put<k>`;
// writes the moments when asked.
template <template <int> class Put, int k = 1>
__device__ inline void put_collided(std::uint16_t* a, std::size_t plane, const AaNeighbourhood& n, const float (&s)[kDirections],
                                    float ux, float uy, float a0, float b, float cc, const GridCollision& g,
                                    std::uint32_t& random, float& kept_sum) {
  if constexpr (k < kDirections) {
    const float eu = velocity_x(k) * ux + velocity_y(k) * uy;
    const float collided = fmaf(g.relax[k], fmaf(fmaf(cc, eu, b), eu, a0), fmaf(g.keep, s[k], g.force[k]));
    float kept;
    Put<k>::put(a, plane, n, round_stochastically<Fp16Bits>(collided, next_uniform(random), kept));
    kept_sum += kept;
    put_collided<Put, k + 1>(a, plane, n, s, ux, uy, a0, b, cc, g, random, kept_sum);
  }
}

// One time step of one cell, after its nine shifted values are read: step 10's collision and
// rounding, the values put by `Put` (Push or StoreLocal).
template <template <int> class Put>
__device__ inline void collide_and_put(std::uint16_t* a, std::size_t plane, const AaNeighbourhood& n, const float (&s)[kDirections],
                                       Fields moments, bool with_moments, const GridCollision& g, std::uint32_t time) {
  const float sum = s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7] + s[8];
  const float rho = 1.0f + sum, inverse = 1.0f / rho;
  const float ux = (s[1] - s[3] + s[5] - s[6] - s[7] + s[8]) * inverse;
  const float uy = (s[2] - s[4] + s[5] + s[6] - s[7] - s[8]) * inverse;
  const float a0 = rho * (1.0f - 1.5f * (ux * ux + uy * uy)) - 1.0f, b = 3.0f * rho, cc = 4.5f * rho;
  std::uint32_t random = cell_hash(n.here, time);
  float kept_sum = 0.0f, kept;
  put_collided<Put>(a, plane, n, s, ux, uy, a0, b, cc, g, random, kept_sum);
  // The rest direction (its own slot in either kind of step): the mass the eight stored values leave.
  plane_start<0>(a, plane)[n.here] = round_stochastically<Fp16Bits>(sum - kept_sum, next_uniform(random), kept);
  if (with_moments) {
    moments.rho[n.here] = rho;
    moments.ux[n.here] = ux;
    moments.uy[n.here] = uy;
  }
}

// The pulling step. Not __restrict__: `a` is read and written, each slot by one thread.
__global__ void stochastic_pulling_kernel(std::uint16_t* a, Fields moments, bool with_moments, Channel c, GridCollision g,
                                          std::uint32_t time) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const AaNeighbourhood n = aa_neighbourhood(x, y, c);
  const std::size_t plane = static_cast<std::size_t>(c.cells());
  float s[kDirections];
  pull_facing(a, plane, n, s);
  collide_and_put<Push>(a, plane, n, s, moments, with_moments, g, time);
}

// The local step: the cell's own slots, each read and its collided value written into the
// opposite slot.
__global__ void stochastic_local_kernel(std::uint16_t* a, Fields moments, bool with_moments, Channel c, GridCollision g,
                                        std::uint32_t time) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const AaNeighbourhood n = aa_neighbourhood(x, y, c);
  const std::size_t plane = static_cast<std::size_t>(c.cells());
  float s[kDirections];
#pragma unroll
  for (int k = 0; k < kDirections; ++k) s[k] = fp16_value(a[k * plane + n.here]);
  collide_and_put<StoreLocal>(a, plane, n, s, moments, with_moments, g, time);
}

class InPlaceStochasticLattice final : public Lattice {
 public:
  explicit InPlaceStochasticLattice(const Channel& channel)
      : c_(channel), grid_(course::blocks_for(channel.nx, kBlock), channel.ny), a_(channel.cells() * kDirections) {
    const float omega = 1.0f / channel.tau;
    g_.keep = 1.0f - omega;
    for (int k = 0; k < kDirections; ++k) {
      g_.relax[k] = omega * weight(k);
      g_.force[k] = 3.0f * weight(k) * velocity_x(k) * channel.force;
    }
  }

  // The time steps are counted from the load: the same state loaded draws the same numbers.
  void load(const float* f) override {
    course::launch(to_aa_layout<ShiftedFp16, kBlock>, {grid_, kBlock}, f, a_.data(), c_);
    next_is_pulling_ = true;
    time_ = 0;
  }
  void load_at_rest(const Channel&) override {
    course::launch(aa_at_rest<ShiftedFp16, kBlock>, {grid_, kBlock}, a_.data(), c_);
    next_is_pulling_ = true;
    time_ = 0;
  }
  void store(float* f) override {
    course::launch(from_aa_layout<ShiftedFp16, kBlock>, {grid_, kBlock}, a_.data(), f, !next_is_pulling_, c_);
  }

  void advance(int steps, const Fields* fields) override {
    for (int step = 0; step < steps; ++step) {
      const bool with_moments = fields && step == steps - 1;
      const Fields moments = with_moments ? *fields : Fields{};
      course::launch(next_is_pulling_ ? stochastic_pulling_kernel : stochastic_local_kernel, {grid_, kBlock}, a_.data(), moments,
                     with_moments, c_, g_, time_++);
      next_is_pulling_ = !next_is_pulling_;
    }
  }

 private:
  Channel c_;
  dim3 grid_;
  DeviceBuffer<std::uint16_t> a_;
  GridCollision g_;
  bool next_is_pulling_ = true;
  std::uint32_t time_ = 0;
};

}  // namespace

std::unique_ptr<Lattice> make_in_place_stochastic_fp16(const Channel& channel) {
  return std::make_unique<InPlaceStochasticLattice>(channel);
}

}  // namespace ch05
