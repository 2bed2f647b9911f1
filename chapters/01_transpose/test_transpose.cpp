// Chapter 1 tests: first the parts of each step that run alone (parts.hpp; their failures name the
// part to edit), then every step against the float64 reference on fresh random inputs, at sizes
// that include 1x1, single rows and columns and edges that cut the tiles; step 07's partial sums
// in a buffer that grows, and its runs repeated bit for bit; the flagged matrix's contract and the
// patent's access rule. GoogleTest runs the suites in the order they are first registered, so the
// part tests, registered first, fail first and the grader names the part.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/testing.hpp"
#include "parts.hpp"
#include "reference.hpp"
#include "transpose.hpp"

namespace {

using course::DeviceBuffer;

struct Size {
  int rows;
  int cols;
  std::string name() const { return std::to_string(rows) + "x" + std::to_string(cols); }
};

// 32 and 64 are the tile edges; the others cut them, and 1 is the degenerate case. 132 x 200 and
// 68 x 260 have rows and columns that are multiples of 4 but not of 64: steps 05 and 06 move their
// inner tiles in float4s and their edge tiles in floats, in the same launch.
constexpr std::array kSizes{Size{1, 1},   Size{1, 1000}, Size{1000, 1},  Size{33, 65},  Size{64, 64},
                            Size{31, 97}, Size{130, 68}, Size{256, 320}, Size{132, 200}, Size{68, 260}};

void test_transpose(ch01::TransposeFn transpose, Size size, const course::Seed& seed) {
  const auto in = course::random_floats(static_cast<size_t>(size.rows) * size.cols, seed);
  DeviceBuffer<float> d_in{std::span<const float>(in)}, d_out(in.size());
  d_out.poison();
  transpose(d_in.data(), d_out.data(), size.rows, size.cols);
  GPU_CHECK(gpuDeviceSynchronize());
  EXPECT_TRUE(course::matches_reference(ch01::check_transpose(in, d_out.to_host(), size.rows, size.cols)));
}

// The flagged matrix's first and second column passes, as consumers.
void flagged_first_pass(const float* a, const float* x, float* y, int rows, int cols) {
  ch01::FlaggedMatrix matrix(a, rows, cols);
  matrix.multiply_transposed(x, y);
}
void flagged_second_pass(const float* a, const float* x, float* y, int rows, int cols) {
  ch01::FlaggedMatrix matrix(a, rows, cols);
  matrix.multiply_transposed(x, y);
  GPU_CHECK(gpuMemset(y, 0xff, sizeof(float) * cols));  // the second pass must write all of y again
  matrix.multiply_transposed(x, y);
}

// A consumer's inputs for one size: A (rows x cols) and x (rows), fresh from the seed.
struct ConsumerInputs {
  Size size;
  std::vector<float> a, x;
  ConsumerInputs(Size size, const course::Seed& seed)
      : size(size),
        a(course::random_floats(static_cast<size_t>(size.rows) * size.cols, seed, 0)),
        x(course::random_floats(size.rows, seed, 1)) {}
  // y = A^T x as the consumer computes it, into a poisoned y.
  std::vector<float> run(ch01::ColumnConsumerFn consumer) const {
    DeviceBuffer<float> d_a{std::span<const float>(a)}, d_x{std::span<const float>(x)}, d_y(size.cols);
    d_y.poison();
    consumer(d_a.data(), d_x.data(), d_y.data(), size.rows, size.cols);
    GPU_CHECK(gpuDeviceSynchronize());
    return d_y.to_host();
  }
  ::testing::AssertionResult matches_reference(const std::vector<float>& y) const {
    return course::matches_reference(y, ch01::multiply_transposed_reference(a, x, size.rows, size.cols),
                                     ch01::sum_tolerance(size.rows), {size_t(size.cols)});
  }
};

void test_consumer(ch01::ColumnConsumerFn consumer, Size size, const course::Seed& seed) {
  const ConsumerInputs inputs(size, seed);
  EXPECT_TRUE(inputs.matches_reference(inputs.run(consumer)));
}

// Two outputs hold the same bits (0.0 and -0.0 differ, as do two NaNs with other bits); `first`
// is what `again` must equal, named by `first_is` in the failure.
::testing::AssertionResult bit_identical(const std::vector<float>& again, const std::vector<float>& first,
                                         const char* first_is = "in the first run") {
  size_t differing = 0, first_at = 0;
  for (size_t i = 0; i < first.size(); ++i) {
    if (std::bit_cast<std::uint32_t>(again[i]) != std::bit_cast<std::uint32_t>(first[i]) && differing++ == 0) first_at = i;
  }
  if (differing == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << differing << " of " << first.size() << " elements differ; first at [x=" << first_at
                                       << "]: " << again[first_at] << " now, " << first[first_at] << " "
                                       << first_is;
}

// Step 07 keeps its partial sums in a buffer that lives as long as the process and grows when a
// problem needs more of it. A small matrix, then one that needs more splits and more columns
// than any other test of the chapter (16 splits x 520 columns against at most 4 x 320), in the
// same process: the second must run in the grown buffer, and the small one again in the larger
// buffer. Every run is also repeated: the fixed order of the sum makes y bit-identical.
void test_split_rows_buffer_grows(ch01::ColumnConsumerFn split_rows, const course::Seed& seed) {
  const ConsumerInputs small({70, 132}, seed), large({1000, 520}, seed);
  const std::vector<float> small_y = small.run(split_rows);
  EXPECT_TRUE(small.matches_reference(small_y)) << "70 x 132, the first run";
  const std::vector<float> large_y = large.run(split_rows);
  EXPECT_TRUE(large.matches_reference(large_y)) << "1000 x 520, after 70 x 132: the partial sums' buffer must grow";
  EXPECT_TRUE(bit_identical(large.run(split_rows), large_y)) << "1000 x 520 run twice: y must be bit-identical";
  EXPECT_TRUE(bit_identical(small.run(split_rows), small_y)) << "70 x 132 again, in the grown buffer: y must be bit-identical";
}

// --- step 03, parts 1 and 2: the patent's rule for a column-sequential access ------------------------

// The rule is host code: nothing to run again with shuffled threads. Grading step 03 runs it.
const bool rules_run_on_host =
    course::suite_runs_on_host("ColumnAccessRule") && course::suite_runs_on_host("ColumnSequentialRule");
const bool rules_are_step_03 = course::suite_tests_step("ColumnAccessRule", ch01::kFlaggedStep) &&
                               course::suite_tests_step("ColumnSequentialRule", ch01::kFlaggedStep);

// A check of host code whose failure line says what was expected (the grader shows that line).
void expect(bool holds, const std::string& what) {
  if (!holds) ADD_FAILURE() << what;
}

// Indices read by half-warp `h` (lanes 16h..16h+15) of step 00's consumer walking column `col`
// of a rows x cols matrix, with a whole warp stepping 32 rows; past the last row the walk
// continues at the top of the next column, as the patent's "wrap" allows.
std::vector<std::int64_t> half_warp(std::int64_t first_element_of_walk, int h, std::int64_t rows, std::int64_t cols) {
  std::vector<std::int64_t> indices;
  for (int lane = 0; lane < 16; ++lane) {
    const std::int64_t step = first_element_of_walk + 16 * h + lane;  // position along the column-major walk
    indices.push_back((step % rows) * cols + step / rows);
  }
  return indices;
}

TEST(ColumnAccessRule, AHalfWarpDownAColumnIsAColumnAccess) {
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep, 1, "the column access"));
  constexpr std::int64_t rows = 100, cols = 37;
  expect(ch01::is_column_access(half_warp(5 * rows, 0, rows, cols), rows, cols),
         "is_column_access must accept 16 lanes down column 5, rows 0..15, of a 100 x 37 matrix");
  expect(ch01::is_column_access(half_warp(5 * rows, 5, rows, cols), rows, cols),
         "is_column_access must accept 16 lanes down column 5, rows 80..95, of a 100 x 37 matrix");
}

