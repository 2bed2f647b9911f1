// Chapter 5 tests: every step against the float64 reference step for step, from a fresh random
// state near equilibrium, on channels that cut every block (32 cells of a column in steps 00-02,
// 128 cells of a row in steps 03-08, 10 and 11, 256 in step 09), one cell wide either way, and 1 x 1; the
// state compared after every time step (a failure names the first that differs) and the moments
// of the last one, the outputs poisoned first. Then every step run from
// rest to the steady Poiseuille flow, against the analytic parabola, with mass conserved; every
// step and the reference through the decay of a Taylor-Green vortex (the flow that needs the
// equilibrium's quadratic terms), against the analytic field; the equilibrium's moments; and
// the paper's CPU schemes against the same reference. Before the steps, the parts of the
// exercises that can be checked alone (parts.hpp), each test naming its step's file and part.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iterator>
#include <numbers>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/testing.hpp"
#include "cpu_schemes.hpp"
#include "half_bits.hpp"
#include "parts.hpp"
#include "reference.hpp"
#include "steps.hpp"

namespace {

using ch05::Channel;
using course::DeviceBuffer;

struct Case {
  int nx, ny, steps;
  std::string name() const { return std::to_string(nx) + "x" + std::to_string(ny) + "_" + std::to_string(steps) + "_steps"; }
};

// 1 x 1 bounces every moving distribution off a wall or back into itself; 5 x 1 is a channel one
// cell wide (both walls on every cell); 1 x 7 is one column, its own periodic neighbour; 37 x 13
// and 130 x 33 cut the 32-cell and 128-cell blocks; 301 x 5 (odd) and 257 x 3 cut step 09's
// 256-cell blocks, so its tiles' halos come from the next block and wrap around the row; 2, 3,
// 24 and 39 cells across give step 13's four-cell words every ending: two or three cells and pad
// lanes, a full last word after full ones, three cells after full ones; 20 steps let errors in
// rarely used paths (the corners, the walls' diagonals) grow and reach the moments; 2 and 3 steps
// catch a step whose in-place scheme alternates (step 05), at both parities.
const Case kCases[] = {{1, 1, 3},    {5, 1, 4},   {1, 7, 5},   {2, 5, 3},   {3, 4, 3},   {24, 5, 3},  {39, 7, 3},
                       {37, 13, 1}, {37, 13, 2}, {37, 13, 20}, {130, 33, 3}, {301, 5, 3}, {257, 3, 2}};

using ch05::tolerance;

// The state in the canonical layout, from the device, checked against the reference.
course::Comparison compare_state(const std::vector<float>& got, const std::vector<double>& expected, const Channel& c,
                                 course::Tolerance tol) {
  course::Comparison comparison = course::compare(got, expected, tol, {std::size_t(c.ny), std::size_t(c.nx), 9});
  comparison.axis_names = {"y", "x", "k"};
  return comparison;
}

// Which part of its exercise a time step runs, where its kinds alternate (step 05: the first after
// a load is a pulling step, part 2, the next a local step, part 3): "; time step 2 is ...", or "".
std::string kind_of_time_step(const ch05::Step& step, int time) {
  if (step.source.file != "05_in_place") return "";
  return "; time step " + std::to_string(time) + (time % 2 ? " is a pulling step: part 2" : " is a local step: part 3");
}

// Advances one time step at a time, beside the reference, and stops at the first time step whose
// state differs: a bug shows where it is before it spreads (a wrong cell at x = 128 is at
// x = 128 after one step, everywhere after ten).
void test_step_for_step(const ch05::Step& step, Case cs, const course::Seed& seed) {
  const Channel c{cs.nx, cs.ny, 0.8f, 1e-4f};
  const ch05::State initial = ch05::random_state(c, seed);
  std::vector<double> expected(initial.begin(), initial.end());
  ch05::ReferenceFields expected_fields;

  const std::size_t cells = std::size_t(c.cells());
  DeviceBuffer<float> d_state{std::span<const float>(initial)}, rho(cells), ux(cells), uy(cells);
  rho.poison(), ux.poison(), uy.poison();
  const ch05::Fields fields{rho.data(), ux.data(), uy.data()};
  std::unique_ptr<ch05::Lattice> lattice = ch05::make_lattice(step, c);
  lattice->load(d_state.data());
  const course::Tolerance tol = tolerance(step.storage);
  for (int time = 1; time <= cs.steps; ++time) {
    // The first half without the moments, the rest with them: both paths of advance().
    const bool moments = time > cs.steps / 2;
    lattice->advance(1, moments ? &fields : nullptr);
    ch05::reference_advance(c, expected, 1, &expected_fields);
    d_state.poison();
    lattice->store(d_state.data());
    GPU_CHECK(gpuDeviceSynchronize());
    const course::Comparison state = compare_state(d_state.to_host(), expected, c, tol);
    if (!state.ok()) {
      ADD_FAILURE() << "the state after time step " << time << " of " << cs.steps << " (the first that differs"
                    << kind_of_time_step(step, time) << ")\n"
                    << state.report();
      return;
    }
  }
  const std::vector<std::size_t> extents{std::size_t(c.ny), std::size_t(c.nx)};
  const struct {
    const char* name;
    const DeviceBuffer<float>& got;
    const std::vector<double>& expected;
  } moments[] = {{"the density rho", rho, expected_fields.rho},
                 {"the velocity ux", ux, expected_fields.ux},
                 {"the velocity uy", uy, expected_fields.uy}};
  for (const auto& moment : moments) {
    const course::Comparison comparison = course::compare(moment.got.to_host(), moment.expected, tol, extents);
    if (!comparison.ok())
      ADD_FAILURE() << moment.name << " after time step " << cs.steps << " of " << cs.steps << " (the moments of the last"
                    << kind_of_time_step(step, cs.steps) << ")\n"
                    << comparison.report();
  }
}

// load() then store() gives the state back (rounded to the step's storage).
void test_load_store(const ch05::Step& step, const course::Seed& seed) {
  const Channel c{45, 11, 0.8f, 0.0f};
  const ch05::State initial = ch05::random_state(c, seed);
  DeviceBuffer<float> d_state{std::span<const float>(initial)};
  std::unique_ptr<ch05::Lattice> lattice = ch05::make_lattice(step, c);
  lattice->load(d_state.data());
  d_state.poison();
  lattice->store(d_state.data());
  GPU_CHECK(gpuDeviceSynchronize());
  const course::Tolerance tol = step.storage == ch05::Storage::f32 ? course::Tolerance{0, 0} : tolerance(step.storage);
  EXPECT_TRUE(course::matches_reference(compare_state(d_state.to_host(), {initial.begin(), initial.end()}, c, tol)));
}

using ch05::kPoiseuille;
using ch05::kPoiseuilleSteps;
using ch05::profile_error;

// What each storage keeps of the physics after kPoiseuilleSteps from rest: the profile's
// relative L2 distance from the parabola and the relative change of the channel's mass. Float32
// meets the 1% and round-off; 16-bit storage rounded to nearest costs accuracy, as the
// chapter measured (README): rounding each stored value loses most of the small non-equilibrium
// part that carries the shear stress. The bounds leave room above the measured values and still fail a step whose
// flow does not develop (error 1) or leaks mass.
struct Accuracy {
  double profile, mass, cross_flow;  // cross_flow: the largest |uy|, as a fraction of the centre velocity
};
Accuracy required_accuracy(ch05::Storage storage) {
  switch (storage) {
    case ch05::Storage::f16: return {0.10, 1e-3, 0.02};
    case ch05::Storage::bf16: return {0.50, 1e-3, 0.2};
    // Stochastic rounding in fp16 (steps 10, 12, 13) is held to float32's 1% (measured: 0.33% on
    // the CPU backend, 0.32% on the H200); bf16's seven fraction bits leave noise of about 1% at
    // this width (0.64% on the CPU backend, 1.2% on the H200, one run each): 2%. The mass wanders
    // as a random walk (6e-7 to 1.2e-5 measured).
    case ch05::Storage::f16_stochastic: return {0.01, 1e-4, 0.01};
    case ch05::Storage::bf16_stochastic: return {0.02, 1e-4, 0.05};
    case ch05::Storage::f32: break;
  }
  return {0.01, 1e-5, 1e-3};
}

double mass_of(const std::vector<float>& state) {
  double mass = 0;
  for (const float f : state) mass += f;
  return mass;
}

// The steady profile near the parabola, (almost) no flow across the channel, and the mass kept.
void test_poiseuille(const ch05::Step& step) {
  const Channel c = kPoiseuille;
  const ch05::State rest = ch05::state_at_rest(c);
  DeviceBuffer<float> d_state{std::span<const float>(rest)}, rho(c.cells()), ux(c.cells()), uy(c.cells());
  rho.poison(), ux.poison(), uy.poison();
  const ch05::Fields fields{rho.data(), ux.data(), uy.data()};
  std::unique_ptr<ch05::Lattice> lattice = ch05::make_lattice(step, c);
  lattice->load(d_state.data());
  d_state.poison();
  lattice->advance(kPoiseuilleSteps, &fields);
  lattice->store(d_state.data());
  GPU_CHECK(gpuDeviceSynchronize());

  const double error = profile_error(ux.to_host(), c);
  const double mass_change = mass_of(d_state.to_host()) / mass_of(rest) - 1;
  double cross_flow = 0;
  for (const float v : uy.to_host()) cross_flow = std::max(cross_flow, std::abs(double{v}) / 0.05);
  std::printf("%s: %d steps from rest: velocity profile %.3g%% from the parabola (relative L2), mass changed by %.2g, "
              "cross-flow up to %.2g of the centre velocity\n",
              step.source.id().c_str(), kPoiseuilleSteps, 100 * error, mass_change, cross_flow);
  const Accuracy required = required_accuracy(step.storage);
  EXPECT_LT(error, required.profile) << "the steady profile after " << kPoiseuilleSteps << " steps";
  const bool stochastic = step.storage == ch05::Storage::f16_stochastic || step.storage == ch05::Storage::bf16_stochastic;
  if (!(std::abs(mass_change) < required.mass))
    ADD_FAILURE() << "the mass (the sum of all distributions) changed by " << mass_change << ", more than " << required.mass
                  << (stochastic ? ": the rest direction takes what the eight stored values leave (step 10's parts 2 and 3: "
                                   "sum what was stored (kept), not what was computed)"
                                 : "");
  EXPECT_LT(cross_flow, required.cross_flow) << "the largest velocity across the channel, over the centre velocity";
}

// The Taylor-Green vortex (lbm.hpp): a 16 x 16 box, tau 0.8 (nu 0.1), U = 0.05, the velocity
// decaying as exp(-2 nu k^2 t) = exp(-0.0308 t) to 0.40 of its start in kVortexSteps. Checked:
// the velocity field against the analytic one after every time step (the largest relative L2
// distance), and the decay rate of the vortex's mode from step kVortexEarly to the last against
// 2 nu k^2. The start holds the equilibrium and its first-order non-equilibrium part; what is
// left of the start-up's imbalance rings as a sound wave (period ~14 steps), so the field's
// distance oscillates: measured on the CPU backend, the float64 reference stays within 0.68%
// (at step 7) and its decay rate 0.42% above 2 nu k^2 (the lattice's O(k^2) error); with a linear
// equilibrium (no 4.5 (e.u)^2 - 1.5 u.u) the reference's field is 2.8% off at step 4 and still
// passes the Poiseuille test. So 1.5% on the field separates the two; 1% on the rate catches a
// wrong viscosity (tau for 1/tau is 100% off) and leaves room for the storage's rounding.
constexpr int kVortexBox = 16, kVortexEarly = 10, kVortexSteps = 30;

struct VortexFields {
  std::vector<double> ux, uy;
};

// The share of the vortex's mode in a velocity field, over U: its projection onto the mode.
double vortex_amplitude(const VortexFields& u, const Channel& box) {
  double along = 0, norm = 0;
  for (int y = 0; y < box.ny; ++y)
    for (int x = 0; x < box.nx; ++x) {
      const ch05::Velocity mode = ch05::taylor_green_velocity(box, x, y, 0);
      const std::size_t at = std::size_t(y) * box.nx + x;
      along += u.ux[at] * mode.ux + u.uy[at] * mode.uy, norm += mode.ux * mode.ux + mode.uy * mode.uy;
    }
  return along / norm;
}

double vortex_error(const VortexFields& u, const Channel& box, int time) {
  double distance = 0, norm = 0;
  for (int y = 0; y < box.ny; ++y)
    for (int x = 0; x < box.nx; ++x) {
      const ch05::Velocity exact = ch05::taylor_green_velocity(box, x, y, time);
      const std::size_t at = std::size_t(y) * box.nx + x;
      const double dx = u.ux[at] - exact.ux, dy = u.uy[at] - exact.uy;
      distance += dx * dx + dy * dy, norm += exact.ux * exact.ux + exact.uy * exact.uy;
    }
  return std::sqrt(distance / norm);
}

// Runs the vortex `next` time step at a time (it advances one and gives that step's velocity)
// and checks it. 16-bit storage, rounding the stored differences from the weights, moves the
// field by under 0.01% and the rate by under 0.1% (measured, bf16): the same bounds hold.
void check_vortex(const std::function<VortexFields()>& next, const std::string& who) {
  const Channel box = ch05::taylor_green_box(kVortexBox, 0.8f);
  double worst = 0, early_amplitude = 0, late_amplitude = 0;
  int worst_time = 0;
  for (int time = 1; time <= kVortexSteps; ++time) {
    const VortexFields u = next();
    const double error = vortex_error(u, box, time);
    if (!(error <= worst)) worst = error, worst_time = time;  // a NaN is the worst
    if (time == kVortexEarly) early_amplitude = vortex_amplitude(u, box);
    if (time == kVortexSteps) late_amplitude = vortex_amplitude(u, box);
  }
  const double k = 2 * std::numbers::pi / box.nx, nu = (double{box.tau} - 0.5) / 3;
  const double rate = std::log(early_amplitude / late_amplitude) / (kVortexSteps - kVortexEarly) / (2 * nu * k * k) - 1;
  std::printf("%s: Taylor-Green vortex %dx%d, %d steps: velocity up to %.3g%% from the analytic field (step %d); "
              "decay rate %+.3g%% off 2 nu k^2\n",
              who.c_str(), kVortexBox, kVortexBox, kVortexSteps, 100 * worst, worst_time, 100 * rate);
  EXPECT_LT(worst, 0.015) << "the velocity field's relative L2 distance from the analytic vortex, at step " << worst_time;
  EXPECT_LT(std::abs(rate), 0.01) << "the vortex's decay rate from step " << kVortexEarly << " to " << kVortexSteps
                                  << ", relative to 2 nu k^2";
}

void test_taylor_green(const ch05::Step& step) {
  const Channel box = ch05::taylor_green_box(kVortexBox, 0.8f);
  const ch05::State start = ch05::taylor_green_state(box);
  DeviceBuffer<float> d_state{std::span<const float>(start)}, rho(box.cells()), ux(box.cells()), uy(box.cells());
  const ch05::Fields fields{rho.data(), ux.data(), uy.data()};
  std::unique_ptr<ch05::Lattice> lattice = ch05::make_lattice(step, box);
  lattice->load(d_state.data());
  check_vortex(
      [&] {
        ux.poison(), uy.poison();
        lattice->advance(1, &fields);
        const std::vector<float> x = ux.to_host(), y = uy.to_host();
        return VortexFields{{x.begin(), x.end()}, {y.begin(), y.end()}};
      },
      step.source.id());
}

// --- the parts ---------------------------------------------------------------------------------

// The taught step of a step file ("10_stochastic_rounding"): its part tests name it.
const course::StepSource& taught(std::string_view file) {
  for (const ch05::Step& step : ch05::steps())
    if (step.source.file == file && !step.source.experiment) return step.source;
  throw std::logic_error("steps.hpp has no taught step in " + std::string(file));
}

// Reports at most a few mismatches of one part test, then how many there were.
class Mismatches {
 public:
  ~Mismatches() {
    if (count_ > kShown) ADD_FAILURE() << count_ << " mismatches in all (the first " << kShown << " above)";
  }
  void add(const std::string& what) {
    if (++count_ <= kShown) ADD_FAILURE() << what;
  }

