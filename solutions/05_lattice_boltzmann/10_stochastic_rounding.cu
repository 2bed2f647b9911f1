// Step 10 — 16-bit storage that keeps the physics at every width: stochastic rounding.
//
// Steps 06-09 round every stored value to the nearest 16-bit number. What they store is
// s = f - w, and the part of it that carries the shear stress, the non-equilibrium part, is
// small: at the same Mach number it shrinks as 1/ny with the width (the velocity gradients do),
// while the rounding step of a value near w stays the same. Rounding to nearest is a bias that
// repeats every time step: the same value in the same cell rounds the same way, so the flow
// settles where the roundings balance, not on the parabola, and further from it the wider the
// channel (bench_lbm --accuracy; results/cpu/accuracy.csv: step 08's fp16 is 5.9% off at 24
// cells across and worse at 48).
// Rounding stochastically removes the bias: a value v between two neighbouring 16-bit numbers
// lo < v < hi is stored as hi with probability (v - lo) / (hi - lo), else as lo, so its expected
// stored value is v. The errors are then noise that averages out over cells and time steps
// instead of adding up. The rounding is integer arithmetic on the value's float32 bits: float32
// keeps 23 fraction bits, fp16 10 and bf16 7, so between two neighbouring 16-bit numbers of one
// octave lie 2^13 (fp16) or 2^16 (bf16) float32 bit patterns, the upper one's pattern a multiple
// of that. Adding a uniform random integer below 2^13 (2^16) to the bits and clearing the 13 (16)
// bits below carries into the upper neighbour with probability (v - lo) / (hi - lo), to 13 (16)
// bits of resolution, across an octave's end too (the carry moves the exponent), whatever the
// sign (the bits hold the magnitude). fp16's subnormal numbers (below 2^-14 = 6.1e-5) are spaced
// 2^-24 apart, more than 2^13 patterns: there the value left after clearing is rounded to the
// nearest fp16 number, a bias of at most half of 2^-24 (3.0e-8) on values under 6.1e-5: the
// spacing of float32 near a rest value f_0 of 4/9, twice float32's own rounding error there.
// `kept`, what the rest direction subtracts, is the value before that rounding: the cell's mass
// is off by as little.
// The random numbers are a hash of the cell and the time step (murmur3's finaliser) and, per
// direction, a step of a linear congruential generator, whose top bits are taken: integer
// arithmetic only, so every backend draws the same numbers: the part tests check a cell's stores
// bit for bit, and the whole step is compared step for step with the float64 reference, within
// the tolerance of its storage, as the other steps are. Mass: the rest direction takes what the
// other eight *stored* values leave (step 08 took what the unrounded ones left), so only its own
// rounding changes the cell's mass, and that rounding is unbiased: the mass wanders as a random
// walk.
// Collision as in step 08 (its fused multiply-adds; shifted_collision.hpp, shared with steps 12
// and 13; the draws are half_bits.hpp's). Bytes per cell and time step: 36, as step 08.
// Predicted instructions: step 08's fp16 kernel executes 220 a cell (the H200's profile). Each
// stored value adds the draw (a multiply-add), its top bits (a shift), the add to the bits, the
// clearing and the sum of the stored values; the hash ~10 a cell: ~55 more, ~275 a cell. Step
// 08 keeps 67% of its issue slots busy, so this step, with 1.25x its instructions, should still
// be close to its speed: predicted 0.85-0.95x step 08 (about 1.6x the float32 steps at 8192^2).
// BEGIN FINDINGS
// A first version compared the value with its two neighbours in floats (14-20 instructions a
// value): 434 a cell, 0.64x step 08 (the H200, 8192^2).
// END FINDINGS
// BEGIN FINDINGS
// Measured in a run of its own (NOTES.md), H200, commit 88db427
// (results/h200/steps-10-13-2026-11-24/): 259 instructions a cell (predicted ~275), 74% of issue
// slots; fp16 89,002 MLUPS at 8192^2, 0.92x step 08's fp16 of the same run (predicted 0.85-0.95x),
// 1.60x the best float32 step; bf16 90,781. Against the parabola: fp16 0.23%, 0.17%, 0.10%, 0.51%
// at 24, 48, 96 and 192 cells across; bf16 1.2%, 1.4%, 0.95%, 1.5%, within 2%, not 1%.
// H100 (results/h100-80gb-hbm3/steps-10-13-2026-11-24/): 76,678 MLUPS at 8192^2, 0.99x step 08's
// fp16, 1.93x the best float32 step.
// The first version's rounding, by float comparison: 434 instructions a cell, 62,094 MLUPS
// (2077e20860f2).
// With the lean collision (shifted_collision.hpp at 10f51c0, results/*/lean-collision-2026-11-24/):
// 251 instructions a cell; H200 89,194 MLUPS (1.60x), H100 76,672 (1.93x).
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit a61db01af046, 2026-11-24):
//     10_stochastic_fp16  256x256    0.0630 ms (20 time steps), 749 GB/s (0.251 of copy), 20792 MLUP/s
//     10_stochastic_bf16  256x256    0.0624 ms (20 time steps), an experiment, 756 GB/s (0.253 of copy), 20989 MLUP/s
//     10_stochastic_fp16  1024x1024  0.2774 ms (20 time steps), 2722 GB/s (0.912 of copy), 75602 MLUP/s
//     10_stochastic_bf16  1024x1024  0.2800 ms (20 time steps), an experiment, 2696 GB/s (0.904 of copy), 74903 MLUP/s
//     10_stochastic_fp16  2048x2048  1.1513 ms (20 time steps), 2623 GB/s (0.879 of copy), 72864 MLUP/s
//     10_stochastic_bf16  2048x2048  1.1729 ms (20 time steps), an experiment, 2575 GB/s (0.863 of copy), 71520 MLUP/s
//     10_stochastic_fp16  4096x4096  4.4641 ms (20 time steps), 2706 GB/s (0.907 of copy), 75165 MLUP/s
//     10_stochastic_bf16  4096x4096  4.4239 ms (20 time steps), an experiment, 2731 GB/s (0.915 of copy), 75848 MLUP/s
//     10_stochastic_fp16  8192x8192  17.4624 ms (20 time steps), 2767 GB/s (0.927 of copy), 76861 MLUP/s
//     10_stochastic_bf16  8192x8192  17.3433 ms (20 time steps), an experiment, 2786 GB/s (0.934 of copy), 77389 MLUP/s
//   NVIDIA H200 (commit a61db01af046, 2026-11-24):
//     10_stochastic_fp16  256x256    0.0736 ms (20 time steps), 641 GB/s (0.151 of copy), 17805 MLUP/s
//     10_stochastic_bf16  256x256    0.0698 ms (20 time steps), an experiment, 676 GB/s (0.160 of copy), 18781 MLUP/s
//     10_stochastic_fp16  1024x1024  0.2624 ms (20 time steps), 2877 GB/s (0.680 of copy), 79907 MLUP/s
//     10_stochastic_bf16  1024x1024  0.2663 ms (20 time steps), an experiment, 2835 GB/s (0.670 of copy), 78741 MLUP/s
//     10_stochastic_fp16  2048x2048  0.9544 ms (20 time steps), 3164 GB/s (0.747 of copy), 87890 MLUP/s
//     10_stochastic_bf16  2048x2048  0.9686 ms (20 time steps), an experiment, 3118 GB/s (0.736 of copy), 86608 MLUP/s
//     10_stochastic_fp16  4096x4096  3.6495 ms (20 time steps), 3310 GB/s (0.782 of copy), 91943 MLUP/s
//     10_stochastic_bf16  4096x4096  3.6776 ms (20 time steps), an experiment, 3285 GB/s (0.776 of copy), 91240 MLUP/s
//     10_stochastic_fp16  8192x8192  14.8707 ms (20 time steps), 3249 GB/s (0.768 of copy), 90257 MLUP/s
//     10_stochastic_bf16  8192x8192  14.8838 ms (20 time steps), an experiment, 3246 GB/s (0.767 of copy), 90177 MLUP/s
// END MEASURED
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "course/device_buffer.hpp"
#include "half_bits.hpp"
#include "parts.hpp"
#include "shifted_collision.hpp"
#include "steps.hpp"