TEST(ColumnAccessRule, AHalfWarpMayWrapOnceFromTheLastRowToTheNextColumn) {
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep, 1, "the column access"));
  expect(ch01::is_column_access(half_warp(2 * 20 + 12, 0, 20, 7), 20, 7),
         "is_column_access must accept rows 12..19 of column 2 then rows 0..7 of column 3 (one wrap), 20 x 7 matrix");
  // Fewer than 16 rows: a half-warp may cover two neighbouring columns, not three.
  constexpr std::int64_t cols = 9;
  expect(ch01::is_column_access(half_warp(0, 0, 8, cols), 8, cols),
         "is_column_access must accept column 0 then column 1 of an 8 x 9 matrix (one wrap)");
  expect(ch01::is_column_access(half_warp(1, 0, 15, cols), 15, cols),
         "is_column_access must accept rows 1..14 of column 0 then rows 0..1 of column 1 (15 x 9, one wrap)");
  expect(!ch01::is_column_access(half_warp(4, 0, 8, cols), 8, cols),
         "is_column_access must reject rows 4..7 of column 0, column 1, rows 0..3 of column 2 (8 x 9: two wraps)");
  expect(!ch01::is_column_access(half_warp(0, 0, 4, cols), 4, cols),
         "is_column_access must reject a half-warp over four columns of a 4 x 9 matrix");
  expect(!ch01::is_column_access(half_warp(0, 0, 1, 20), 1, 20),
         "is_column_access must reject a 1 x 20 matrix's row (a wrap at every lane)");
}

TEST(ColumnAccessRule, EveryHalfWarpOfAFullWalkIsAColumnAccess) {
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep, 1, "the column access"));
  for (const auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{20, 7}, {37, 5}, {16, 3}, {100, 37}}) {
    for (int h = 0; 16 * (h + 1) <= rows * cols; ++h) {
      expect(ch01::is_column_access(half_warp(0, h, rows, cols), rows, cols),
             "is_column_access must accept half-warp " + std::to_string(h) + " of the column-by-column walk of a " +
                 std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
    }
  }
}

TEST(ColumnAccessRule, RowAndStridedAccessesAreNot) {
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep, 1, "the column access"));
  constexpr std::int64_t rows = 64, cols = 48;
  std::vector<std::int64_t> along_a_row, every_other_row, two_columns_apart, outside;
  for (int lane = 0; lane < 16; ++lane) {
    along_a_row.push_back(3 * cols + lane);
    every_other_row.push_back(2 * lane * cols + 5);
    two_columns_apart.push_back(lane < 8 ? (rows - 8 + lane) * cols + 5 : (lane - 8) * cols + 7);
    outside.push_back((rows - 8 + lane) * cols + cols - 1);  // rows 56..63 of the last column, then past the end
  }
  expect(!ch01::is_column_access(along_a_row, rows, cols), "is_column_access must reject 16 lanes along a row");
  expect(!ch01::is_column_access(every_other_row, rows, cols), "is_column_access must reject every other row of a column");
  expect(!ch01::is_column_access(two_columns_apart, rows, cols),
         "is_column_access must reject a wrap from column 5 to column 7 (it skips a column)");
  expect(!ch01::is_column_access(outside, rows, cols), "is_column_access must reject indices past the end of the matrix");
}

