// Chapter 4 tests: every step against the float64 reference, within the error model of
// reference.hpp, on fresh random atoms, at grid sizes that are not multiples of a block (16 x
// 16 threads) or of the points a thread covers (128 or 256 along x, 64 along y), with atom
// counts of 0, 1, fewer than a constant-memory chunk (4096), exactly one, and several, planted
// atoms at the chunk and tile boundaries, a spacing that makes coordinates round; an atom on a
// grid point; and step 06's three reciprocal square roots against 1/sqrt in float64.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
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
  float spacing = 0.5f;
  bool planted = false;  // atoms at the chunk and tile boundaries placed close above grid points
  std::string name() const {
    return std::to_string(nx) + "x" + std::to_string(ny) + "_" + std::to_string(atoms) + "_atoms" +
           (spacing != 0.5f ? "_spacing_" + std::to_string(int(spacing * 100)) : "") + (planted ? "_planted" : "");
  }
};

// Many atoms only on small grids: the CPU backend runs every evaluation as a fiber's work. A
// spacing of 0.5 makes the grid's coordinates exact; 0.37 makes them round.
const Case kCases[] = {
    {1, 1, 0},     {1, 1, 1},      {7, 5, 7},       {33, 17, 0},    {33, 17, 1},           {33, 17, 1000},
    {33, 17, 4096}, {33, 17, 4097}, {20, 3, 8193},   {130, 70, 300}, {300, 9, 1000},        {257, 33, 64},
    {300, 9, 4097}, {57, 19, 500, 0.37f},           {40, 12, 8193, 0.5f, true},
};

// Each atom at a boundary of a shared tile (256) or a constant-memory chunk (4096) sits half a
// spacing above its own grid point, where its term, 2/h, outweighs the rest: a step that drops
// or repeats it fails there.
void plant(std::vector<ch04::Atom>& atoms, const ch04::Slice& slice) {
  int point = 0;
  for (const int index : {0, 255, 256, 4095, 4096, 8191, 8192}) {
    if (index >= int(atoms.size())) continue;
    const int i = 1 + 5 * point % (slice.nx - 2), j = 1 + 3 * point % (slice.ny - 2);
    atoms[index] = {i * slice.spacing, j * slice.spacing, slice.z + 0.5f * slice.spacing, 1.0f};
    ++point;
  }
}

void test_step(ch04::PotentialFn potential, Case c, const course::Seed& seed) {
  const ch04::Slice slice{c.nx, c.ny, c.spacing, 1.25f};
  std::vector<ch04::Atom> raw = ch04::random_atoms(c.atoms, slice, seed);
  if (c.planted) plant(raw, slice);
  const std::vector<ch04::SliceAtom> atoms = ch04::atoms_on_slice(raw, slice.z);
  DeviceBuffer<ch04::SliceAtom> d_atoms(std::max<std::size_t>(atoms.size(), 1));
  if (!atoms.empty()) d_atoms.copy_from(atoms);
  DeviceBuffer<float> d_out(std::size_t(c.nx) * c.ny);
  d_out.poison();
  potential(d_atoms.data(), c.atoms, d_out.data(), slice);
  GPU_CHECK(gpuDeviceSynchronize());
  EXPECT_TRUE(course::matches_reference(ch04::check_potential(atoms, d_out.to_host(), slice)));
}

// An atom exactly on a grid point (here the coordinates are exact: h = 0.5) gives that point
// 1/0: inf from the hardware root, a large finite number (above 1e19) from step 06's root on the
// FMA pipe. Every other point is as usual.
void test_atom_on_a_grid_point(ch04::PotentialFn potential, const course::Seed& seed) {
  const ch04::Slice slice{33, 17, 0.5f, 1.25f};
  std::vector<ch04::Atom> raw = ch04::random_atoms(20, slice, seed);
  raw[7] = {3 * slice.spacing, 2 * slice.spacing, slice.z, 1.0f};
  const std::vector<ch04::SliceAtom> atoms = ch04::atoms_on_slice(raw, slice.z);
  DeviceBuffer<ch04::SliceAtom> d_atoms{std::span<const ch04::SliceAtom>(atoms)};
  DeviceBuffer<float> d_out(std::size_t(slice.nx) * slice.ny);
  d_out.poison();
  potential(d_atoms.data(), int(atoms.size()), d_out.data(), slice);
  GPU_CHECK(gpuDeviceSynchronize());
  const std::vector<float> out = d_out.to_host();
  const std::size_t on_atom = 2 * slice.nx + 3;
  EXPECT_TRUE(std::isinf(out[on_atom]) || out[on_atom] > 1e19f) << "the point on the atom holds " << out[on_atom];
  course::Comparison others;
  others.extents = {std::size_t(slice.ny), std::size_t(slice.nx)};
  others.per_element_bounds = true;
  for (int j = 0; j < slice.ny; ++j)
    for (int i = 0; i < slice.nx; ++i) {
      const std::size_t index = std::size_t(j) * slice.nx + i;
      if (index == on_atom) continue;
      const ch04::ReferencePoint ref = ch04::reference_at(atoms, slice, i, j);
      others.check_within(index, out[index], ref.potential, ref.bound);
    }
  EXPECT_TRUE(course::matches_reference(others));
}

