// Chapter 2 tests: first the parts of steps that can be checked alone (parts.hpp: a tile load,
// the queue of planes, ...), each named by the grader when it fails; then every step x every
// operator against the float64 reference on fresh random input, at sizes that cut the tiles and
// thin grids (dz = 1, dz = 2rz); the halo and padding of the output must stay untouched; every
// step against an analytic field; and every step refuses the grids it cannot handle.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/testing.hpp"
#include "parts.hpp"
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

// ---- The parts, each checked alone ------------------------------------------------------------
// Registered before the whole steps' tests, so that a step's part tests run first and the grader
// names the part ("edit exercises/02_stencil/03_circular_queue.cu: part 2 (prime the queue): ...").

// The taught variant of a step file (the same source for every operator).
const course::StepSource& taught(std::string_view file) {
  for (const ch02::Step& step : ch02::steps<ch02::Box27>())
    if (step.source.file == file && !step.source.experiment) return step.source;
  throw std::logic_error("no taught step " + std::string(file));
}

// A buffer for a probe to write, every element a quiet NaN until it does.
DeviceBuffer<float> unwritten(std::size_t count) {
  const std::vector<float> nan(count, std::numeric_limits<float>::quiet_NaN());
  return DeviceBuffer<float>{std::span<const float>(nan)};
}

// Grids for the parts: one that cuts the tiles at both edges, one with wider, unequal halos and
// packed rows (a tile's halo then reaches points that are in the array's halo, not in the padding).
template <class Op>
std::array<Grid, 2> part_grids() {
  const int r = Op::rx;
  return {course::make_grid(37, 29, 5, r, r, r), course::make_grid(3, 70, 3, r + 2, r, r + 1, 1)};
}

// Every cell of every block's tile of plane z as a tile load must leave it: in(x, y, z) where
// (x, y, z) is in the array, halo included, and 0 outside it.
::testing::AssertionResult tiles_match(const std::vector<float>& in, const std::vector<float>& tiles, const Grid& g,
                                       const ch02::parts::Tile& t, int z) {
  const int blocks_x = course::blocks_for(g.dx, t.outputs_x), blocks_y = course::blocks_for(g.dy, t.outputs_y);
  for (int by = 0; by < blocks_y; ++by)
    for (int bx = 0; bx < blocks_x; ++bx)
      for (int ly = 0; ly < t.height; ++ly)
        for (int lx = 0; lx < t.width; ++lx) {
          const int x = bx * t.outputs_x - t.left + lx, y = by * t.outputs_y - t.top + ly;
          const float expected = g.in_array(x, y, z) ? in[g.at(x, y, z)] : 0.0f;
          const float got = tiles[((static_cast<std::size_t>(by) * blocks_x + bx) * t.height + ly) * t.width + lx];
          if (!(got == expected))
            return ::testing::AssertionFailure()
                   << "the tile of block (" << bx << ", " << by << ") for plane z = " << z << ", row " << ly << " column "
                   << lx << " (the point x = " << x << ", y = " << y << "): got " << got << ", expected " << expected
                   << (g.in_array(x, y, z) ? "" : " (outside the array: 0)") << "; a " << t.width << " x " << t.height
                   << " tile whose outputs start " << t.left << " columns and " << t.top << " rows in";
        }
  return ::testing::AssertionSuccess();
}

// A tile load (load(in, tiles, grid, z)) on both part grids, for the first plane a block reads,
// an inner one and the last.
template <class Op, class Load>
void test_tile_load(const ch02::parts::Tile& t, Load load, const course::Seed& seed) {
  for (const Grid& g : part_grids<Op>()) {
    const std::vector<float> in = course::random_floats(g.size, seed);
    const DeviceBuffer<float> d_in{std::span<const float>(in)};
    const std::size_t count = static_cast<std::size_t>(course::blocks_for(g.dx, t.outputs_x)) *
                              course::blocks_for(g.dy, t.outputs_y) * t.width * t.height;
    for (const int z : {-Op::rz, 1, g.dz - 1 + Op::rz}) {
      DeviceBuffer<float> tiles = unwritten(count);
      load(d_in.data(), tiles.data(), g, z);
      GPU_CHECK(gpuDeviceSynchronize());
      if (const ::testing::AssertionResult match = tiles_match(in, tiles.to_host(), g, t, z); !match)
        FAIL() << match.message();
    }
  }
}