TEST(ColumnSequentialRule, AColumnWalkIsColumnSequential) {
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep, 2, "the sequential rule"));
  constexpr std::int64_t rows = 100, cols = 37;
  const auto first = half_warp(5 * rows, 0, rows, cols);  // column 5, rows 0..15
  const auto second = half_warp(5 * rows, 1, rows, cols);  // rows 16..31
  expect(ch01::is_column_sequential({}, first, rows, cols),
         "is_column_sequential must accept a column access with no previous access");
  expect(ch01::is_column_sequential(first, second, rows, cols),
         "is_column_sequential must accept rows 16..31 of column 5 after rows 0..15");
  const auto skipped = half_warp(5 * rows, 2, rows, cols);  // rows 32..47: a gap after rows 0..15
  expect(!ch01::is_column_sequential(first, skipped, rows, cols),
         "is_column_sequential must reject rows 32..47 of column 5 after rows 0..15 (a gap)");
}

TEST(ColumnSequentialRule, AWalkMayWrapFromTheLastRowToTheNextColumn) {
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep, 2, "the sequential rule"));
  constexpr std::int64_t rows = 20, cols = 7;
  const auto ending = half_warp(2 * rows + 4, 0, rows, cols);    // rows 4..19 of column 2
  const auto starting = half_warp(2 * rows + 4, 1, rows, cols);  // rows 0..15 of column 3
  expect(ch01::is_column_sequential(ending, starting, rows, cols),
         "is_column_sequential must accept rows 0..15 of column 3 after rows 4..19 of column 2 (20 x 7)");
  expect(!ch01::is_column_sequential(ending, half_warp(4 * rows, 0, rows, cols), rows, cols),
         "is_column_sequential must reject column 4 after the end of column 2 (a column skipped)");
  expect(!ch01::is_column_sequential(ending, half_warp(3 * rows + 1, 0, rows, cols), rows, cols),
         "is_column_sequential must reject rows 1..16 of column 3 after the end of column 2 (row 0 skipped)");
}

// A whole column-by-column walk, half-warp after half-warp, with rows not a multiple of 16: most
// half-warps straddle two columns, and every one of them continues the walk.
TEST(ColumnSequentialRule, EveryHalfWarpOfAFullWalkIsSequential) {
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep, 2, "the sequential rule"));
  for (const auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{20, 7}, {37, 5}, {16, 3}, {100, 37}}) {
    std::vector<std::int64_t> previous;
    for (int h = 0; 16 * (h + 1) <= rows * cols; ++h) {
      const auto current = half_warp(0, h, rows, cols);
      expect(ch01::is_column_sequential(previous, current, rows, cols),
             "is_column_sequential must accept half-warp " + std::to_string(h) + " after half-warp " +
                 std::to_string(h - 1) + " of the column-by-column walk of a " + std::to_string(rows) + " x " +
                 std::to_string(cols) + " matrix");
      previous = current;
    }
  }
}

TEST(ColumnSequentialRule, ShortColumnsAllowOneWrapNotTwo) {
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep, 2, "the sequential rule"));
  constexpr std::int64_t cols = 9;
  expect(!ch01::is_column_sequential({}, half_warp(4, 0, 8, cols), 8, cols),
         "is_column_sequential must reject an access that wraps twice (8 x 9 matrix), even with no previous one");
  expect(!ch01::is_column_sequential(half_warp(4, 0, 8, cols), half_warp(4, 1, 8, cols), 8, cols),
         "is_column_sequential must reject an access that wraps twice (8 x 9 matrix)");
  std::vector<std::int64_t> along_a_row;
  for (int lane = 0; lane < 16; ++lane) along_a_row.push_back(3 * 48 + lane);
  expect(!ch01::is_column_sequential({}, along_a_row, 64, 48), "is_column_sequential must reject a row access");
}

// --- the other parts that run alone ------------------------------------------------------------------

// The taught row of step `file` in the registry: the source the parts' failures name.
course::StepSource step_of_file(std::string_view file) {
  for (const auto& step : ch01::transpose_steps())
    if (step.source.file == file && !step.source.experiment) return step.source;
  for (const auto& step : ch01::consumer_steps())
    if (step.source.file == file && !step.source.experiment) return step.source;
  return ch01::kFlaggedStep;
}

// A tile load alone (tile_parts.cuh) writes every element of the tile back where it came from.
void test_tile_load(ch01::TransposeFn load_alone, Size size, const course::Seed& seed) {
  const auto in = course::random_floats(static_cast<size_t>(size.rows) * size.cols, seed);
  DeviceBuffer<float> d_in{std::span<const float>(in)}, d_out(in.size());
  d_out.poison();
  load_alone(d_in.data(), d_out.data(), size.rows, size.cols);
  GPU_CHECK(gpuDeviceSynchronize());
  const std::vector<double> expected(in.begin(), in.end());
  EXPECT_TRUE(course::matches_reference(d_out.to_host(), expected, {}, {size_t(size.rows), size_t(size.cols)}))
      << "each element of the shared tile, after the load, is written back where it came from in the input: "
         "a NaN is an element the load did not write";
}