const bool registered = [] {
  for (const ch04::Step& step : ch04::steps()) {
    for (const Case c : kCases)
      course::register_step_test(step.source, "Potential", step.source.id() + "/" + c.name(),
                                 [run = step.run, c](const course::Seed& seed) { test_step(run, c, seed); });
    course::register_step_test(step.source, "AtomOnAGridPoint", step.source.id(),
                               [run = step.run](const course::Seed& seed) { test_atom_on_a_grid_point(run, seed); });
  }
  return true;
}();

// Step 06's reciprocal square roots on the FMA pipe, over every float of [1, 4) (since the bit
// trick halves the exponent, that stands for every normal float) and at those mantissas scaled
// by powers of 4 across the range of squared distances. Returns the largest relative error.
double worst_relative_error(float (*root)(float), const char* name) {
  double worst = 0;
  float worst_at = 0;
  auto check = [&](float x) {
    const double error = std::abs(root(x) * std::sqrt(double{x}) - 1.0);
    if (!(error <= worst)) worst = error, worst_at = x;  // a NaN is kept as the worst
  };
  for (std::uint32_t bits = course::float_bits(1.0f); bits < course::float_bits(4.0f); ++bits)
    check(course::float_from_bits(bits));
  for (std::uint32_t bits = course::float_bits(1.0f); bits < course::float_bits(4.0f); bits += 997)
    for (const float scale : {0x1p-60f, 0x1p-20f, 0x1p-6f, 0x1p10f, 0x1p40f}) check(course::float_from_bits(bits) * scale);
  std::printf("step 06's %s: largest relative error %.3g (at x = %.9g)\n", name, worst, worst_at);
  return worst;
}

// The software roots are written in step 06's file, so grading step 06 runs these tests too.
const bool roots_are_step_06 =
    course::suite_tests_step("SoftwareRsqrt", COURSE_STEP_SOURCE(06_split_pipes, split_1_of_8));

// They run on the host: nothing to run again with shuffled threads.
const bool roots_run_on_host = course::suite_runs_on_host("SoftwareRsqrt");

// The polynomial root, which the split kernels use, within the error the PTX ISA documents for
// the instruction it stands in for, rsqrt.approx.f32: 2^-22.9 relative.
TEST(SoftwareRsqrt, PolynomialIsWithinTheHardwareInstructionsError) {
  SCOPED_TRACE(course::edit_hint(COURSE_STEP_SOURCE(06_split_pipes, split_1_of_8)));
  EXPECT_LE(worst_relative_error(ch04::rsqrt_on_fma_pipe, "polynomial root"), std::exp2(-22.9));
}

// Three Newton steps, measured beside it: within rsqrtf's documented 2 ulp (2^-22 relative),
// not within the instruction's 2^-22.9.
TEST(SoftwareRsqrt, NewtonIsWithinRsqrtfsError) {
  SCOPED_TRACE(course::edit_hint(COURSE_STEP_SOURCE(06_split_pipes, split_1_of_8_newton)));
  EXPECT_LE(worst_relative_error(ch04::rsqrt_newton_on_fma_pipe, "Newton root"), 0x1p-22);
}

// The fitted (minimax) polynomial, one instruction cheaper, within the same 2^-22.9.
TEST(SoftwareRsqrt, MinimaxIsWithinTheHardwareInstructionsError) {
  SCOPED_TRACE(course::edit_hint(COURSE_STEP_SOURCE(06_split_pipes, split_6_of_32_minimax)));
  EXPECT_LE(worst_relative_error(ch04::rsqrt_minimax_on_fma_pipe, "minimax root"), std::exp2(-22.9));
}

}  // namespace