// Which plane of the column (x, y) holds `value`, for a message: "plane 3", or "no plane".
std::string plane_of(const std::vector<float>& in, const Grid& g, int x, int y, float value) {
  for (int z = -g.hz; z < g.dz + g.hz; ++z)
    if (in[g.at(x, y, z)] == value) return "plane " + std::to_string(z) + "'s value";
  return value == 0.0f ? "0" : "no plane's value";
}

// Step 03's queue (parts.hpp, queue_03): part 2 checks what priming leaves (slots 1 .. 2rz at
// z = -1), part 3 what every advance leaves (slot q holds plane z - rz + q at output plane z).
template <class Op>
void test_queue(int part, const course::Seed& seed) {
  constexpr int kPlanes = 2 * Op::rz + 1;
  const Grid g = course::make_grid(37, 29, 6, Op::rx, Op::ry, Op::rz);
  const std::vector<float> in = course::random_floats(g.size, seed);
  const DeviceBuffer<float> d_in{std::span<const float>(in)};
  DeviceBuffer<float> d_seen = unwritten(kPlanes * g.size);
  ch02::parts::queue_03<Op>(d_in.data(), d_seen.data(), g);
  GPU_CHECK(gpuDeviceSynchronize());
  const std::vector<float> seen = d_seen.to_host();
  for (int z = part == 2 ? -1 : 0; z < (part == 2 ? 0 : g.dz); ++z)
    for (int q = z < 0 ? 1 : 0; q < kPlanes; ++q)
      for (int y = 0; y < g.dy; ++y)
        for (int x = 0; x < g.dx; ++x) {
          const float got = seen[q * g.size + g.at(x, y, z)], expected = in[g.at(x, y, z - Op::rz + q)];
          if (!(got == expected))
            FAIL() << (z < 0 ? "after priming" : "at output plane z = " + std::to_string(z)) << ", slot " << q << " holds "
                   << plane_of(in, g, x, y, got) << " at (x, y) = (" << x << ", " << y << "); it must hold plane "
                   << z - Op::rz + q << " (slot[rz + k] is plane z + k)";
        }
}

// Step 05's window (parts.hpp, window_05): each running sum q gets plane p's values with the
// weights of neighbour k = rz - q, sum q being the output at z = p - rz + q.
template <class Op>
void test_window(const course::Seed& seed) {
  constexpr int kQueue = 2 * Op::rz + 1;
  const Grid g = course::make_grid(37, 29, 4, Op::rx, Op::ry, Op::rz);
  const std::vector<float> in = course::random_floats(g.size, seed);
  const DeviceBuffer<float> d_in{std::span<const float>(in)};
  const course::Tolerance tolerance = ch02::tolerance<Op>();
  for (const int p : {-Op::rz, 2}) {
    DeviceBuffer<float> d_sums = unwritten(kQueue * g.size);
    ch02::parts::window_05<Op>(d_in.data(), d_sums.data(), g, p);
    GPU_CHECK(gpuDeviceSynchronize());
    const std::vector<float> sums = d_sums.to_host();
    for (int q = 0; q < kQueue; ++q)
      for (int y = 0; y < g.dy; ++y)
        for (int x = 0; x < g.dx; ++x) {
          double expected = 0.0;
          for (int j = -Op::ry; j <= Op::ry; ++j)
            for (int i = -Op::rx; i <= Op::rx; ++i) expected += Op::weight(i, j, Op::rz - q) * in[g.at(x + i, y + j, p)];
          const double got = sums[q * g.size + g.at(x, y, 0)];
          if (!(std::abs(got - expected) <= tolerance.atol + tolerance.rtol * std::abs(expected)))
            FAIL() << "plane " << p << " added into sum " << q << " (the output at z = " << p - Op::rz + q << ") at (x, y) = ("
              << x << ", " << y << "): got " << got << ", expected " << expected << ", its neighbour k = " << Op::rz - q
              << " weighted (weight(i, j, rz - q))";
        }
  }
}