constexpr int kLanes = 32;  // a warp, as in lane_sum.cuh

// Step 03, part 3: lane l's sum of column c, over rows l, l + 32, ..., against float64.
void test_consume(Size size, const course::Seed& seed) {
  const ConsumerInputs inputs(size, seed);
  DeviceBuffer<float> d_a{std::span<const float>(inputs.a)}, d_x{std::span<const float>(inputs.x)};
  DeviceBuffer<float> d_sums(static_cast<size_t>(size.cols) * kLanes);
  d_sums.poison();
  ch01::parts::flagged_consume(d_a.data(), d_x.data(), d_sums.data(), size.rows, size.cols);
  GPU_CHECK(gpuDeviceSynchronize());
  std::vector<double> expected(d_sums.size(), 0.0);
  for (int r = 0; r < size.rows; ++r)
    for (int c = 0; c < size.cols; ++c)
      expected[static_cast<size_t>(c) * kLanes + r % kLanes] +=
          double{inputs.a[static_cast<size_t>(r) * size.cols + c]} * inputs.x[r];
  course::Comparison comparison = course::compare(d_sums.to_host(), expected, ch01::sum_tolerance(size.rows / 32 + 1),
                                                  {size_t(size.cols), size_t(kLanes)});
  comparison.axis_names = {"column", "lane"};
  EXPECT_TRUE(course::matches_reference(comparison)) << "lane l's sum of a column: rows l, l + 32, ... of it, times x";
  // Step 00's lane l rounds as fmaf over rows l, l + 32, ... in that order: part 3 must round the same,
  // or the flagged matrix's passes cannot match step 00 bit for bit.
  std::vector<float> rounded(d_sums.size(), 0.0f);
  for (int c = 0; c < size.cols; ++c)
    for (int lane = 0; lane < kLanes; ++lane) {
      float partial = 0.0f;
      for (int r = lane; r < size.rows; r += kLanes)
        partial = std::fmaf(inputs.a[static_cast<size_t>(r) * size.cols + c], inputs.x[r], partial);
      rounded[static_cast<size_t>(c) * kLanes + lane] = partial;
    }
  EXPECT_TRUE(bit_identical(d_sums.to_host(), rounded, "from fmaf in step 00's order"))
      << "each product added with fmaf(tile, x, partial), tile after tile: no +=, no other order";
}

// Step 03, part 4: the transposing pass alone makes the copy and y, rounding as step 00 does.
void test_transposing_pass(Size size, const course::Seed& seed) {
  const ConsumerInputs inputs(size, seed);
  DeviceBuffer<float> d_a{std::span<const float>(inputs.a)}, d_x{std::span<const float>(inputs.x)};
  DeviceBuffer<float> d_copy(inputs.a.size()), d_y(size.cols);
  d_copy.poison();
  d_y.poison();
  ch01::parts::flagged_transposing_pass(d_a.data(), d_x.data(), d_copy.data(), d_y.data(), size.rows, size.cols);
  GPU_CHECK(gpuDeviceSynchronize());
  const std::vector<float> y = d_y.to_host();
  EXPECT_TRUE(inputs.matches_reference(y)) << "y = A^T x from the transposing pass";
  EXPECT_TRUE(course::matches_reference(ch01::check_transpose(inputs.a, d_copy.to_host(), size.rows, size.cols)))
      << "the copy the transposing pass writes must be A^T";
  EXPECT_TRUE(bit_identical(y, inputs.run(ch01::multiply_transposed_naive)))
      << "the transposing pass must round exactly as step 00's consumer (fmaf, lane l over rows l, l + 32, ...)";
}

// Step 03, part 5: the row consumer alone, y = M v.
void test_multiply_rows(Size size, const course::Seed& seed) {
  const auto m = course::random_floats(static_cast<size_t>(size.rows) * size.cols, seed, 0);
  const auto v = course::random_floats(size.cols, seed, 1);
  DeviceBuffer<float> d_m{std::span<const float>(m)}, d_v{std::span<const float>(v)}, d_y(size.rows);
  d_y.poison();
  ch01::parts::flagged_multiply_rows(d_m.data(), d_v.data(), d_y.data(), size.rows, size.cols);
  GPU_CHECK(gpuDeviceSynchronize());
  EXPECT_TRUE(course::matches_reference(d_y.to_host(), ch01::multiply_reference(m, v, size.rows, size.cols),
                                        ch01::sum_tolerance(size.cols), {size_t(size.rows)}))
      << "y = M v for a " << size.name() << " M, a warp per row";
}

constexpr int kBlockOrderTile = 64;

// Step 06, part 1: blocks that run together (consecutive block_x) move tiles one below another.
void test_block_order_tile() {
  for (unsigned by = 0; by < 5; ++by)
    for (unsigned bx = 0; bx < 5; ++bx) {
      const auto [row, col] = ch01::parts::block_order_tile(bx, by);
      const std::string block = "block (" + std::to_string(bx) + ", " + std::to_string(by) + ")";
      expect(row == static_cast<int>(bx) * kBlockOrderTile && col == static_cast<int>(by) * kBlockOrderTile,
             block + " moves the tile at (" + std::to_string(row) + ", " + std::to_string(col) + "); it must move the one at (" +
                 std::to_string(bx * kBlockOrderTile) + ", " + std::to_string(by * kBlockOrderTile) +
                 "): block_x counts 64-row tiles down the input, block_y 64-column tiles across it");
    }
}

