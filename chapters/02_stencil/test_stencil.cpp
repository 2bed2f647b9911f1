// Chapter 2 tests: every step x every stencil against the float64 reference on fresh random
// input, at sizes that cut the 32x8 tiles and thin grids (dz = 1, dz = 2rz); the halo and
// padding of the output must stay untouched; and every step against analytic fields.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/testing.hpp"
#include "reference.hpp"
#include "stencils.hpp"

namespace {

using course::DeviceBuffer;
using ch02::Grid;

struct Size {
  int dx, dy, dz;
  std::string name() const { return std::to_string(dx) + "x" + std::to_string(dy) + "x" + std::to_string(dz); }
};

// 32x8 is the tile; 1x1x1 the degenerate grid; dz = 1, 2 and 4 the thin ones (2rz for r = 1, 2);
// dz = 70 crosses the z-chunks of steps 07-08 (32 and 64 planes); 70x40 leaves whole 32x32
// tiles inside the array, which step 08 loads without bounds checks; 37 and 70 also cut step
// 10's 64-wide tiles, whose 16-byte copies then run past the end of a row's storage, and 300
// puts two of step 11's 256-wide tiles side by side, the second cut.
constexpr std::array kSizes{Size{1, 1, 1},  Size{37, 29, 23}, Size{64, 16, 8},  Size{33, 9, 1},   Size{40, 12, 2},
                            Size{35, 10, 4}, Size{3, 70, 6},   Size{20, 9, 70},  Size{70, 40, 9},  Size{300, 5, 3}};

std::string edit_hint(std::string_view source) { return "step source: " COURSE_TRACK "/" + std::string(source); }

// The radius of the step's stencil, from its name; every grid gets halos of that width, and one
// size gets wider, unequal ones.
int radius_of(std::string_view stencil) { return stencil == "compound_r2" ? 2 : 1; }
Grid grid_for(const ch02::Step& step, Size size) {
  const int r = radius_of(step.stencil);
  if (size.dx == 3) return ch02::make_grid(size.dx, size.dy, size.dz, r + 2, r, r + 1);
  return ch02::make_grid(size.dx, size.dy, size.dz, r, r, r);
}

double weight_sum(std::string_view stencil) {
  auto sum = [](auto stencil) {
    using S = decltype(stencil);
    double total = 0;
    for (int k = -S::rz; k <= S::rz; ++k)
      for (int j = -S::ry; j <= S::ry; ++j)
        for (int i = -S::rx; i <= S::rx; ++i) total += std::abs(S::weight(i, j, k));
    return total;
  };
  if (stencil == "star7") return sum(ch02::Star7{});
  if (stencil == "box27") return sum(ch02::Box27{});
  if (stencil == "compound_r1") return sum(ch02::CompoundR1{});
  return sum(ch02::CompoundR2{});
}

std::vector<double> reference_for(std::string_view stencil, const std::vector<float>& in, const Grid& g) {
  if (stencil == "star7") return ch02::reference<ch02::Star7>(in, g);
  if (stencil == "box27") return ch02::reference<ch02::Box27>(in, g);
  if (stencil == "compound_r1") return ch02::reference<ch02::CompoundR1>(in, g);
  return ch02::reference<ch02::CompoundR2>(in, g);
}

double image_for(std::string_view stencil, const ch02::Polynomial& p, double x, double y, double z) {
  if (stencil == "star7") return p.image<ch02::Star7>(x, y, z);
  if (stencil == "box27") return p.image<ch02::Box27>(x, y, z);
  if (stencil == "compound_r1") return p.image<ch02::CompoundR1>(x, y, z);
  return p.image<ch02::CompoundR2>(x, y, z);
}

// Runs the step on `in` (the whole array) and returns the whole output array, poisoned first.
std::vector<float> run(const ch02::Step& step, const Grid& g, const std::vector<float>& in) {
  DeviceBuffer<float> d_in{std::span<const float>(in)}, d_out(in.size());
  d_out.poison();
  step.run(d_in.data(), d_out.data(), g);
  GPU_CHECK(gpuDeviceSynchronize());
  return d_out.to_host();
}

std::vector<float> interior(const std::vector<float>& array, const Grid& g) {
  std::vector<float> dense;
  dense.reserve(size_t(g.dx) * g.dy * g.dz);
  for (int z = 0; z < g.dz; ++z)
    for (int y = 0; y < g.dy; ++y)
      for (int x = 0; x < g.dx; ++x) dense.push_back(array[g.at(x, y, z)]);
  return dense;
}

// Every element outside the interior must still hold the poison (all bits set).
::testing::AssertionResult halo_untouched(const std::vector<float>& array, const Grid& g) {
  std::vector<char> is_interior(array.size(), 0);
  for (int z = 0; z < g.dz; ++z)
    for (int y = 0; y < g.dy; ++y)
      for (int x = 0; x < g.dx; ++x) is_interior[g.at(x, y, z)] = 1;
  size_t touched = 0, first = 0;
  for (size_t n = 0; n < array.size(); ++n) {
    std::uint32_t bits;
    std::memcpy(&bits, &array[n], sizeof bits);
    if (!is_interior[n] && bits != 0xffffffffu && touched++ == 0) first = n;
  }
  if (touched == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << touched << " elements outside the interior were written, the first at array index "
                                       << first << " " << course::coordinates(first, std::vector<size_t>{size_t(g.dz + 2 * g.hz), size_t(g.dy + 2 * g.hy), size_t(g.pitch)})
                                       << " (z, y, x in the array, halo included)";
}

void check_random(const ch02::Step& step, Size size, const course::Seed& seed) {
  SCOPED_TRACE(edit_hint(step.source));
  const Grid g = grid_for(step, size);
  const std::vector<float> in = course::random_floats(g.size, seed);
  const std::vector<float> out = run(step, g, in);
  const double scale = weight_sum(step.stencil);  // |out| <= sum |w| for inputs in [-1, 1]
  EXPECT_TRUE(course::matches_reference(interior(out, g), reference_for(step.stencil, in, g), {2e-6 * scale, 1e-5},
                                        {size_t(g.dz), size_t(g.dy), size_t(g.dx)}));
  EXPECT_TRUE(halo_untouched(out, g));
}

void check_analytic(const ch02::Step& step, const course::Seed& seed) {
  SCOPED_TRACE(edit_hint(step.source));
  const Grid g = grid_for(step, {37, 29, 23});
  std::mt19937 engine(static_cast<std::uint32_t>(seed.value));
  std::uniform_real_distribution<double> uniform(-1, 1);
  const ch02::Polynomial p{1e-2 * uniform(engine), 1e-2 * uniform(engine), 1e-2 * uniform(engine), 1e-2 * uniform(engine),
                           1e-2 * uniform(engine), 1e-2 * uniform(engine), 1e-1 * uniform(engine), 1e-1 * uniform(engine),
                           1e-1 * uniform(engine), uniform(engine), 1e-3 * uniform(engine)};
  // Coordinates from the interior's centre keep the field small where float rounds it.
  auto centred = [&](int x, int y, int z) {
    return std::array{x - (g.dx - 1) / 2.0, y - (g.dy - 1) / 2.0, z - (g.dz - 1) / 2.0};
  };
  std::vector<float> in(g.size, 0.0f);
  double largest = 0;
  for (int z = -g.hz; z < g.dz + g.hz; ++z)
    for (int y = -g.hy; y < g.dy + g.hy; ++y)
      for (int x = -g.hx; x < g.dx + g.hx; ++x) {
        const auto [cx, cy, cz] = centred(x, y, z);
        in[g.at(x, y, z)] = static_cast<float>(p.value(cx, cy, cz));
        largest = std::max(largest, std::abs(p.value(cx, cy, cz)));
      }
  std::vector<double> expected;
  for (int z = 0; z < g.dz; ++z)
    for (int y = 0; y < g.dy; ++y)
      for (int x = 0; x < g.dx; ++x) {
        const auto [cx, cy, cz] = centred(x, y, z);
        expected.push_back(image_for(step.stencil, p, cx, cy, cz));
      }
  // The field is stored in float: its rounding (relative 6e-8 of `largest`) is what the
  // stencil's weights amplify.
  const double atol = 4e-7 * largest * weight_sum(step.stencil);
  EXPECT_TRUE(course::matches_reference(interior(run(step, g, in), g), expected, {atol, 1e-5},
                                        {size_t(g.dz), size_t(g.dy), size_t(g.dx)}));
}

const bool registered = [] {
  for (const auto& step : ch02::steps()) {
    const std::string name = std::string(step.id) + "/" + std::string(step.stencil);
    for (const Size size : kSizes) {
      course::register_device_test("Stencil", name + "/" + size.name(),
                                   [&step, size](const course::Seed& seed) { check_random(step, size, seed); });
    }
    course::register_device_test("AnalyticField", name, [&step](const course::Seed& seed) { check_analytic(step, seed); });
  }
  return true;
}();

TEST(Grid, RowsStartTheInteriorOnA128ByteBoundary) {
  const Grid g = ch02::make_grid(37, 5, 3, 2, 1, 2);
  EXPECT_EQ(g.pitch % 32, 0);
  EXPECT_GE(g.lead, g.hx);
  for (int z = -g.hz; z < g.dz + g.hz; ++z)
    for (int y = -g.hy; y < g.dy + g.hy; ++y) EXPECT_EQ(g.at(0, y, z) % 32, 0);
  EXPECT_EQ(g.at(-g.hx, -g.hy, -g.hz), g.lead - g.hx);
  EXPECT_LT(g.at(g.dx + g.hx - 1, g.dy + g.hy - 1, g.dz + g.hz - 1), g.size);
}

TEST(Grid, BadSizesAndHalosAreRejected) {
  EXPECT_THROW(ch02::make_grid(0, 4, 4, 1, 1, 1), std::invalid_argument);
  EXPECT_THROW(ch02::make_grid(4, 4, 4, -1, 1, 1), std::invalid_argument);
  const Grid thin_halo = ch02::make_grid(8, 8, 8, 1, 1, 1);
  EXPECT_THROW(ch02::stencil_naive<ch02::CompoundR2>(nullptr, nullptr, thin_halo), std::invalid_argument);
  // Steps 10 and 11 copy 16 bytes at a time; they refuse an input that is not 16-byte aligned
  // (checked before any launch: the pointers are never dereferenced).
  alignas(16) static float unused[8];
  EXPECT_THROW(ch02::stencil_async_copy<ch02::Box27>(unused + 1, unused, thin_halo), std::invalid_argument);
  EXPECT_THROW(ch02::stencil_wide_tiles<ch02::Box27>(unused + 1, unused, thin_halo), std::invalid_argument);
}

}  // namespace
