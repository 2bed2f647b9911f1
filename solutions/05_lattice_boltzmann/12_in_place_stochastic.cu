// Step 12 — the in-place (AA) pattern storing fp16 with stochastic rounding: one buffer of 18
// bytes a cell, FluidX3D's headline combination.
//
// Step 11's two kinds of time step (in_place.hpp: its neighbourhood, plane starts and layout
// conversions) with step 10's storage and collision: each value is stored as s = f - w in fp16,
// collided as step 08 does (shifted_collision.hpp), rounded to either neighbouring fp16 number by
// a draw from the cell's hash and the time step (step 10's round_stochastically, repeated here as
// the step's given code; the draws half_bits.hpp's), and the rest direction takes the
// mass the eight stored values leave. The
// pulling step reads direction k from the upwind neighbour's slot opposite(k) and writes its
// collided value, rounded, into the downwind neighbour's slot k; the local step reads and writes
// the cell's own slots. Every value is rounded by the step that stores it, as in step 10, so the
// physics is step 10's (its accuracy at every width: bench_lbm --accuracy).
// Bytes per cell and time step: 36 (nine 2-byte values read and written), as steps 06-10; memory:
// one buffer of 18 bytes a cell, half of step 10's two, a quarter of the float32 two-buffer
// steps'. A grid of 65536 x 65535 cells (4.3 billion) holds 77 GB of state: on the H200 it fits
// with its moments (12 bytes a cell: 129 GB); step 10's two buffers (155 GB) do not.
// Predicted: bandwidth alone would give the 2-byte stream copy's rate, 104,390 MLUPS at 4096^2
// (results/h200/steps-10-11.txt); but step 10, with the same draws and roundings, stays well
// below that copy (issue-bound by its predicted count, not profiled), and this
// step adds the AA pattern's wall selects on the writes of the pulling step (about 9 instructions
// a cell over step 10's ~345). So predicted
// 0.97x step 10 at 8192^2, and the same rate at a size only its one buffer fits.
// BEGIN FINDINGS
// The prediction's base: step 10 at 62,261 MLUPS at 4096^2 (0.60 of that copy); so ~60,000 MLUPS
// at 8192^2.
// END FINDINGS
// BEGIN FINDINGS
// Measured in runs of their own (NOTES.md): on the H200 at f410b50d6026, before the collision
// moved into shifted_collision.hpp (the same PTX instruction counts and registers since); on the
// H100 at f1df4ce, after the move.
// Measured (H200, results/h200/in-place-2026-11-24.txt): 60,346 MLUPS at 8192^2, 0.96x step 10
// (62,681) in the same run, near the prediction; 60,547 at 65536 x 65535, a grid whose 16-bit
// state fits only in one buffer. Its flow is step 10's to the bit: the same draws for the same
// values (profile error 0.25%, 0.21%, 0.18%, 0.33% at 24-192 cells across, equal to step 10's).
// The profile (4096^2): issue-bound, 87% (pulling) and 78% (local) of the issue slots, at 525 and
// 387 instructions a cell: more than the ~354 predicted (the draws and conversions cost more than
// counted). H100 (results/h100-80gb-hbm3/in-place-2026-11-24.txt): 58,472 at 8192^2, 0.96x step
// 10; 59,017 at 40960^2, a grid where two 16-bit buffers would still fit.
// All of the above with the first rounding (by float comparison). With step 10's integer rounding
// (H200, 88db427, results/h200/steps-10-13-2026-11-24/): 85,737 MLUPS at 8192^2, 0.96x step 10
// again; 351 (pulling) and 210 (local) instructions a cell.
// With the lean collision (10f51c0, results/*/lean-collision-2026-11-24/): 322 and 203 a cell; H200
// 85,603 at 8192^2 and 85,169 at 65536 x 65535; H100 69,566 at 8192^2 and 69,743 at 49152^2, a grid
// whose two-buffer state (87 GB) does not fit the H100.
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit a61db01af046, 2026-11-24):
//     12_in_place_stochastic_fp16  256x256    0.0615 ms (20 time steps), 767 GB/s (0.257 of copy), 21300 MLUP/s
//     12_in_place_stochastic_fp16  1024x1024  0.2500 ms (20 time steps), 3020 GB/s (1.012 of copy), 83881 MLUP/s
//     12_in_place_stochastic_fp16  2048x2048  1.2411 ms (20 time steps), 2433 GB/s (0.815 of copy), 67591 MLUP/s
//     12_in_place_stochastic_fp16  4096x4096  4.9470 ms (20 time steps), 2442 GB/s (0.818 of copy), 67828 MLUP/s
//     12_in_place_stochastic_fp16  8192x8192  19.8931 ms (20 time steps), 2429 GB/s (0.814 of copy), 67470 MLUP/s
//   NVIDIA H200 (commit a61db01af046, 2026-11-24):
//     12_in_place_stochastic_fp16  256x256    0.0720 ms (20 time steps), 655 GB/s (0.155 of copy), 18192 MLUP/s
//     12_in_place_stochastic_fp16  1024x1024  0.2431 ms (20 time steps), 3105 GB/s (0.733 of copy), 86254 MLUP/s
//     12_in_place_stochastic_fp16  2048x2048  1.0138 ms (20 time steps), 2979 GB/s (0.704 of copy), 82744 MLUP/s
//     12_in_place_stochastic_fp16  4096x4096  3.8578 ms (20 time steps), 3131 GB/s (0.740 of copy), 86978 MLUP/s
//     12_in_place_stochastic_fp16  8192x8192  15.6381 ms (20 time steps), 3090 GB/s (0.730 of copy), 85827 MLUP/s
// END MEASURED
#include <cstddef>
#include <cstdint>