// Step 06, part 2: with part 1's order, the grid gives every tile of the input one block, and no
// block a tile outside it.
void test_block_order_grid() {
  for (const Size size : {Size{1, 1}, Size{1, 1000}, Size{1000, 1}, Size{130, 68}, Size{64, 320}, Size{257, 129}}) {
    const auto [blocks_x, blocks_y] = ch01::parts::block_order_blocks(size.rows, size.cols);
    const std::string grid = "a grid of " + std::to_string(blocks_x) + " x " + std::to_string(blocks_y) +
                             " blocks for a " + size.name() + " input";
    std::map<std::pair<int, int>, int> moved;
    for (unsigned by = 0; by < blocks_y; ++by)
      for (unsigned bx = 0; bx < blocks_x; ++bx) {
        const auto tile = ch01::parts::block_order_tile(bx, by);
        expect(tile.first < size.rows && tile.second < size.cols,
               grid + ": block (" + std::to_string(bx) + ", " + std::to_string(by) + ") moves a tile outside the input");
        ++moved[tile];
      }
    for (int row = 0; row < size.rows; row += kBlockOrderTile)
      for (int col = 0; col < size.cols; col += kBlockOrderTile)
        expect(moved[{row, col}] == 1, grid + ": " + std::to_string(moved[{row, col}]) + " blocks move the tile at (" +
                                           std::to_string(row) + ", " + std::to_string(col) + "), not 1");
  }
}

// Step 07, part 1: the splits cover every row, none is empty, each is a whole number of rows per
// row of threads; a 16384 x 16384 matrix makes 32 splits of 512 rows (4096 blocks of 128 columns).
void test_split_plan() {
  for (const Size size : {Size{1, 1}, Size{70, 132}, Size{1000, 520}, Size{1000, 1}, Size{1, 1000}, Size{16384, 16384},
                          Size{100000, 16}, Size{64, 1 << 20}}) {
    const auto [rows_per_split, splits] = ch01::parts::split_rows_plan(size.rows, size.cols);
    const std::string plan = size.name() + ": " + std::to_string(splits) + " splits of " + std::to_string(rows_per_split) +
                             " rows";
    if (rows_per_split <= 0) {
      ADD_FAILURE() << plan << ": a split needs rows";
      continue;
    }
    expect(rows_per_split % 8 == 0, plan + ": rows per split must be a multiple of 8, the rows of threads");
    expect(static_cast<long long>(splits) * rows_per_split >= size.rows, plan + ": the splits must cover every row");
    expect(static_cast<long long>(splits - 1) * rows_per_split < size.rows, plan + ": the last split is empty");
    expect(splits <= std::max(1, (size.rows + 63) / 64), plan + ": more than one split per 64 rows (8 a thread)");
    expect(ch01::parts::split_rows_plan(size.rows, size.cols) == std::make_pair(rows_per_split, splits),
           plan + ": the plan must depend on the shape alone");
  }
  const auto [rows_per_split, splits] = ch01::parts::split_rows_plan(16384, 16384);
  expect(rows_per_split == 512 && splits == 32, "16384x16384: " + std::to_string(splits) + " splits of " +
                                                    std::to_string(rows_per_split) +
                                                    " rows; 4096 blocks need 32 splits of 512 rows (128 groups of columns)");
}

// Step 07, parts 2 and 3: the first kernel alone, for a plan of three splits (or one); row s of
// the partial sums holds columns' sums over split s.
void test_split_partials(Size size, const course::Seed& seed) {
  const ConsumerInputs inputs(size, seed);
  const int rows_per_split = std::max(8, (size.rows / 3 + 7) / 8 * 8), splits = (size.rows + rows_per_split - 1) / rows_per_split;
  DeviceBuffer<float> d_a{std::span<const float>(inputs.a)}, d_x{std::span<const float>(inputs.x)};
  DeviceBuffer<float> d_partials(static_cast<size_t>(splits) * size.cols);
  d_partials.poison();
  ch01::parts::split_rows_partials(d_a.data(), d_x.data(), d_partials.data(), size.rows, size.cols, rows_per_split);
  GPU_CHECK(gpuDeviceSynchronize());
  std::vector<double> expected(d_partials.size(), 0.0);
  for (int r = 0; r < size.rows; ++r)
    for (int c = 0; c < size.cols; ++c)
      expected[static_cast<size_t>(r / rows_per_split) * size.cols + c] +=
          double{inputs.a[static_cast<size_t>(r) * size.cols + c]} * inputs.x[r];
  course::Comparison comparison = course::compare(d_partials.to_host(), expected, ch01::sum_tolerance(rows_per_split),
                                                  {size_t(splits), size_t(size.cols)});
  comparison.axis_names = {"split", "column"};
  EXPECT_TRUE(course::matches_reference(comparison))
      << splits << " splits of " << rows_per_split << " rows: part 2's column sums, added by part 3 into row `split`";
}