namespace ch05 {
namespace {

using course::DeviceBuffer;

constexpr int kBlock = 128;  // cells of a row

// Part 1 of the exercise, tested on its own: `value` rounded to one of its two neighbouring 16-bit
// numbers, the upper with probability (|value| - lo) / (hi - lo), by `random`'s top bits added to
// its float32 bits; `kept` gets the stored number as a float.
template <class Format>
__host__ __device__ inline std::uint16_t round_stochastically(float value, std::uint32_t random, float& kept) {
  // BEGIN SOLUTION: part 1 of 3, the rounding: float32 keeps 23 fraction bits, the 16-bit format Format::kFractionBits, so dropped = 23 - kFractionBits low bits of value's pattern (course::float_bits) lie between two 16-bit numbers; add random's top `dropped` bits to the pattern, clear its low `dropped` bits (course::float_from_bits back), and that float is `kept`; Format::nearest(kept) gives its bits without rounding, as kept is a 16-bit number, except for fp16 below 2^-14 (its subnormals, spaced 2^-24 apart): there nearest rounds kept once more, and the number stored differs from kept by at most 2^-25 (the header says why that is acceptable). Invariant: the carry reaches the upper neighbour with probability (|value| - lo) / (hi - lo), so the mean of kept over the draws is value (unbiased), and kept is always one of the two neighbours. Mistake to avoid: the draw's low bits (a linear congruential generator's repeat with short periods; take the top ones, random >> (32 - dropped)), or a probability by the wrong neighbour's distance (going up with (hi - |value|) / (hi - lo) is biased towards the far one).
  constexpr int kDropped = 23 - Format::kFractionBits;
  constexpr std::uint32_t kBelow = (1u << kDropped) - 1;
  kept = course::float_from_bits((course::float_bits(value) + (random >> (32 - kDropped))) & ~kBelow);
  return Format::nearest(kept);
  // STUB: (void)value; (void)random; kept = 0.0f; return 0;
  // END SOLUTION
}

// Step 08's neighbourhood and pull (the state shifted by the weights: s = f - w).
struct Neighbourhood {
  unsigned here, west, east;  // offsets in a plane of this cell and of its row's neighbours
  int below, above;           // added to step a row down (y - 1) or up: -nx and nx, or across the grid where rows wrap
  bool south_wall, north_wall;
};

template <class Format, int k = 0>
__device__ inline void pull(const std::uint16_t* __restrict__ src, unsigned plane, const Neighbourhood& n,
                            float (&s)[kDirections]) {
  if constexpr (k < kDirections) {
    constexpr int ex = velocity_x(k), ey = velocity_y(k);
    const unsigned column = ex == 0 ? n.here : ex > 0 ? n.west : n.east;
    const bool wall = ey > 0 ? n.south_wall : ey < 0 ? n.north_wall : false;
    const unsigned from = ey > 0 ? column + n.below : ey < 0 ? column + n.above : column;
    // At a wall the value comes back from this cell's opposite direction.
    s[k] = Format::decode(wall ? src[opposite(k) * plane + n.here] : src[k * plane + from]);
    pull<Format, k + 1>(src, plane, n, s);
  }
}

// Parts 2 and 3 of the exercise, tested on their own: a cell's nine stores, into dst's slots
// k * plane + here. collided(k) gives direction k's collided shifted value, `sum` the sum of the
// cell's shifted values (its mass less the weights'), `random` its first draw's state (cell_hash).
template <class Format, class Collided>
__host__ __device__ inline void store_cell(std::uint16_t* __restrict__ dst, unsigned plane, unsigned here,
                                           const Collided& collide, float sum, std::uint32_t random) {
  float kept_sum = 0.0f, kept;
#pragma unroll
  for (int k = 1; k < kDirections; ++k) {
    const float collided = collide(k);
    // BEGIN SOLUTION: part 2 of 3, the eight stores: collided rounded by round_stochastically with the cell's next draw (next_random(random): one draw a value, in the order k = 1 .. 8) into this cell's slot k of dst; add the kept (stored) value to kept_sum. Invariant: kept_sum is the sum of what was stored, not of what was computed, so that part 3 can hand the cell's exact remaining mass to the rest direction. Mistake to avoid: summing `collided` (the mass then drifts by the roundings), or reusing one draw for several values (their roundings are then correlated and the errors add up)
    dst[k * plane + here] = round_stochastically<Format>(collided, next_random(random), kept);
    kept_sum += kept;
    // STUB: (void)collided; (void)random; (void)kept; (void)dst; (void)plane; (void)here;
    // END SOLUTION
  }
  // The rest direction: the mass the eight stored values leave.
  // BEGIN SOLUTION: part 3 of 3, the rest direction: it takes the mass that the eight stored values leave, sum - kept_sum, rounded by round_stochastically with the cell's next draw, into slot 0 (here). Invariant: only this one rounding changes the cell's mass, and it is unbiased, so the mass wanders as a random walk instead of drifting. Mistake to avoid: rounding the rest direction to nearest (a bias that repeats every step) or computing it by the collision formula, collide(0) (the mass is then no longer conserved)
  dst[here] = round_stochastically<Format>(sum - kept_sum, next_random(random), kept);
  // STUB: (void)kept_sum; (void)sum;
  // END SOLUTION
}

template <class Format>
__global__ void stochastic_kernel(const std::uint16_t* __restrict__ src, std::uint16_t* __restrict__ dst, Fields moments,
                                  bool write_moments, Channel c, GridCollision g, std::uint32_t time) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const unsigned row_start = static_cast<unsigned>(y) * c.nx;
  const int wrap = (c.ny - 1) * c.nx;  // from the first row to the last
  const Neighbourhood n{row_start + x, row_start + (x == 0 ? c.nx - 1 : x - 1), row_start + (x == c.nx - 1 ? 0 : x + 1),
                        y == 0 && !c.walls ? wrap : -c.nx, y == c.ny - 1 && !c.walls ? -wrap : c.nx,
                        c.walls && y == 0, c.walls && y == c.ny - 1};
  const unsigned plane = static_cast<unsigned>(c.cells());
  float s[kDirections];
  pull<Format>(src, plane, n, s);

