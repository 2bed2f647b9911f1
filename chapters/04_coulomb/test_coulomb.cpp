// Chapter 4 tests: every step against the float64 reference, within the error model of
// reference.hpp, on fresh random atoms, at grid sizes that are not multiples of a block (16 x
// 16 threads) or of the points a thread covers (128 or 256 along x), with atom counts of 0, 1,
// fewer than a constant-memory chunk (4096), exactly one, and several chunks; and step 06's
// reciprocal square root against 1/sqrt in float64.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/testing.hpp"
#include "reference.hpp"
#include "steps.hpp"

namespace {

using course::DeviceBuffer;

struct Case {
  int nx, ny, atoms;
  std::string name() const { return std::to_string(nx) + "x" + std::to_string(ny) + "_" + std::to_string(atoms) + "_atoms"; }
};

// Many atoms only on small grids: the CPU backend runs every evaluation as a fiber's work.
constexpr Case kCases[] = {
    {1, 1, 0},     {1, 1, 1},     {7, 5, 7},     {33, 17, 0},   {33, 17, 1},     {33, 17, 1000},
    {33, 17, 4096}, {33, 17, 4097}, {20, 3, 8193}, {130, 70, 300}, {300, 9, 1000}, {257, 33, 64},
};

void test_step(ch04::PotentialFn potential, Case c, const course::Seed& seed) {
  const ch04::Slice slice{c.nx, c.ny, 0.5f, 1.25f};
  const std::vector<ch04::SliceAtom> atoms = ch04::atoms_on_slice(ch04::random_atoms(c.atoms, slice, seed), slice.z);
  DeviceBuffer<ch04::SliceAtom> d_atoms(std::max<std::size_t>(atoms.size(), 1));
  if (!atoms.empty()) d_atoms.copy_from(atoms);
  DeviceBuffer<float> d_out(std::size_t(c.nx) * c.ny);
  d_out.poison();
  potential(d_atoms.data(), c.atoms, d_out.data(), slice);
  GPU_CHECK(gpuDeviceSynchronize());
  EXPECT_TRUE(course::matches_reference(ch04::check_potential(atoms, d_out.to_host(), slice)));
}

const bool registered = [] {
  for (const ch04::Step& step : ch04::steps())
    for (const Case c : kCases)
      course::register_step_test(step.source, "Potential", step.source.id() + "/" + c.name(),
                                 [run = step.run, c](const course::Seed& seed) { test_step(run, c, seed); });
  return true;
}();

// Step 06's reciprocal square root: within the hardware instruction's 2 ulp (2^-22 relative) on
// every 31st float of [1, 4) and, since the bit trick halves the exponent, on the same
// mantissas scaled by powers of 4 across the range of squared distances.
TEST(SoftwareRsqrt, IsWithinTheHardwareInstructionsError) {
  SCOPED_TRACE(course::edit_hint(COURSE_STEP_SOURCE(06_split_pipes, split_1_of_8)));
  double worst = 0;
  float worst_at = 0;
  for (std::uint32_t bits = course::float_bits(1.0f); bits < course::float_bits(4.0f); bits += 31) {
    for (const float scale : {1e-6f, 1.0f / 64, 1.0f, 4096.0f, 1e12f}) {
      const float x = course::float_from_bits(bits) * scale;
      const double error = std::abs(ch04::rsqrt_on_fma_pipe(x) * std::sqrt(double{x}) - 1.0);
      if (!(error <= worst)) worst = error, worst_at = x;  // a NaN is kept as the worst
    }
  }
  EXPECT_LE(worst, 0x1p-22) << "largest relative error " << worst << " at x = " << worst_at;
}

}  // namespace