// Step 07, part 4: the sum of the splits alone.
void test_sum_splits(Size size, const course::Seed& seed) {
  const int splits = std::max(1, size.rows % 37);
  const auto partials = course::random_floats(static_cast<size_t>(splits) * size.cols, seed);
  DeviceBuffer<float> d_partials{std::span<const float>(partials)}, d_y(size.cols);
  d_y.poison();
  ch01::parts::split_rows_sum_splits(d_partials.data(), d_y.data(), splits, size.cols);
  GPU_CHECK(gpuDeviceSynchronize());
  std::vector<double> expected(size.cols, 0.0);
  for (int s = 0; s < splits; ++s)
    for (int c = 0; c < size.cols; ++c) expected[c] += partials[static_cast<size_t>(s) * size.cols + c];
  EXPECT_TRUE(course::matches_reference(d_y.to_host(), expected, ch01::sum_tolerance(splits), {size_t(size.cols)}))
      << "y[c] = the sum of the " << splits << " partial sums of column c";
}

// Host-only parts: nothing to run again with shuffled threads.
const bool host_parts_run_on_host = course::suite_runs_on_host("HostParts");

// Registered before the whole steps' tests, so that they run, and fail, first.
const bool parts_registered = [] {
  const course::StepSource step02 = step_of_file("02_shared_tile"), step03 = ch01::kFlaggedStep,
                           step04 = step_of_file("04_rows_per_thread"), step05 = step_of_file("05_vector_tile"),
                           step06 = step_of_file("06_block_order"), step07 = step_of_file("07_split_rows");
  // Host code first (no kernels): each part's own rule.
  course::register_part_test(step06, 1, "the block order", "HostParts", "06_block_order/1_tile_of_block",
                             [](const course::Seed&) { test_block_order_tile(); });
  course::register_part_test(step06, 2, "the grid", "HostParts", "06_block_order/2_grid",
                             [](const course::Seed&) { test_block_order_grid(); });
  course::register_part_test(step07, 1, "the split plan", "HostParts", "07_split_rows/1_plan",
                             [](const course::Seed&) { test_split_plan(); });

  struct TilePart {
    course::StepSource step;
    int part;
    const char* name;
    ch01::TransposeFn run;
    bool load;           // a load (out = in) or a store (out = in^T)
    bool float4s_only;   // only for matrices whose tiles all take float4s
  };
  const TilePart tile_parts[] = {
      {step02, 1, "the tile load", ch01::parts::shared_tile_load, true, false},
      {step02, 2, "the transposed store", ch01::parts::shared_tile_store, false, false},
      {step04, 1, "the tile load, four rows a thread", ch01::parts::rows_per_thread_load, true, false},
      {step04, 2, "the transposed store, four rows a thread", ch01::parts::rows_per_thread_store, false, false},
      {step05, 1, "the float4 load", ch01::parts::vector_tile_load_float4s, true, true},
      {step05, 2, "the scalar load", ch01::parts::vector_tile_load_scalars, true, false},
      {step05, 3, "the float4 store", ch01::parts::vector_tile_store_float4s, false, true},
      {step05, 4, "the scalar store", ch01::parts::vector_tile_store_scalars, false, false},
  };
  constexpr std::array kFloat4Sizes{Size{64, 64}, Size{128, 192}, Size{192, 64}};
  for (const TilePart& part : tile_parts) {
    const std::span<const Size> sizes = part.float4s_only ? std::span<const Size>(kFloat4Sizes) : std::span<const Size>(kSizes);
    for (const Size size : sizes) {
      const std::string name = std::string(part.step.file) + "/" + std::to_string(part.part) + "_" +
                               (part.load ? "load" : "store") + "/" + size.name();
      course::register_part_test(part.step, part.part, part.name, "Parts", name,
                                 [part, size](const course::Seed& seed) {
                                   if (part.load)
                                     test_tile_load(part.run, size, seed);
                                   else
                                     test_transpose(part.run, size, seed);
                                 });
    }
  }
  for (const Size size : kSizes) {
    course::register_part_test(step03, 3, "consume the tile", "Parts", "03_flagged_column/3_consume/" + size.name(),
                               [size](const course::Seed& seed) { test_consume(size, seed); });
  }
  for (const Size size : kSizes) {
    course::register_part_test(step03, 4, "the transposing pass", "Parts", "03_flagged_column/4_pass/" + size.name(),
                               [size](const course::Seed& seed) { test_transposing_pass(size, seed); });
  }
  for (const Size size : kSizes) {
    course::register_part_test(step03, 5, "the row consumer", "Parts", "03_flagged_column/5_rows/" + size.name(),
                               [size](const course::Seed& seed) { test_multiply_rows(size, seed); });
  }
  for (const Size size : kSizes) {
    course::register_part_test(step07, 3, "the block's sums, or part 2's column sums they add", "Parts", "07_split_rows/2_3_partials/" + size.name(),
                               [size](const course::Seed& seed) { test_split_partials(size, seed); });
  }
  for (const Size size : kSizes) {
    course::register_part_test(step07, 4, "the sum of the splits", "Parts", "07_split_rows/4_sum_splits/" + size.name(),
                               [size](const course::Seed& seed) { test_sum_splits(size, seed); });
  }
  return true;
}();

// --- the flagged matrix's contract ----------------------------------------------------------------

// Step 03's parts 6 (the flag) and 7 (the row access): grading step 03 runs this suite.
const bool flagged_suite_is_step_03 = course::suite_tests_step("FlaggedMatrix", ch01::kFlaggedStep);