  // Step 08's collision of the shifted values (shifted_collision.hpp), each direction's as it is stored.
  const ShiftedCell cell = shifted_cell(s);
  const auto collide = [&](int k) { return collide_shifted(k, s[k], cell, g); };
  store_cell<Format>(dst, plane, n.here, collide, cell.sum, cell_hash(n.here, time));
  if (write_moments) {
    moments.rho[n.here] = cell.rho;
    moments.ux[n.here] = cell.ux;
    moments.uy[n.here] = cell.uy;
  }
}

// The canonical layout in and out (loading rounds to nearest: it is not a time step).
template <class Format>
__global__ void to_stochastic_layout(const float* __restrict__ canonical, std::uint16_t* __restrict__ f, Channel c) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const long long cell = static_cast<long long>(y) * c.nx + x;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) f[k * c.cells() + cell] = Format::nearest(canonical[cell * kDirections + k] - weight(k));
}
template <class Format>
__global__ void from_stochastic_layout(const std::uint16_t* __restrict__ f, float* __restrict__ canonical, Channel c) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const long long cell = static_cast<long long>(y) * c.nx + x;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) canonical[cell * kDirections + k] = Format::decode(f[k * c.cells() + cell]) + weight(k);
}

template <class Format>
class StochasticLattice final : public Lattice {
 public:
  explicit StochasticLattice(const Channel& channel)
      : c_(channel), grid_(course::blocks_for(channel.nx, kBlock), channel.ny),
        src_(channel.cells() * kDirections), dst_(channel.cells() * kDirections), g_(grid_collision(channel)) {
    if (channel.cells() * kDirections > (1LL << 32) - 1)
      throw std::invalid_argument("step 10 offsets the state's values in 32 bits: at most 477,218,588 cells");
  }