 private:
  static constexpr int kShown = 5;
  int count_ = 0;
};

template <class... T>
std::string words(const T&... parts) {
  std::ostringstream out;
  out.precision(9);
  (out << ... << parts);
  return out.str();
}

// A 16-bit pattern as a number, in float64: fp16 (IEEE half) or bf16 (the top half of a float32).
double fp16_number(std::uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f, fraction = bits & 0x3ff;
  const double magnitude = exponent == 0 ? std::ldexp(fraction, -24) : std::ldexp(1024 + fraction, exponent - 25);
  return bits & 0x8000 ? -magnitude : magnitude;
}
double bf16_number(std::uint16_t bits) {
  const std::uint32_t pattern = std::uint32_t{bits} << 16;
  float value;
  std::memcpy(&value, &pattern, sizeof value);
  return value;
}

// Step 05, part 1: every cell, direction and sign of channels with walls and without, a row and a
// column one cell wide, and 1 x 1.
void test_aa_neighbour() {
  const Channel channels[] = {{1, 1, 0.8f, 0.0f}, {5, 1, 0.8f, 0.0f}, {1, 7, 0.8f, 0.0f}, {6, 5, 0.8f, 0.0f},
                              {7, 4, 0.8f, 0.0f, false}, {1, 3, 0.8f, 0.0f, false}};
  Mismatches wrong;
  for (const Channel& c : channels)
    for (int y = 0; y < c.ny; ++y)
      for (int x = 0; x < c.nx; ++x)
        for (int k = 0; k < ch05::kDirections; ++k)
          for (int sign : {+1, -1}) {
            const int want_x = ((x + sign * ch05::velocity_x(k)) % c.nx + c.nx) % c.nx;
            int want_y = y + sign * ch05::velocity_y(k);
            if (!c.walls) want_y = (want_y % c.ny + c.ny) % c.ny;
            const bool want = want_y >= 0 && want_y < c.ny;
            int to_x = -99, to_y = -99;
            const bool got = ch05::parts::aa_neighbour(x, y, k, sign, c, to_x, to_y);
            if (got != want || to_x != want_x || (want && to_y != want_y) || (!want && to_y >= 0 && to_y < c.ny))
              wrong.add(words(c.nx, " x ", c.ny, c.walls ? " with walls" : " without walls", ", cell (", x, ", ", y,
                              "), direction ", k, " (e = (", ch05::velocity_x(k), ", ", ch05::velocity_y(k), ")), sign ", sign,
                              ": got ", got ? "true" : "false", " and (", to_x, ", ", to_y, "), expected ", want ? "true" : "false",
                              " and (", want_x, ", ", want_y, ")", want ? "" : " (behind a wall: a row outside 0 .. ny - 1)",
                              ": the neighbour at (x, y) + sign e_k, x periodic"));
          }
}

// Step 06, part 1: the bits of f_k - w_k read back as f_k.
void test_fp16_load(const course::Seed& seed) {
  std::mt19937_64 random(seed.value);
  Mismatches wrong;
  for (int k = 0; k < ch05::kDirections; ++k)
    for (int i = 0; i < 500; ++i) {
      const std::uint16_t bits = static_cast<std::uint16_t>(random() % 0x7c00) | (random() % 2 ? 0x8000 : 0);  // finite
      const double want = fp16_number(bits) + double(ch05::weight(k));
      const float got = ch05::parts::fp16_loaded(bits, k);
      if (!(std::abs(got - want) <= 1e-7 * std::max(1.0, std::abs(want))))
        wrong.add(words("direction ", k, ", stored bits 0x", std::hex, bits, std::dec, " (f - w = ", fp16_number(bits),
                        "): got ", got, ", expected ", want, " (the fp16 number plus w_", k, " = ", ch05::weight(k), ")"));
    }
}

// Step 06, part 2: f_k stored as the nearest fp16 number to f_k - w_k.
void test_fp16_store(const course::Seed& seed) {
  std::mt19937_64 random(seed.value);
  std::uniform_real_distribution<float> near(-0.06f, 0.06f);
  Mismatches wrong;
  for (int k = 0; k < ch05::kDirections; ++k)
    for (int i = 0; i < 500; ++i) {
      const float f = ch05::weight(k) + near(random);
      const double target = double(f - ch05::weight(k));
      const std::uint16_t bits = ch05::parts::fp16_stored(f, k);
      const double got = fp16_number(bits);
      const int magnitude = bits & 0x7fff;
      const std::uint16_t sign = bits & 0x8000;
      const double up = fp16_number(sign | (magnitude + 1));
      const double down = magnitude > 0 ? fp16_number(sign | (magnitude - 1)) : fp16_number((sign ^ 0x8000) | 1);
      if (magnitude >= 0x7c00 || std::abs(got - target) > std::abs(up - target) || std::abs(got - target) > std::abs(down - target))
        wrong.add(words("direction ", k, ", f = ", f, ": stored 0x", std::hex, bits, std::dec, " (", got,
                        "), expected the fp16 number nearest to f - w_", k, " = ", target, " (its neighbours ", down, " and ", up,
                        " are nearer or as near)"));
    }
}

// Step 09, part 1: both halves of words of random pairs.
void test_pair_half(const course::Seed& seed) {
  std::mt19937_64 random(seed.value);
  Mismatches wrong;
  for (int i = 0; i < 1000; ++i) {
    const auto even = static_cast<std::uint16_t>(random()), odd = static_cast<std::uint16_t>(random());
    const std::uint32_t word = even | std::uint32_t{odd} << 16;
    for (int p = 0; p < 6; ++p) {
      const std::uint16_t got = ch05::parts::pair_half(word, p), want = p % 2 ? odd : even;
      if (got != want)
        wrong.add(words("cell p = ", p, " of the word 0x", std::hex, word, ": got 0x", got, ", expected 0x", want, std::dec,
                        p % 2 ? " (an odd cell: the high half)" : " (an even cell: the low half)"));
    }
  }
}

// Step 10, part 1: for values of either sign and many octaves (an octave's last numbers, exact
// 16-bit numbers, fp16 above its subnormals), every value of the draw's top bits (the low bits fixed,
// random): each result one of the value's two neighbours, the upper in the share of the draws that
// (|v| - lo) / (hi - lo) says, so that the mean is v.
template <class Round>
void test_rounding(const char* format, int fraction_bits, double (*number)(std::uint16_t), Round round, double smallest,
                   const course::Seed& seed) {
  std::mt19937_64 random(seed.value);
  const int dropped = 23 - fraction_bits;
  const std::uint32_t draws = 1u << dropped;
  Mismatches wrong;
  for (int i = 0; i < 120; ++i) {
    // |v| from `smallest` to 0.25, uniform in its exponent; every fourth an exact 16-bit number or
    // the last float32 below the next octave's start.
    const double magnitude = smallest * std::pow(0.25 / smallest, std::uniform_real_distribution<double>(0, 1)(random));
    float v = static_cast<float>(random() % 2 ? -magnitude : magnitude);
    std::uint32_t pattern;
    std::memcpy(&pattern, &v, sizeof v);
    if (i % 4 == 1) pattern &= ~(draws - 1);                  // exactly a 16-bit number
    if (i % 4 == 2) pattern = (pattern | 0x007fffffu);        // the last float32 of its octave
    std::memcpy(&v, &pattern, sizeof v);
    const double sign = v < 0 ? -1 : 1;
    std::uint32_t lo_pattern = pattern & ~(draws - 1) & 0x7fffffffu;
    float lo_float;
    std::memcpy(&lo_float, &lo_pattern, sizeof lo_float);
    const double lo = lo_float, hi = lo + std::ldexp(1.0, std::ilogb(lo_float) - fraction_bits);
    const double up_share = (std::abs(double(v)) - lo) / (hi - lo);  // a multiple of 1/draws
    const std::uint32_t low_bits = static_cast<std::uint32_t>(random()) >> dropped;  // the same for every draw
    std::uint32_t ups = 0, others = 0;
    double sum = 0;
    std::string first_other;
    for (std::uint32_t top = 0; top < draws; ++top) {
      float kept = -1.0f;
      const std::uint16_t bits = round(v, top << (32 - dropped) | low_bits, kept);
      const double magnitude_kept = sign * kept;
      sum += kept;
      if (magnitude_kept == hi && hi != lo) ++ups;
      if ((magnitude_kept != lo && magnitude_kept != hi) || number(bits) != kept) {
        if (others++ == 0)
          first_other = words("draw 0x", std::hex, (top << (32 - dropped) | low_bits), std::dec, " gave kept = ", kept,
                              " and bits that stand for ", number(bits));
      }
    }
    const std::string value = words(format, " rounding of v = ", v, " (between the ", format, " numbers ", sign * lo, " and ",
                                    sign * hi, "), over all ", draws, " values of the draw's top ", dropped, " bits: ");
    if (others) {
      wrong.add(value + words(others, " results are neither neighbour, or their bits do not stand for kept; the first: ",
                              first_other));
      continue;
    }
    const double want_ups = up_share * draws;
    if (std::abs(ups - want_ups) > 0.5)
      wrong.add(value + words("the upper neighbour came ", ups, " times, expected ", want_ups,
                              " (probability (|v| - lo) / (hi - lo), the distance from the lower one); the mean ", sum / draws,
                              " is off v by ", sum / draws - v));
    else if (up_share > 0 && (ups == 0 || ups == draws))
      wrong.add(value + "only one neighbour ever came: use the draw's top bits");
  }
}

void test_stochastic_rounding(const course::Seed& seed) {
  {
    SCOPED_TRACE("fp16");
    test_rounding("fp16", 10, fp16_number, ch05::parts::fp16_round_stochastically, std::ldexp(1.0, -14), seed);
  }
  SCOPED_TRACE("bf16");
  test_rounding("bf16", 7, bf16_number, ch05::parts::bf16_round_stochastically, 1e-6, seed);
}

// Step 10's rounding emulated on float32 bits, for parts 2 and 3: `value` plus the draw's top
// 23 - fraction_bits bits, those low bits then cleared, gives kept; the number stored is kept,
// except for fp16's subnormals (below 2^-14), where kept is rounded to the nearest multiple of 2^-24.
struct Rounded {
  float kept;
  double stored;
};
Rounded round_by_draw(float value, std::uint32_t draw, int fraction_bits) {
  const int dropped = 23 - fraction_bits;
  std::uint32_t pattern;
  std::memcpy(&pattern, &value, sizeof value);
  pattern = (pattern + (draw >> (32 - dropped))) & ~((1u << dropped) - 1);
  float kept;
  std::memcpy(&kept, &pattern, sizeof kept);
  double stored = kept;
  if (fraction_bits == 10 && std::abs(stored) < std::ldexp(1.0, -14))
    stored = std::ldexp(std::nearbyint(std::ldexp(stored, 24)), -24);
  return {kept, stored};
}

struct StoreFormat {
  const char* name;
  int fraction_bits;
  double (*number)(std::uint16_t);
  std::uint16_t (*nearest)(float);
  void (*store_cell)(const float (&)[ch05::kDirections], float, std::uint32_t, std::uint16_t (&)[ch05::kDirections]);
};
const StoreFormat kStoreFormats[] = {
    {"fp16", 10, fp16_number, ch05::Fp16Bits::nearest, ch05::parts::fp16_store_cell},
    {"bf16", 7, bf16_number, ch05::Bf16Bits::nearest, ch05::parts::bf16_store_cell},
};

// Step 10, parts 2 and 3: the nine stores of cells with random collided values and sums, drawing
// from the hashes of random cells and time steps, bit for bit against the emulation: slot k
// (1 .. 8) holds collided[k] rounded with the cell's k-th draw (next_random from cell_hash), slot
// 0 what the eight stored values leave of the sum, rounded with the ninth. `rest`: check slot 0
// (part 3), else slots 1 .. 8 (part 2). A mistake that explains every wrong value is named.
void test_store_cell(const course::Seed& seed, bool rest) {
  std::mt19937_64 random(seed.value);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  struct Wrong {
    int cell, k;
    std::uint16_t bits;
    double got, want;
    std::string what;
  };
  for (const StoreFormat& format : kStoreFormats) {
    const auto round = [&](float value, std::uint32_t draw) { return round_by_draw(value, draw, format.fraction_bits); };
    std::vector<Wrong> wrong;
    std::vector<std::string> mistakes = rest ? std::vector<std::string>{
        "what the computed values leave: add kept to kept_sum in part 2 (sum what was stored, not what was computed)",
        "the collision formula's value (collide(0)): the rest direction takes the mass the stored values leave",
        "rounded to nearest: round it stochastically, with the cell's ninth draw"}
                                             : std::vector<std::string>{
        "the first draw's rounding: one draw a value, next_random(random) for each store",
        "rounded with the hash itself: take next_random(random), one draw a value",
        "rounded to nearest: round it stochastically"};
    std::vector<bool> explains(mistakes.size(), true);  // every wrong value so far
    for (int cell = 0; cell < 500; ++cell) {
      // Values of the size of s = f - w, every tenth cell's tiny (fp16's subnormals); a sum and a
      // collided[0] of their own, so that each mistake gives a value of its own.
      const float scale = cell % 10 == 0 ? 1e-5f : 0.06f;
      float collided[ch05::kDirections];
      for (float& value : collided) value = scale * uniform(random);
      const float sum = 0.3f * uniform(random);
      const std::uint32_t hash = ch05::cell_hash(static_cast<std::uint32_t>(random()), static_cast<std::uint32_t>(random() % 100));
      std::uint16_t stored[ch05::kDirections];
      std::fill(std::begin(stored), std::end(stored), std::uint16_t{0xffff});  // NaN in both formats
      format.store_cell(collided, sum, hash, stored);

      std::uint32_t state = hash, draws[ch05::kDirections];  // draws[k - 1]: the k-th
      for (std::uint32_t& draw : draws) draw = ch05::next_random(state);
      const auto check = [&](int k, double want, std::vector<bool> matches, const std::string& what) {
        if (format.number(stored[k]) == want) return;
        for (std::size_t m = 0; m < mistakes.size(); ++m) explains[m] = explains[m] && matches[m];
        wrong.push_back({cell, k, stored[k], format.number(stored[k]), want, what});
      };
      if (!rest) {
        for (int k = 1; k < ch05::kDirections; ++k) {
          const double got = format.number(stored[k]);
          check(k, round(collided[k], draws[k - 1]).stored,
                {got == round(collided[k], draws[0]).stored, got == round(collided[k], hash).stored,
                 stored[k] == format.nearest(collided[k])},
                words("collided[", k, "] = ", collided[k], " rounded with the cell's draw ", k, " (next_random called ", k,
                      " times from cell_hash)"));
        }
        continue;
      }
      // kept_sum as the hint has it, or of the numbers stored (they differ on fp16's subnormals).
      float kept_sum = 0.0f, stored_sum = 0.0f, computed_sum = 0.0f;
      for (int k = 1; k < ch05::kDirections; ++k) {
        const Rounded rounded = round(collided[k], draws[k - 1]);
        kept_sum += rounded.kept, stored_sum += static_cast<float>(rounded.stored), computed_sum += collided[k];
      }
      const double got = format.number(stored[0]);
      if (got == round(sum - stored_sum, draws[8]).stored) continue;
      check(0, round(sum - kept_sum, draws[8]).stored,
            {got == round(sum - computed_sum, draws[8]).stored,
             got == round(collided[0], draws[8]).stored || stored[0] == format.nearest(collided[0]),
             stored[0] == format.nearest(sum - kept_sum)},
            words("sum - kept_sum = ", sum - kept_sum,
                  " (the mass the eight stored values leave) rounded with the cell's ninth draw"));
    }
    std::string why = "a wrong rounding, draw or slot";
    for (std::size_t m = 0; m < mistakes.size(); ++m)
      if (explains[m]) {
        why = mistakes[m];
        break;
      }
    Mismatches report;
    for (const Wrong& w : wrong)
      report.add(words(format.name, " cell ", w.cell, ", slot ", w.k, ": stored 0x", std::hex, w.bits, std::dec, " (", w.got,
                       "), expected ", w.want, ": ", w.what, "; ", why));
  }
}

// Step 13, parts 1 and 2: random words, both directions.
void test_straddled_pair(const course::Seed& seed) {
  std::mt19937_64 random(seed.value);
  Mismatches wrong;
  for (int i = 0; i < 1000; ++i) {
    const auto west = static_cast<std::uint32_t>(random()), east = static_cast<std::uint32_t>(random());
    const std::uint32_t got = ch05::parts::straddled_pair(west, east), want = (west >> 16) | (east << 16);
    if (got != want)
      wrong.add(words(std::hex, "west 0x", west, ", east 0x", east, ": got 0x", got, ", expected 0x", want, std::dec,
                      " (west's high half as the even cell, in the low half; east's low half as the odd cell)"));
  }
}
void test_straddled_quad(const course::Seed& seed) {
  std::mt19937_64 random(seed.value);
  Mismatches wrong;
  for (int i = 0; i < 1000; ++i) {
    // Cells x0 - 4 .. x0 + 7: the word before, this thread's own, the word after.
    std::uint16_t cell[12];
    for (auto& value : cell) value = static_cast<std::uint16_t>(random());
    const auto word = [&](int first) {
      std::uint64_t w = 0;
      for (int lane = 0; lane < 4; ++lane) w |= std::uint64_t{cell[first + lane]} << (16 * lane);
      return w;
    };
    for (const int ex : {+1, -1}) {
      std::uint64_t want = 0;
      for (int lane = 0; lane < 4; ++lane) want |= std::uint64_t{cell[4 + lane - ex]} << (16 * lane);  // cell x0 + lane - e_x
      const std::uint64_t got = ch05::parts::straddled_quad(word(4), word(ex > 0 ? 0 : 8), ex);
      if (got != want)
        wrong.add(words(std::hex, "e_x = ", std::dec, ex, std::hex, ", own 0x", word(4), ", ", ex > 0 ? "west" : "east", " 0x",
                        word(ex > 0 ? 0 : 8), ": got 0x", got, ", expected 0x", want, std::dec,
                        " (lane i: cell x0 + i - e_x, lane 0 in the low 16 bits)"));
    }
  }
}

const bool parts_on_host = course::suite_runs_on_host("AaNeighbour") && course::suite_runs_on_host("Fp16Load") &&
                           course::suite_runs_on_host("Fp16Store") && course::suite_runs_on_host("PairHalf") &&
                           course::suite_runs_on_host("StochasticRounding") && course::suite_runs_on_host("StochasticStores") &&
                           course::suite_runs_on_host("StochasticRest") && course::suite_runs_on_host("StraddledPair") &&
                           course::suite_runs_on_host("StraddledQuad");

// Registered before the whole steps' tests, so that a wrong part's test fails first and the
// grader names the part.
const bool parts_registered = [] {
  course::register_part_test(taught("05_in_place"), 1, "the neighbour", "AaNeighbour", "AlongEachDirectionBothWays",
                             [](const course::Seed&) { test_aa_neighbour(); });
  course::register_part_test(taught("06_half_storage"), 1, "the load", "Fp16Load", "DecodesAndAddsTheWeight", test_fp16_load);
  course::register_part_test(taught("06_half_storage"), 2, "the store", "Fp16Store", "NearestToTheShiftedValue", test_fp16_store);
  course::register_part_test(taught("09_pairs"), 1, "unpacking a pair", "PairHalf", "EvenCellLowOddCellHigh", test_pair_half);
  course::register_part_test(taught("10_stochastic_rounding"), 1, "the rounding", "StochasticRounding",
                             "EitherNeighbourByItsDistanceUnbiased", test_stochastic_rounding);
  course::register_part_test(taught("10_stochastic_rounding"), 2, "the eight stores", "StochasticStores",
                             "EachValueByItsOwnDrawBitForBit", [](const course::Seed& seed) { test_store_cell(seed, false); });
  course::register_part_test(taught("10_stochastic_rounding"), 3, "the rest direction", "StochasticRest",
                             "TakesWhatTheStoredValuesLeaveBitForBit", [](const course::Seed& seed) { test_store_cell(seed, true); });
  course::register_part_test(taught("13_pairs_stochastic"), 1, "the straddled pair", "StraddledPair", "HighHalfThenLowHalf",
                             test_straddled_pair);
  course::register_part_test(taught("13_pairs_stochastic"), 2, "the straddled quads", "StraddledQuad", "EachLaneFromUpwind",
                             test_straddled_quad);
  return true;
}();

// --- the steps -------------------------------------------------------------------------------------

const bool registered = [] {
  for (const ch05::Step& step : ch05::steps()) {
    for (const Case cs : kCases)
      course::register_step_test(step.source, "StepForStep", step.source.id() + "/" + cs.name(),
                                 [&step, cs](const course::Seed& seed) { test_step_for_step(step, cs, seed); });
    course::register_step_test(step.source, "LoadStore", step.source.id(),
                               [&step](const course::Seed& seed) { test_load_store(step, seed); });
    course::register_step_test(step.source, "Poiseuille", step.source.id(), [&step](const course::Seed&) { test_poiseuille(step); });
    course::register_step_test(step.source, "TaylorGreen", step.source.id(), [&step](const course::Seed&) { test_taylor_green(step); });
  }
  return true;
}();

// Host code only: nothing to run again with shuffled threads.
const bool host_suites = course::suite_runs_on_host("Channel") && course::suite_runs_on_host("Reference") &&
                         course::suite_runs_on_host("CpuSchemes") &&
                         course::suite_runs_on_host("Equilibrium");

// Every step's lattice is made through make_lattice, which refuses a bad channel before any
// allocation or launch.
TEST(Channel, RejectsBadParameters) {
  for (const Channel bad : {Channel{0, 8, 0.8f, 0}, Channel{8, 0, 0.8f, 0}, Channel{-3, 8, 0.8f, 0}, Channel{8, 8, 0.5f, 0},
                            Channel{8, 8, 0.2f, 0}, Channel{8, 8, NAN, 0}, Channel{8, 8, 0.8f, INFINITY},
                            Channel{4, 65536, 0.8f, 0}}) {
    EXPECT_THROW(ch05::check_channel(bad), std::invalid_argument) << bad.nx << " x " << bad.ny << ", tau " << bad.tau;
    for (const ch05::Step& step : ch05::steps())
      EXPECT_THROW(ch05::make_lattice(step, bad), std::invalid_argument) << step.source.id();
  }
  EXPECT_NO_THROW(ch05::check_channel({1, 1, 0.51f, 0}));
}

// The reference itself against the physics: mass exactly conserved (to round-off) and the
// parabola within 1% after the same run as the steps.
TEST(Reference, ConservesMassAndReachesTheParabola) {
  const Channel c = kPoiseuille;
  const ch05::State rest = ch05::state_at_rest(c);
  std::vector<double> f(rest.begin(), rest.end());
  ch05::ReferenceFields fields;
  ch05::reference_advance(c, f, kPoiseuilleSteps, &fields);
  double mass = 0;
  for (const double value : f) mass += value;
  EXPECT_NEAR(mass / mass_of(rest), 1, 1e-11);
  EXPECT_LT(profile_error({fields.ux.begin(), fields.ux.end()}, c), 0.01);
}

// The reference against the Taylor-Green vortex: the test that sees the equilibrium's quadratic
// terms (without them the advection is missing and the pressure is not balanced).
TEST(Reference, FollowsTheTaylorGreenVortex) {
  const Channel box = ch05::taylor_green_box(kVortexBox, 0.8f);
  const ch05::State start = ch05::taylor_green_state(box);
  std::vector<double> f(start.begin(), start.end());
  check_vortex(
      [&] {
        ch05::ReferenceFields fields;
        ch05::reference_advance(box, f, 1, &fields);
        return VortexFields{fields.ux, fields.uy};
      },
      "reference");
}

// The equilibrium's moments (lbm.hpp) for random rho and u, summed in float64: zeroth rho, first
// rho u, second rho cs^2 I + rho u u (cs^2 = 1/3). Each feq_k is a float, rounded by ~6e-8 of
// itself: sums of nine values below 1 are within 1e-6.
TEST(Equilibrium, HasTheMomentsOfTheContinuum) {
  const course::Seed seed = course::fresh_seed();
  SCOPED_TRACE(seed.describe());
  const std::vector<float> rho = course::random_floats(100, seed, 0, 0.8f, 1.2f);
  const std::vector<float> u = course::random_floats(200, seed, 1, -0.2f, 0.2f);
  for (std::size_t i = 0; i < rho.size(); ++i) {
    const ch05::Moments m{rho[i], u[2 * i], u[2 * i + 1]};
    double mass = 0, momentum[2] = {}, flux[2][2] = {};
    for (int k = 0; k < ch05::kDirections; ++k) {
      const double feq = ch05::equilibrium(k, m), e[2] = {double(ch05::velocity_x(k)), double(ch05::velocity_y(k))};
      mass += feq;
      for (int a = 0; a < 2; ++a) {
        momentum[a] += feq * e[a];
        for (int b = 0; b < 2; ++b) flux[a][b] += feq * e[a] * e[b];
      }
    }
    const double r = m.rho, velocity[2] = {m.ux, m.uy};
    EXPECT_NEAR(mass, r, 1e-6) << "rho " << r << ", u (" << m.ux << ", " << m.uy << ")";
    for (int a = 0; a < 2; ++a) {
      EXPECT_NEAR(momentum[a], r * velocity[a], 1e-6) << "axis " << a << ", rho " << r << ", u (" << m.ux << ", " << m.uy << ")";
      for (int b = 0; b < 2; ++b)
        EXPECT_NEAR(flux[a][b], r * ((a == b) / 3.0 + velocity[a] * velocity[b]), 1e-6)
            << "momentum flux " << a << b << ", rho " << r << ", u (" << m.ux << ", " << m.uy << ")";
    }
  }
}

// The paper's CPU schemes, on 1 and 3 threads, against the reference.
TEST(CpuSchemes, MatchTheReference) {
  const Channel c{37, 13, 0.8f, 1e-4f};
  const course::Seed seed = course::fresh_seed();
  SCOPED_TRACE(seed.describe());
  const ch05::State initial = ch05::random_state(c, seed);
  std::vector<double> expected(initial.begin(), initial.end());
  ch05::ReferenceFields expected_fields;
  ch05::reference_advance(c, expected, 20, &expected_fields);
  for (const auto addressing : {ch05::Addressing::linear, ch05::Addressing::subscript})
    for (const int threads : {1, 3}) {
      ch05::CpuScheme scheme(c, addressing, threads);
      scheme.load(initial);
      scheme.advance(20);
      SCOPED_TRACE((addressing == ch05::Addressing::linear ? "linear, " : "subscript, ") + std::to_string(threads) + " threads");
      EXPECT_TRUE(course::matches_reference(compare_state(scheme.store(), expected, c, tolerance(ch05::Storage::f32))));
      EXPECT_TRUE(course::matches_reference(scheme.ux(), expected_fields.ux, tolerance(ch05::Storage::f32),
                                            {std::size_t(c.ny), std::size_t(c.nx)}));
    }
}

}  // namespace