class FlaggedMatrix : public course::DeviceTest {
 protected:
  static constexpr Size kSize{97, 45};
  const course::Seed seed = course::fresh_seed();
  const std::vector<float> a = course::random_floats(size_t(kSize.rows) * kSize.cols, seed, 0);
  const std::vector<float> x = course::random_floats(kSize.rows, seed, 1);   // for A^T x
  const std::vector<float> v = course::random_floats(kSize.cols, seed, 2);   // for A v
  const std::vector<float> other_x = course::random_floats(kSize.rows, seed, 3);            // a second x
  const std::vector<float> other_a = course::random_floats(size_t(kSize.rows) * kSize.cols, seed, 4);  // A rewritten
  DeviceBuffer<float> d_a, d_x, d_v, d_y, d_other_x;

  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    d_a = DeviceBuffer<float>(std::span<const float>(a));
    d_x = DeviceBuffer<float>(std::span<const float>(x));
    d_v = DeviceBuffer<float>(std::span<const float>(v));
    d_y = DeviceBuffer<float>(std::max(kSize.rows, kSize.cols));
    d_other_x = DeviceBuffer<float>(std::span<const float>(other_x));
  }
  std::vector<float> column_pass(ch01::FlaggedMatrix& matrix, const float* with_x = nullptr) {
    d_y.poison();
    matrix.multiply_transposed(with_x ? with_x : d_x.data(), d_y.data());
    return first(d_y.to_host(), kSize.cols);
  }
  // Step 00's y = A^T x for the matrix now in d_a: what every column pass must return, bit for bit.
  std::vector<float> naive_pass(const float* with_x) {
    d_y.poison();
    ch01::multiply_transposed_naive(d_a.data(), with_x, d_y.data(), kSize.rows, kSize.cols);
    return first(d_y.to_host(), kSize.cols);
  }
  std::vector<float> row_pass(ch01::FlaggedMatrix& matrix) {
    d_y.poison();
    matrix.multiply(d_v.data(), d_y.data());
    return first(d_y.to_host(), kSize.rows);
  }
  static std::vector<float> first(std::vector<float> values, int n) {
    values.resize(n);
    return values;
  }
};

TEST_F(FlaggedMatrix, FirstColumnPassMakesTheCopyOnceAndLaterPassesReadOnlyIt) {
  SCOPED_TRACE(seed.describe());
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep, 6, "the flag"));
  d_y.poison();
  ch01::multiply_transposed_naive(d_a.data(), d_x.data(), d_y.data(), kSize.rows, kSize.cols);
  const std::vector<float> naive = first(d_y.to_host(), kSize.cols);

  ch01::FlaggedMatrix matrix(d_a.data(), kSize.rows, kSize.cols);
  EXPECT_FALSE(matrix.has_transposed_copy());
  const std::vector<float> first_pass = column_pass(matrix);
  ASSERT_TRUE(matrix.has_transposed_copy());
  EXPECT_EQ(matrix.transpositions(), 1);
  EXPECT_EQ(first_pass, naive) << "the transposing pass must round exactly as the naive consumer";

  std::vector<float> copy(a.size());
  GPU_CHECK(gpuMemcpy(copy.data(), matrix.transposed_copy(), a.size() * sizeof(float), gpuMemcpyDeviceToHost));
  EXPECT_TRUE(course::matches_reference(ch01::check_transpose(a, copy, kSize.rows, kSize.cols)));

  // Destroy the original: passes that read only the copy cannot tell.
  d_a.poison();
  for (int pass = 2; pass <= 3; ++pass) {
    EXPECT_EQ(column_pass(matrix), naive) << "column pass " << pass << " did not read (only) the copy";
  }
  EXPECT_EQ(matrix.transpositions(), 1) << "the copy must be made once";
}

// A pass that kept the first pass's x, or returned the first pass's y, would pass the test above.
TEST_F(FlaggedMatrix, EveryColumnPassUsesTheXItIsGiven) {
  SCOPED_TRACE(seed.describe());
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep, 6, "the flag"));
  const std::vector<float> with_x = naive_pass(d_x.data()), with_other_x = naive_pass(d_other_x.data());
  ch01::FlaggedMatrix matrix(d_a.data(), kSize.rows, kSize.cols);
  EXPECT_EQ(column_pass(matrix, d_x.data()), with_x) << "column pass 1 (the transposing pass), with x";
  EXPECT_EQ(column_pass(matrix, d_other_x.data()), with_other_x) << "column pass 2 (the copy), with another x";
  EXPECT_EQ(column_pass(matrix, d_x.data()), with_x) << "column pass 3 (the copy), with the first x again";
  EXPECT_EQ(matrix.transpositions(), 1);
}

// The owner who writes the original clears the flag with invalidate(): the next column pass makes
// a new copy, from the new original, and the passes after it read that copy.
TEST_F(FlaggedMatrix, AfterInvalidateTheNextColumnPassTransposesTheNewOriginal) {
  SCOPED_TRACE(seed.describe());
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep, 6, "the flag"));
  ch01::FlaggedMatrix matrix(d_a.data(), kSize.rows, kSize.cols);
  EXPECT_EQ(column_pass(matrix), naive_pass(d_x.data())) << "column pass 1, the first original";
  GPU_CHECK(gpuMemcpy(d_a.data(), other_a.data(), other_a.size() * sizeof(float), gpuMemcpyHostToDevice));
  matrix.invalidate();
  EXPECT_FALSE(matrix.has_transposed_copy());
  const std::vector<float> rewritten = naive_pass(d_x.data());
  EXPECT_EQ(column_pass(matrix), rewritten) << "the first column pass after invalidate() must transpose the new original";
  EXPECT_EQ(matrix.transpositions(), 2) << "invalidate() clears the flag: the next column pass transposes again";
  d_a.poison();  // later passes read only the new copy
  EXPECT_EQ(column_pass(matrix), rewritten) << "the pass after that must read the new copy";
  EXPECT_EQ(matrix.transpositions(), 2);
}