// Step 08's interior test (parts.hpp, tile_inside_08): true exactly for the blocks whose whole
// tile lies in the array, on grids with blocks of both kinds; on the 64 x 64 grid, tiles end
// exactly at the array's far edges (and begin at its near ones), where an off-by-one shows.
template <class Op>
void test_tile_inside() {
  const int r = Op::rx;
  const ch02::parts::Tile t = ch02::parts::tile_08<Op>();
  int inside_blocks = 0;
  for (const Grid& g : {course::make_grid(64, 64, 1, r, r, r), course::make_grid(70, 40, 9, r, r, r),
                        course::make_grid(100, 100, 1, r + 2, r + 1, r, 1), course::make_grid(33, 9, 2, r, r, r)})
    for (int by = 0; by < static_cast<int>(course::blocks_for(g.dy, t.outputs_y)); ++by)
      for (int bx = 0; bx < static_cast<int>(course::blocks_for(g.dx, t.outputs_x)); ++bx) {
        const int x0 = bx * t.outputs_x - t.left, y0 = by * t.outputs_y - t.top;
        const bool all_in = g.in_array(x0, y0, 0) && g.in_array(x0 + t.width - 1, y0 + t.height - 1, 0);
        inside_blocks += all_in;
        if (ch02::parts::tile_inside_08<Op>(bx, by, g) != all_in)
          FAIL() << "the interior test says " << (all_in ? "outside" : "inside") << " for block (" << bx << ", " << by << ") of a " << g.dx << " x " << g.dy << " grid with halos " << g.hx << ", "
            << g.hy << ": its " << t.width << " x " << t.height << " tile covers x = " << x0 << " .. " << x0 + t.width - 1
            << ", y = " << y0 << " .. " << y0 + t.height - 1 << ", the array x = " << -g.hx << " .. " << g.dx + g.hx - 1
            << ", y = " << -g.hy << " .. " << g.dy + g.hy - 1 << ": it is " << (all_in ? "inside" : "not inside");
      }
  ASSERT_GT(inside_blocks, 0) << "the test's grids must have blocks inside the array";
}

// Steps 10 and 11's copy plans (parts.hpp, copy_10 and copy_11), checked by what a plan must do,
// not by an expression for it, on grids with packed rows and with wider halos, for every copy of
// every block's tile. Copy c lands at floats vector * c .. vector * c + vector - 1 of the tile
// (rows of width floats); the tile's float (row, column) is the point (x_left + column, y0 + row).
//   - A copy that is made reads 16 bytes of one row of the array's storage (rows -hy .. dy+hy-1,
//     each from x = -lead to pitch - lead - 1): nothing outside it.
//   - It reads the floats that land where it lands: each of its floats is the point its tile cell
//     stands for.
//   - Every float the block's stencil needs (the outputs' columns and rx on each side, every tile
//     row) that lies in the array is brought by a copy that is made.
// (The copy numbers past the tile, which the last pass's spare threads hold, are never started:
// not checked.)
template <class Op>
void test_copy_plan(const ch02::parts::CopiedTile& c, ch02::parts::Copy (*plan)(int, int, int, const Grid&)) {
  const int r = Op::rx;
  const int width = c.tile.width;
  for (const Grid& g : {course::make_grid(37, 29, 3, r, r, r), course::make_grid(300, 5, 2, r, r, r, 4),
                        course::make_grid(70, 40, 2, r + 3, r + 1, r, 4)})
    for (int by = 0; by < static_cast<int>(course::blocks_for(g.dy, c.tile.outputs_y)); ++by)
      for (int bx = 0; bx < static_cast<int>(course::blocks_for(g.dx, c.tile.outputs_x)); ++bx) {
        const int x_left = bx * c.tile.outputs_x - c.tile.left, y0 = by * c.tile.outputs_y - c.tile.top;
        // The tile's corner in the plane's storage: a float's place there is lead + x + (y + hy) * pitch.
        const long long corner = g.lead + x_left + static_cast<long long>(y0 + g.hy) * g.pitch;
        for (int copy = 0; copy < c.copies; ++copy) {
          const ch02::parts::Copy got = plan(copy, bx, by, g);
          const int first_cell = c.vector * copy;
          std::ostringstream where;
          where << "copy " << copy << " of block (" << bx << ", " << by << ") lands at tile row " << first_cell / width
                << ", columns " << first_cell % width << " .. " << first_cell % width + c.vector - 1 << ": the points x = "
                << x_left + first_cell % width << " .. " << x_left + first_cell % width + c.vector - 1 << " of row y = "
                << y0 + first_cell / width << " (a row's storage holds x = " << -g.lead << " .. " << g.pitch - g.lead - 1
                << ", the array's rows are y = " << -g.hy << " .. " << g.dy + g.hy - 1 << ")";
          for (int k = 0; k < c.vector; ++k) {
            const int cell = first_cell + k, row = cell / width, column = cell % width;
            const int x = x_left + column, y = y0 + row;
            if (got.valid) {
              if (y < -g.hy || y >= g.dy + g.hy || x < -g.lead || x >= g.pitch - g.lead)
                FAIL() << where.str() << ": it is made, but the point (" << x << ", " << y
                       << ") lies outside the array's storage, which it must not read";
              // Where the copy's float k comes from, as an x and a y of the storage.
              const long long place = corner + got.offset + k;
              const long long storage_row = place >= 0 ? place / g.pitch : -1;
              const long long from_x = place - storage_row * g.pitch - g.lead, from_y = storage_row - g.hy;
              if (from_x != x || from_y != y)
                FAIL() << where.str() << ": its float " << k << " must be the point (" << x << ", " << y
                       << "), but its offset " << got.offset << " from the tile's corner reads the point (" << from_x
                       << ", " << from_y << ")";
            } else {
              const bool needed = column >= c.tile.left - r && column < c.tile.left + c.tile.outputs_x + r;
              if (needed && g.in_array(x, y, 0))
                FAIL() << where.str() << ": it must be made, since the stencil needs the point (" << x << ", " << y
                       << "), which lies in the array";
            }
          }
        }
      }
}

