// Chapter 3 tests: every step against the float64 reference on fresh random input, at sizes that
// cut every tile, vector and z-chunk and at thin grids (dz < 2R + 1); the halo and padding of the
// output must stay untouched; and every step against a polynomial its differences are exact on.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "copy_ceiling.hpp"
#include "course/testing.hpp"
#include "fdtd3d_peer.hpp"
#include "steps.hpp"

namespace {

using ch03::Laplacian8;
using course::DeviceBuffer;
using course::Grid;

struct Size {
  int dx, dy, dz;
  std::string name() const { return std::to_string(dx) + "x" + std::to_string(dy) + "x" + std::to_string(dz); }
};

// The tiles: 64x4 threads of one float (steps 00-03) or of 4 floats (steps 03-04: 256 wide),
// 32x8 float4s (steps 04-10: 128 x 8 points, 128 x 16 with step 10's two rows a thread); the
// z-chunks: 64 planes (steps 02-05), 16, 64 or 256 (step 06), 64 to 512 (step 08), 64 and 128 (step 10). 1x1x1 is the degenerate grid; dz = 1, 2, 5 and 6 are thinner than the 9-point
// window; 131 and 258 cut the 128- and 256-wide tiles and leave 3 and 2 floats of a last float4;
// dz = 70 cuts the 16- and 64-plane chunks (and is one partial 256-plane chunk); dz = 515 cuts
// step 08's 128-, 256- and 512-plane chunks (and step 10's 128), 3 planes past a whole number of each; 3 x 70 puts
// the tile's y-halo past both ends and gets wider, unequal halos (grid_for).
constexpr std::array kSizes{Size{1, 1, 1},  Size{37, 29, 23}, Size{131, 9, 5},  Size{258, 3, 2},
                            Size{3, 70, 6}, Size{21, 11, 70}, Size{64, 16, 1}, Size{5, 4, 515}};

Grid grid_for(Size size, int align) {
  if (size.dx == 3) return course::make_grid(size.dx, size.dy, size.dz, 6, 5, 7, align);
  return course::make_grid(size.dx, size.dy, size.dz, ch03::kRadius, ch03::kRadius, ch03::kRadius, align);
}

// Runs a step (or a peer) on `in` (the whole array) and returns the whole output array, prepared
// by course::poison_grid first.
std::vector<float> run(ch03::LaplacianFn laplacian, const Grid& g, const std::vector<float>& in) {
  DeviceBuffer<float> d_in{std::span<const float>(in)}, d_out(in.size());
  course::poison_grid(d_out, g);
  laplacian(d_in.data(), d_out.data(), g);
  GPU_CHECK(gpuDeviceSynchronize());
  return d_out.to_host();
}

void test_random(const ch03::Step& step, Size size, const course::Seed& seed) {
  const Grid g = grid_for(size, step.align);
  const std::vector<float> in = course::random_floats(g.size, seed);
  const std::vector<float> out = run(step.run, g, in);
  EXPECT_TRUE(course::matches_reference(course::compare_with_reference<Laplacian8>(in, out, g, ch03::tolerance())));
  EXPECT_TRUE(course::halo_untouched(out, g));
}

// On a polynomial of degree 9 in each variable the 8th-order differences are exact: the result
// is the polynomial's Laplacian at every point (course::analytic_field, as in chapter 2).
void test_analytic(const ch03::Step& step, const course::Seed& seed) {
  const Grid g = grid_for({21, 13, 11}, step.align);  // small: the polynomial costs ~1000 terms a point
  const course::AnalyticField field = course::analytic_field<Laplacian8>(g, seed);
  EXPECT_TRUE(course::matches_reference(course::interior(run(step.run, g, field.in), g), field.expected, field.tolerance,
                                        g.interior_extents()));
}

// A step refuses a grid it cannot run on, before any launch: halos narrower than the radius, and,
// past step 00, rows not aligned to 64 floats. The buffers are real, so a step that does not
// refuse fails here, saying so, rather than crashing in whatever it calls.
void expect_refused(const ch03::Step& step, const Grid& g, const char* what) {
  DeviceBuffer<float> in(g.size), out(g.size);
  in.poison();
  try {
    step.run(in.data(), out.data(), g);
  } catch (const std::invalid_argument&) {
    return;
  }
  GPU_CHECK(gpuDeviceSynchronize());
  ADD_FAILURE() << step.source.id() << " did not refuse " << what << " (std::invalid_argument before any launch)";
}

void test_refuses_bad_layouts(const ch03::Step& step) {
  if (step.align > 1)
    expect_refused(step, course::make_grid(8, 8, 8, 4, 4, 4, 1), "a packed grid, rows not aligned to 64 floats");
  expect_refused(step, course::make_grid(8, 8, 8, 3, 4, 4, step.align), "a grid whose x-halo (3) is narrower than the radius (4)");
}

const bool registered = [] {
  for (const ch03::Step& step : ch03::steps()) {
    course::register_step_test(step.source, "BadLayout", step.source.id(),
                               [&step](const course::Seed&) { test_refuses_bad_layouts(step); });
    for (const Size size : kSizes)
      course::register_step_test(step.source, "Laplacian", step.source.id() + "/" + size.name(),
                                 [&step, size](const course::Seed& seed) { test_random(step, size, seed); });
    course::register_step_test(step.source, "AnalyticField", step.source.id(),
                               [&step](const course::Seed& seed) { test_analytic(step, seed); });
  }
  return true;
}();

// The benchmark's structural copies (copy_ceiling.hpp) leave exactly the input in the interior,
// at every size the steps are tested at, and the halo untouched.
class CopyCeiling : public course::DeviceTest {};

TEST_F(CopyCeiling, CopiesTheInteriorThroughEachStructure) {
  const course::Seed seed = course::fresh_seed();
  SCOPED_TRACE(seed.describe());
  for (const auto copy : {ch03::copy_through_prefetch, ch03::copy_through_async_ring, ch03::copy_through_prefetch_at_step_occupancy,
                          ch03::copy_through_async_ring_at_step_occupancy}) {
    for (const Size size : kSizes) {
      SCOPED_TRACE(size.name());
      const Grid g = grid_for(size, 64);
      const std::vector<float> in = course::random_floats(g.size, seed);
      DeviceBuffer<float> d_in{std::span<const float>(in)}, d_out(in.size());
      course::poison_grid(d_out, g);
      copy(d_in.data(), d_out.data(), g);
      GPU_CHECK(gpuDeviceSynchronize());
      const std::vector<float> out = d_out.to_host();
      EXPECT_EQ(course::interior(out, g), course::interior(in, g));
      EXPECT_TRUE(course::halo_untouched(out, g));
    }
  }
}

// The benchmark's FDTD3d peer (fdtd3d_peer.hpp) computes what the steps compute, at their sizes.
class Fdtd3dDesign : public course::DeviceTest {};

TEST_F(Fdtd3dDesign, MatchesTheReferenceAndLeavesTheHalo) {
  const course::Seed seed = course::fresh_seed();
  SCOPED_TRACE(seed.describe());
  for (const Size size : kSizes) {
    SCOPED_TRACE(size.name());
    const Grid g = grid_for(size, 64);
    const std::vector<float> in = course::random_floats(g.size, seed);
    const std::vector<float> out = run(ch03::laplacian_fdtd3d_design, g, in);
    EXPECT_TRUE(course::matches_reference(course::compare_with_reference<Laplacian8>(in, out, g, ch03::tolerance())));
    EXPECT_TRUE(course::halo_untouched(out, g));
  }
}

const bool layout_runs_on_host = course::suite_runs_on_host("Layout");

TEST(Layout, AlignedRowsStartOn256ByteBoundaries) {
  const Grid g = course::make_grid(37, 5, 3, 4, 4, 4, 64);
  EXPECT_EQ(g.pitch % 64, 0);
  for (int y = -g.hy; y < g.dy + g.hy; ++y) EXPECT_EQ(g.at(0, y, 1) % 64, 0);
}

}  // namespace