TEST_F(FlaggedMatrix, RowAccessesNeverMakeTheCopyAndAlwaysReadTheOriginal) {
  SCOPED_TRACE(seed.describe());
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep, 7, "the row access"));
  const auto expected = ch01::multiply_reference(a, v, kSize.rows, kSize.cols);
  ch01::FlaggedMatrix matrix(d_a.data(), kSize.rows, kSize.cols);
  EXPECT_TRUE(course::matches_reference(row_pass(matrix), expected, ch01::sum_tolerance(kSize.cols), {size_t(kSize.rows)}));
  EXPECT_FALSE(matrix.has_transposed_copy()) << "a row access must not make the copy";
  EXPECT_EQ(matrix.transpositions(), 0);

  column_pass(matrix);
  ASSERT_TRUE(matrix.has_transposed_copy());
  // Destroy the copy (test-only write through the read-only view): row accesses must not notice.
  GPU_CHECK(gpuMemset(const_cast<float*>(matrix.transposed_copy()), 0xff, a.size() * sizeof(float)));
  EXPECT_TRUE(course::matches_reference(row_pass(matrix), expected, ch01::sum_tolerance(kSize.cols), {size_t(kSize.rows)}));
}

// Where a step's whole test checks one part (the others tested alone before it), its failures
// name that part: step 01's two parts are its two functions, and step 02's part 3 is the kernel
// that joins parts 1 and 2 (its padded tile and its barrier).
const std::map<std::pair<std::string_view, std::string_view>, std::pair<int, const char*>> kWholeFunctionParts{
    {{"01_coalesced", "Transpose"}, {1, "the transpose turned around"}},
    {{"01_coalesced", "MultiplyTransposed"}, {2, "a thread per column"}},
    {{"02_shared_tile", "Transpose"}, {3, "the kernel"}},
};

void register_whole_step_test(const course::StepSource& step, const std::string& suite, const std::string& name,
                              std::function<void(const course::Seed&)> body) {
  if (const auto part = kWholeFunctionParts.find({step.file, suite}); part != kWholeFunctionParts.end())
    course::register_part_test(step, part->second.first, part->second.second, suite, name, std::move(body));
  else
    course::register_step_test(step, suite, name, std::move(body));
}

// Steps 05, 06 and 07 move 16 bytes at a time: each refuses, before any launch, a matrix pointer off a
// 16-byte boundary (std::invalid_argument). The pointers are host memory, never dereferenced.
const bool alignment_runs_on_host = course::suite_runs_on_host("Alignment");

void test_transpose_refuses_misaligned(ch01::TransposeFn transpose) {
  alignas(16) static float unused[64];
  EXPECT_THROW(transpose(unused + 1, unused + 32, 4, 4), std::invalid_argument) << "in off a 16-byte boundary";
  EXPECT_THROW(transpose(unused, unused + 33, 4, 4), std::invalid_argument) << "out off a 16-byte boundary";
}

void test_consumer_refuses_misaligned(ch01::ColumnConsumerFn consumer) {
  alignas(16) static float unused[64];
  EXPECT_THROW(consumer(unused + 1, unused + 32, unused + 48, 4, 4), std::invalid_argument) << "a off a 16-byte boundary";
}

const bool registered = [] {
  for (const auto& step : ch01::transpose_steps())
    if (step.source.file == "05_vector_tile" || step.source.file == "06_block_order")
      course::register_step_test(step.source, "Alignment", step.source.id(),
                                 [run = step.run](const course::Seed&) { test_transpose_refuses_misaligned(run); });
  for (const auto& step : ch01::consumer_steps())
    if (step.source.file == "07_split_rows")
      course::register_step_test(step.source, "Alignment", step.source.id(),
                                 [run = step.run](const course::Seed&) { test_consumer_refuses_misaligned(run); });
  for (const auto& step : ch01::transpose_steps())
    for (const Size size : kSizes)
      register_whole_step_test(step.source, "Transpose", step.source.id() + "/" + size.name(),
                               [&step, size](const course::Seed& seed) { test_transpose(step.run, size, seed); });
  std::vector<std::pair<std::string, ch01::Step<ch01::ColumnConsumerFn>>> consumers;
  for (const auto& step : ch01::consumer_steps()) consumers.push_back({step.source.id(), step});
  consumers.push_back({ch01::kFlaggedStep.id() + "_first_pass", {ch01::kFlaggedStep, flagged_first_pass}});
  consumers.push_back({ch01::kFlaggedStep.id() + "_second_pass", {ch01::kFlaggedStep, flagged_second_pass}});
  for (const auto& [name, step] : consumers)
    for (const Size size : kSizes)
      register_whole_step_test(step.source, "MultiplyTransposed", name + "/" + size.name(),
                               [run = step.run, size](const course::Seed& seed) { test_consumer(run, size, seed); });
  for (const auto& step : ch01::consumer_steps())
    if (step.source.file == "07_split_rows")
      course::register_step_test(step.source, "SplitRows", "PartialSumsBufferGrowsAndResultsRepeatBitForBit",
                                 [run = step.run](const course::Seed& seed) { test_split_rows_buffer_grows(run, seed); });
  return true;
}();

}  // namespace
