// Chapter 2 tests: every step x every operator against the float64 reference on fresh random
// input, at sizes that cut the tiles and thin grids (dz = 1, dz = 2rz); the halo and padding of
// the output must stay untouched; every step against an analytic field; and every step refuses
// the grids it cannot handle.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/testing.hpp"
#include "steps.hpp"

namespace {

using course::DeviceBuffer;
using course::Grid;

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

// Halos as wide as the operator's radius, rows aligned to 32 floats as the benchmark's; one size
// gets wider, unequal halos and rows as packed as the step takes (step.row_align: 1, no padding).
template <class Op>
Grid grid_for(const ch02::Step& step, Size size) {
  const int r = Op::rx;
  if (size.dx == 3) return course::make_grid(size.dx, size.dy, size.dz, r + 2, r, r + 1, step.row_align);
  return course::make_grid(size.dx, size.dy, size.dz, r, r, r);
}

// Runs the step on `in` (the whole array) and returns the whole output array, prepared by
// course::poison_grid first.
std::vector<float> run(const ch02::Step& step, const Grid& g, const std::vector<float>& in) {
  DeviceBuffer<float> d_in{std::span<const float>(in)}, d_out(in.size());
  course::poison_grid(d_out, g);
  step.run(d_in.data(), d_out.data(), g);
  GPU_CHECK(gpuDeviceSynchronize());
  return d_out.to_host();
}

template <class Op>
void test_random(const ch02::Step& step, Size size, const course::Seed& seed) {
  const Grid g = grid_for<Op>(step, size);
  const std::vector<float> in = course::random_floats(g.size, seed);
  const std::vector<float> out = run(step, g, in);
  EXPECT_TRUE(course::matches_reference(course::compare_with_reference<Op>(in, out, g, ch02::tolerance<Op>())));
  EXPECT_TRUE(course::halo_untouched(out, g));
}

// On a polynomial of the degree the operator's differences are exact on, its result is known in
// closed form (Op::image) at every point (course::analytic_field).
template <class Op>
void test_analytic(const ch02::Step& step, const course::Seed& seed) {
  const Grid g = grid_for<Op>(step, {37, 29, 23});
  const course::AnalyticField field = course::analytic_field<Op>(g, seed);
  EXPECT_TRUE(course::matches_reference(course::interior(run(step, g, field.in), g), field.expected, field.tolerance,
                                        g.interior_extents()));
}

// A step refuses a grid it cannot run on, before any launch (the pointers are never dereferenced):
// halos narrower than the operator's radius, and, where it copies 16 bytes at a time, rows or an
// input that are not 16-byte aligned. That it runs right on the rows it takes, test_random shows.
template <class Op>
void test_refuses_bad_layouts(const ch02::Step& step) {
  const int r = Op::rx;
  EXPECT_THROW(step.run(nullptr, nullptr, course::make_grid(8, 8, 8, r - 1, r, r)), std::invalid_argument);
  EXPECT_THROW(step.run(nullptr, nullptr, course::make_grid(8, 8, 8, r, r, r - 1)), std::invalid_argument);
  if (step.row_align == 1) return;
  for (int align = 1; align < step.row_align; ++align)
    EXPECT_THROW(step.run(nullptr, nullptr, course::make_grid(8, 8, 8, r, r, r, align)), std::invalid_argument) << align;
  alignas(16) static float unused[8];
  EXPECT_THROW(step.run(unused + 1, unused, course::make_grid(8, 8, 8, r, r, r)), std::invalid_argument);
}

const bool registered = [] {
  course::for_each_type(ch02::Operators{}, []<class Op>() {
    for (const ch02::Step& step : ch02::steps<Op>()) {
      const std::string name = step.source.id() + "/" + Op::name;
      for (const Size size : kSizes)
        course::register_step_test(step.source, "Stencil", name + "/" + size.name(),
                                   [&step, size](const course::Seed& seed) { test_random<Op>(step, size, seed); });
      course::register_step_test(step.source, "AnalyticField", name,
                                 [&step](const course::Seed& seed) { test_analytic<Op>(step, seed); });
      course::register_step_test(step.source, "BadLayout", name,
                                 [&step](const course::Seed&) { test_refuses_bad_layouts<Op>(step); });
    }
  });
  return true;
}();

// The layout and the pass counts are host code: nothing to run again with shuffled threads.
const bool host_suites = course::suite_runs_on_host("Grid") && course::suite_runs_on_host("PlaneLoad");

TEST(Grid, RowsStartTheInteriorOnA128ByteBoundary) {
  const Grid g = course::make_grid(37, 5, 3, 2, 1, 2);
  EXPECT_EQ(g.pitch % 32, 0);
  EXPECT_GE(g.lead, g.hx);
  for (int z = -g.hz; z < g.dz + g.hz; ++z)
    for (int y = -g.hy; y < g.dy + g.hy; ++y) EXPECT_EQ(g.at(0, y, z) % 32, 0);
  EXPECT_EQ(g.at(-g.hx, -g.hy, -g.hz), g.lead - g.hx);
  EXPECT_LT(g.at(g.dx + g.hx - 1, g.dy + g.hy - 1, g.dz + g.hz - 1), g.size);
}

TEST(Grid, BadSizesAndHalosAreRejected) {
  EXPECT_THROW(course::make_grid(0, 4, 4, 1, 1, 1), std::invalid_argument);
  EXPECT_THROW(course::make_grid(4, 4, 4, -1, 1, 1), std::invalid_argument);
}

// The patent's coalesced plane load (step 04) as arithmetic. Bx x By threads, re-folded into rows
// as wide as the haloed tile (Rx = Bx + 2rx), read Ry = floor(Bx*By / Rx) whole rows a pass;
// the threads past the last whole row idle. The steps loop ceil(tile rows / Ry) passes. The
// patent loops w = ceil(Rx (By + 2ry) / (Bx*By)), which counts the tile's cells as if every
// thread read one each pass, and so falls short when the idle threads add up to a row.
struct PlaneLoad {
  int bx, by;      // threads
  int rows;        // rows of outputs in the tile: By in step 04, By x kRows from step 06
  int rx, ry;
  int width() const { return bx + 2 * rx; }
  int height() const { return rows + 2 * ry; }
  int rows_per_pass() const { return bx * by / width(); }
  int passes() const { return (height() + rows_per_pass() - 1) / rows_per_pass(); }
  int patent_passes() const { return (width() * height() + bx * by - 1) / (bx * by); }
  // Cells of the tile that `count` passes read: thread Ind reads column Ind % Rx of row
  // Ind / Rx + pass * Ry, if Ind / Rx is one of the first Ry rows and the row is in the tile.
  int cells_read(int count) const {
    std::vector<bool> read(static_cast<size_t>(width()) * height(), false);
    for (int pass = 0; pass < count; ++pass)
      for (int ind = 0; ind < bx * by; ++ind) {
        const int row = ind / width() + pass * rows_per_pass();
        if (ind / width() < rows_per_pass() && row < height())
          read[static_cast<size_t>(row) * width() + ind % width()] = true;
      }
    return static_cast<int>(std::count(read.begin(), read.end(), true));
  }
};

TEST(PlaneLoad, ThePatentsPassCountMissesARowOfNarrowBlocks) {
  // 32x2 threads, radius 1: rows of 34, so one row a pass and 30 threads idle; the tile has 4 rows.
  const PlaneLoad narrow{32, 2, 2, 1, 1};
  EXPECT_EQ(narrow.rows_per_pass(), 1);
  EXPECT_EQ(narrow.patent_passes(), 3);  // ceil(34 * 4 / 64)
  EXPECT_EQ(narrow.passes(), 4);
  EXPECT_EQ(narrow.cells_read(narrow.patent_passes()), 3 * 34);  // the tile's last row is never read
  EXPECT_EQ(narrow.cells_read(narrow.passes()), 4 * 34);
}

TEST(PlaneLoad, TheStepsPassCountCoversEveryTile) {
  for (const int bx : {8, 16, 32, 64, 128, 256})
    for (int by = 1; by <= 16; ++by)
      for (const int r : {1, 2, 4}) {
        const PlaneLoad load{bx, by, by, r, r};
        if (load.rows_per_pass() == 0) continue;  // fewer threads than a tile row: not this scheme
        SCOPED_TRACE(std::to_string(bx) + "x" + std::to_string(by) + " threads, radius " + std::to_string(r));
        EXPECT_EQ(load.cells_read(load.passes()), load.width() * load.height());
        EXPECT_GE(load.passes(), load.patent_passes());
      }
}

TEST(PlaneLoad, TheChaptersShapesNeedNoMoreThanThePatentsCount) {
  // Steps 04-09: 32x8 threads, tiles of 8 (04-05), 16 (06-07) or 32 (06-09) rows of outputs.
  for (const int rows : {8, 16, 32})
    for (const int r : {1, 2}) {
      const PlaneLoad load{32, 8, rows, r, r};
      SCOPED_TRACE(std::to_string(rows) + " rows, radius " + std::to_string(r));
      EXPECT_EQ(load.passes(), load.patent_passes());
      EXPECT_EQ(load.cells_read(load.passes()), load.width() * load.height());
    }
}

}  // namespace