#include "course/device_buffer.hpp"
#include "half_bits.hpp"
#include "in_place.hpp"
#include "shifted_collision.hpp"
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

// Step 10's stochastic rounding (see 10_stochastic_rounding.cu): `value` to one of its two
// neighbouring 16-bit numbers, the upper with probability (|value| - lo) / (hi - lo), by
// `random`'s top bits added to its float32 bits.
template <class Format>
__device__ inline std::uint16_t round_stochastically(float value, std::uint32_t random, float& kept) {
  constexpr int kDropped = 23 - Format::kFractionBits;
  constexpr std::uint32_t kBelow = (1u << kDropped) - 1;
  kept = course::float_from_bits((course::float_bits(value) + (random >> (32 - kDropped))) & ~kBelow);
  return Format::nearest(kept);
}

// The pulling step's read of direction k and on (shifted values): from the upwind neighbour's
// slot opposite(k), or at a wall from this cell's own slot k.
template <int k = 0>
__device__ inline void pull_facing(const std::uint16_t* a, std::size_t plane, const AaNeighbourhood& n, float (&s)[kDirections]) {
  if constexpr (k < kDirections) {
    // BEGIN SOLUTION: part 1 of 2, the pulling read in fp16: step 11's pull_facing (aa_upwind<k>: the upwind neighbour's slot in plane opposite(k), or at a wall this cell's slot in plane k), each value decoded from fp16 (fp16_value): the shifted value s = f - w, which is what the collision takes. Invariant: 16 bits in memory, float32 in registers. Mistake to avoid: adding the weight back (shifted_cell works on s), or reading plane k at the neighbour
    bool wall;
    const unsigned from = aa_upwind<k>(n, wall);
    s[k] = fp16_value(wall ? plane_start<k>(a, plane)[n.here] : plane_start<opposite(k)>(a, plane)[from]);
    // STUB: (void)a; (void)plane; (void)n; s[k] = 0.0f;
    // END SOLUTION
    pull_facing<k + 1>(a, plane, n, s);
  }
}