  // The time steps are counted from the load: the same state loaded draws the same numbers.
  void load(const float* f) override {
    course::launch(to_stochastic_layout<Format>, {grid_, kBlock}, f, src_.data(), c_);
    time_ = 0;
  }
  void store(float* f) override { course::launch(from_stochastic_layout<Format>, {grid_, kBlock}, src_.data(), f, c_); }

  void advance(int steps, const Fields* fields) override {
    for (int step = 0; step < steps; ++step) {
      const bool write_moments = fields && step == steps - 1;
      course::launch(stochastic_kernel<Format>, {grid_, kBlock}, src_.data(), dst_.data(), write_moments ? *fields : Fields{},
                     write_moments, c_, g_, time_++);
      std::swap(src_, dst_);
    }
  }

 private:
  Channel c_;
  dim3 grid_;
  DeviceBuffer<std::uint16_t> src_, dst_;  // the state is in src_ between steps
  GridCollision g_;
  std::uint32_t time_ = 0;
};

// The collided values a part test gives store_cell.
struct Given {
  const float (&collided)[kDirections];
  __host__ __device__ float operator()(int k) const { return collided[k]; }
};

}  // namespace

namespace parts {
std::uint16_t fp16_round_stochastically(float value, std::uint32_t random, float& kept) {
  return round_stochastically<Fp16Bits>(value, random, kept);
}
std::uint16_t bf16_round_stochastically(float value, std::uint32_t random, float& kept) {
  return round_stochastically<Bf16Bits>(value, random, kept);
}
void fp16_store_cell(const float (&collided)[kDirections], float sum, std::uint32_t random, std::uint16_t (&stored)[kDirections]) {
  store_cell<Fp16Bits>(stored, 1, 0, Given{collided}, sum, random);
}
void bf16_store_cell(const float (&collided)[kDirections], float sum, std::uint32_t random, std::uint16_t (&stored)[kDirections]) {
  store_cell<Bf16Bits>(stored, 1, 0, Given{collided}, sum, random);
}
}  // namespace parts

std::unique_ptr<Lattice> make_stochastic_fp16(const Channel& channel) { return std::make_unique<StochasticLattice<Fp16Bits>>(channel); }
std::unique_ptr<Lattice> make_stochastic_bf16(const Channel& channel) { return std::make_unique<StochasticLattice<Bf16Bits>>(channel); }

}  // namespace ch05