const bool parts_registered = [] {
  course::for_each_type(ch02::Operators{}, []<class Op>() {
    const std::string op = Op::name;
    const course::StepSource& s03 = taught("03_circular_queue");
    course::register_part_test(s03, 1, "the tile load", "Part", "03_circular_queue/1/" + op, [](const course::Seed& seed) {
      test_tile_load<Op>(ch02::parts::tile_03<Op>(), ch02::parts::tile_load_03<Op>, seed);
    });
    course::register_part_test(s03, 2, "prime the queue", "Part", "03_circular_queue/2/" + op,
                               [](const course::Seed& seed) { test_queue<Op>(2, seed); });
    course::register_part_test(s03, 3, "advance the queue", "Part", "03_circular_queue/3/" + op,
                               [](const course::Seed& seed) { test_queue<Op>(3, seed); });
    course::register_part_test(taught("04_plane_load"), 1, "the plane load", "Part", "04_plane_load/1/" + op,
                               [](const course::Seed& seed) {
                                 test_tile_load<Op>(ch02::parts::tile_04<Op>(), ch02::parts::plane_load_04<Op>, seed);
                               });
    course::register_part_test(taught("05_register_queue"), 1, "add the window", "Part", "05_register_queue/1/" + op,
                               [](const course::Seed& seed) { test_window<Op>(seed); });
    const course::StepSource& s06 = taught("06_prefetch");
    course::register_part_test(s06, 1, "fetch into registers", "Part", "06_prefetch/1/" + op, [](const course::Seed& seed) {
      test_tile_load<Op>(ch02::parts::tile_06<Op>(), ch02::parts::fetch_06<Op>, seed);
    });
    course::register_part_test(s06, 2, "publish", "Part", "06_prefetch/2/" + op, [](const course::Seed& seed) {
      test_tile_load<Op>(ch02::parts::tile_06<Op>(), ch02::parts::publish_06<Op>, seed);
    });
    course::register_part_test(taught("08_fewer_instructions"), 1, "the interior test", "HostPart",
                               "08_fewer_instructions/1/" + op, [](const course::Seed&) { test_tile_inside<Op>(); });
    course::register_part_test(taught("10_async_copy"), 1, "the copy plan", "HostPart", "10_async_copy/1/" + op,
                               [](const course::Seed&) {
                                 test_copy_plan<Op>(ch02::parts::copied_tile_10<Op>(), ch02::parts::copy_10<Op>);
                               });
    course::register_part_test(taught("11_wide_tiles"), 2, "the copy plan for wide rows", "HostPart",
                               "11_wide_tiles/2/" + op, [](const course::Seed&) {
                                 test_copy_plan<Op>(ch02::parts::copied_tile_11<Op>(), ch02::parts::copy_11<Op>);
                               });
  });
  return true;
}();

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

// The layout, the pass counts and the parts that are host code: nothing to run again with
// shuffled threads.
const bool host_suites = course::suite_runs_on_host("Grid") && course::suite_runs_on_host("PlaneLoad") &&
                         course::suite_runs_on_host("HostPart");

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