// Where each kind of step puts direction k's collided value (its bits): Push, the pulling step,
// into the downwind neighbour's slot k, or at a wall into this cell's own slot opposite(k);
// StoreLocal, the local step, into this cell's own slot opposite(k).
template <int k>
struct Push {
  __device__ static void put(std::uint16_t* a, std::size_t plane, const AaNeighbourhood& n, std::uint16_t bits) {
    // BEGIN SOLUTION: part 2 of 2, the pulling write of bits: step 11's push_facing for direction k: `bits` (already rounded stochastically) into the downwind neighbour's slot in plane k (aa_upwind<opposite(k)>), or at a wall into this cell's own slot in plane opposite(k). Invariant: the same nine slots the pulling read used. Mistake to avoid: aa_upwind<k> for the write (the value then goes back where it came from)
    bool wall;
    const unsigned to = aa_upwind<opposite(k)>(n, wall);
    (wall ? plane_start<opposite(k)>(a, plane)[n.here] : plane_start<k>(a, plane)[to]) = bits;
    // STUB: (void)a; (void)plane; (void)n; (void)bits;
    // END SOLUTION
  }
};
template <int k>
struct StoreLocal {
  __device__ static void put(std::uint16_t* a, std::size_t plane, const AaNeighbourhood& n, std::uint16_t bits) {
    plane_start<opposite(k)>(a, plane)[n.here] = bits;
  }
};

// Direction k's collided value and on, rounded stochastically, put by `Put` (Push or StoreLocal);
// `kept_sum` gets the stored values.
template <template <int> class Put, int k = 1>
__device__ inline void put_collided(std::uint16_t* a, std::size_t plane, const AaNeighbourhood& n, const float (&s)[kDirections],
                                    const ShiftedCell& cell, const GridCollision& g, std::uint32_t& random, float& kept_sum) {
  if constexpr (k < kDirections) {
    float kept;
    Put<k>::put(a, plane, n, round_stochastically<Fp16Bits>(collide_shifted(k, s[k], cell, g), next_random(random), kept));
    kept_sum += kept;
    put_collided<Put, k + 1>(a, plane, n, s, cell, g, random, kept_sum);
  }
}

// One time step of the pulling kind (`pulling`) or the local kind. Not __restrict__: `a` is read
// and written, each slot by one thread.
template <bool pulling>
__global__ void in_place_stochastic_kernel(std::uint16_t* a, Fields moments, bool with_moments, Channel c, GridCollision g,
                                           std::uint32_t time) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const AaNeighbourhood n = aa_neighbourhood(x, y, c);
  const std::size_t plane = static_cast<std::size_t>(c.cells());
  float s[kDirections];
  if constexpr (pulling) {
    pull_facing(a, plane, n, s);
  } else {
#pragma unroll
    for (int k = 0; k < kDirections; ++k) s[k] = fp16_value(a[k * plane + n.here]);
  }
  // Step 10's collision and rounding; the rest direction (its own slot in either kind of step)
  // last, taking the mass the eight stored values leave.
  const ShiftedCell cell = shifted_cell(s);
  std::uint32_t random = cell_hash(n.here, time);
  float kept_sum = 0.0f, kept;
  if constexpr (pulling)
    put_collided<Push>(a, plane, n, s, cell, g, random, kept_sum);
  else
    put_collided<StoreLocal>(a, plane, n, s, cell, g, random, kept_sum);
  plane_start<0>(a, plane)[n.here] = round_stochastically<Fp16Bits>(cell.sum - kept_sum, next_random(random), kept);
  if (with_moments) {
    moments.rho[n.here] = cell.rho;
    moments.ux[n.here] = cell.ux;
    moments.uy[n.here] = cell.uy;
  }
}

class InPlaceStochasticLattice final : public Lattice {
 public:
  explicit InPlaceStochasticLattice(const Channel& channel)
      : c_(channel), grid_(course::blocks_for(channel.nx, kBlock), channel.ny), a_(channel.cells() * kDirections),
        g_(grid_collision(channel)) {}

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
      course::launch(next_is_pulling_ ? in_place_stochastic_kernel<true> : in_place_stochastic_kernel<false>, {grid_, kBlock},
                     a_.data(), moments, with_moments, c_, g_, time_++);
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
