// Chapter 1 tests: every step against the float64 reference on fresh random inputs, at sizes
// that include 1x1, single rows and columns and edges that cut the tiles; step 07's partial sums
// in a buffer that grows, and its runs repeated bit for bit; then the flagged matrix's contract
// and the patent's access rule.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/testing.hpp"
#include "reference.hpp"
#include "transpose.hpp"

namespace {

using course::DeviceBuffer;

struct Size {
  int rows;
  int cols;
  std::string name() const { return std::to_string(rows) + "x" + std::to_string(cols); }
};

// 32 and 64 are the tile edges; the others cut them, and 1 is the degenerate case.
constexpr std::array kSizes{Size{1, 1}, Size{1, 1000}, Size{1000, 1}, Size{33, 65}, Size{64, 64},
                            Size{31, 97}, Size{130, 68}, Size{256, 320}};

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

// Two runs' outputs hold the same bits (0.0 and -0.0 differ, as do two NaNs with other bits).
::testing::AssertionResult bit_identical(const std::vector<float>& again, const std::vector<float>& first) {
  size_t differing = 0, first_at = 0;
  for (size_t i = 0; i < first.size(); ++i) {
    if (std::bit_cast<std::uint32_t>(again[i]) != std::bit_cast<std::uint32_t>(first[i]) && differing++ == 0) first_at = i;
  }
  if (differing == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << differing << " of " << first.size() << " elements differ; first at [x=" << first_at
                                       << "]: " << again[first_at] << " now, " << first[first_at]
                                       << " in the first run";
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

const bool registered = [] {
  for (const auto& step : ch01::transpose_steps())
    for (const Size size : kSizes)
      course::register_step_test(step.source, "Transpose", step.source.id() + "/" + size.name(),
                                 [&step, size](const course::Seed& seed) { test_transpose(step.run, size, seed); });
  std::vector<std::pair<std::string, ch01::Step<ch01::ColumnConsumerFn>>> consumers;
  for (const auto& step : ch01::consumer_steps()) consumers.push_back({step.source.id(), step});
  consumers.push_back({ch01::kFlaggedStep.id() + "_first_pass", {ch01::kFlaggedStep, flagged_first_pass}});
  consumers.push_back({ch01::kFlaggedStep.id() + "_second_pass", {ch01::kFlaggedStep, flagged_second_pass}});
  for (const auto& [name, step] : consumers)
    for (const Size size : kSizes)
      course::register_step_test(step.source, "MultiplyTransposed", name + "/" + size.name(),
                                 [run = step.run, size](const course::Seed& seed) { test_consumer(run, size, seed); });
  for (const auto& step : ch01::consumer_steps())
    if (step.source.file == "07_split_rows")
      course::register_step_test(step.source, "SplitRows", "PartialSumsBufferGrowsAndResultsRepeatBitForBit",
                                 [run = step.run](const course::Seed& seed) { test_split_rows_buffer_grows(run, seed); });
  return true;
}();

// --- the flagged matrix's contract ----------------------------------------------------------------

// The access rule is host code: nothing to run again with shuffled threads.
const bool rule_runs_on_host = course::suite_runs_on_host("ColumnSequentialRule");

// The flagged matrix and its access rule are step 03's file: grading step 03 runs these suites.
const bool flagged_suites_are_step_03 = course::suite_tests_step("FlaggedMatrix", ch01::kFlaggedStep) &&
                                        course::suite_tests_step("ColumnSequentialRule", ch01::kFlaggedStep);

class FlaggedMatrix : public course::DeviceTest {
 protected:
  static constexpr Size kSize{97, 45};
  const course::Seed seed = course::fresh_seed();
  const std::vector<float> a = course::random_floats(size_t(kSize.rows) * kSize.cols, seed, 0);
  const std::vector<float> x = course::random_floats(kSize.rows, seed, 1);   // for A^T x
  const std::vector<float> v = course::random_floats(kSize.cols, seed, 2);   // for A v
  DeviceBuffer<float> d_a, d_x, d_v, d_y;

  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    d_a = DeviceBuffer<float>(std::span<const float>(a));
    d_x = DeviceBuffer<float>(std::span<const float>(x));
    d_v = DeviceBuffer<float>(std::span<const float>(v));
    d_y = DeviceBuffer<float>(std::max(kSize.rows, kSize.cols));
  }
  std::vector<float> column_pass(ch01::FlaggedMatrix& matrix) {
    d_y.poison();
    matrix.multiply_transposed(d_x.data(), d_y.data());
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
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep));
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

TEST_F(FlaggedMatrix, RowAccessesNeverMakeTheCopyAndAlwaysReadTheOriginal) {
  SCOPED_TRACE(seed.describe());
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep));
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

// --- the patent's rule for a column-sequential access ----------------------------------------------

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

TEST(ColumnSequentialRule, AColumnWalkIsColumnSequential) {
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep));
  constexpr std::int64_t rows = 100, cols = 37;
  const auto first = half_warp(5 * rows, 0, rows, cols);  // column 5, rows 0..15
  const auto second = half_warp(5 * rows, 1, rows, cols);  // rows 16..31
  EXPECT_TRUE(ch01::is_column_access(first, rows, cols));
  EXPECT_TRUE(ch01::is_column_sequential({}, first, rows, cols));
  EXPECT_TRUE(ch01::is_column_sequential(first, second, rows, cols));
  const auto skipped = half_warp(5 * rows, 2, rows, cols);  // rows 32..47: a gap after rows 0..15
  EXPECT_FALSE(ch01::is_column_sequential(first, skipped, rows, cols));
}

TEST(ColumnSequentialRule, AWalkMayWrapFromTheLastRowToTheNextColumn) {
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep));
  constexpr std::int64_t rows = 20, cols = 7;
  // Inside one access: rows 12..19 of column 2, then rows 0..7 of column 3.
  const auto straddling = half_warp(2 * rows + 12, 0, rows, cols);
  EXPECT_TRUE(ch01::is_column_access(straddling, rows, cols));
  // Between two accesses: rows 4..19 of column 2, then rows 0..15 of column 3.
  const auto ending = half_warp(2 * rows + 4, 0, rows, cols);
  const auto starting = half_warp(2 * rows + 4, 1, rows, cols);
  EXPECT_TRUE(ch01::is_column_sequential(ending, starting, rows, cols));
  // A wrap that skips a column, or that does not start at row 0, is not sequential.
  EXPECT_FALSE(ch01::is_column_sequential(ending, half_warp(4 * rows, 0, rows, cols), rows, cols));
  EXPECT_FALSE(ch01::is_column_sequential(ending, half_warp(3 * rows + 1, 0, rows, cols), rows, cols));
}

// A whole column-by-column walk, half-warp after half-warp, with rows not a multiple of 16: most
// half-warps straddle two columns, and every one of them continues the walk.
TEST(ColumnSequentialRule, EveryHalfWarpOfAFullWalkIsSequential) {
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep));
  for (const auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{20, 7}, {37, 5}, {16, 3}, {100, 37}}) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    std::vector<std::int64_t> previous;
    for (int h = 0; 16 * (h + 1) <= rows * cols; ++h) {
      const auto current = half_warp(0, h, rows, cols);
      EXPECT_TRUE(ch01::is_column_access(current, rows, cols)) << "half-warp " << h;
      EXPECT_TRUE(ch01::is_column_sequential(previous, current, rows, cols)) << "half-warp " << h;
      previous = current;
    }
  }
}

// Fewer than 16 rows: a half-warp of a walk can cover two neighbouring columns (one wrap) but
// not three; the patent's rule allows one column or two.
TEST(ColumnSequentialRule, ShortColumnsAllowOneWrapNotTwo) {
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep));
  constexpr std::int64_t cols = 9;
  EXPECT_TRUE(ch01::is_column_access(half_warp(0, 0, 8, cols), 8, cols));     // column 0, then column 1
  EXPECT_TRUE(ch01::is_column_access(half_warp(1, 0, 15, cols), 15, cols));   // rows 1..14 of column 0, rows 0..1 of column 1
  EXPECT_FALSE(ch01::is_column_access(half_warp(4, 0, 8, cols), 8, cols));    // columns 0, 1 and 2: two wraps
  EXPECT_FALSE(ch01::is_column_access(half_warp(0, 0, 4, cols), 4, cols));    // four columns
  EXPECT_FALSE(ch01::is_column_access(half_warp(0, 0, 1, 20), 1, 20));        // one row: a wrap per lane
  EXPECT_FALSE(ch01::is_column_sequential({}, half_warp(4, 0, 8, cols), 8, cols));
  EXPECT_FALSE(ch01::is_column_sequential(half_warp(4, 0, 8, cols), half_warp(4, 1, 8, cols), 8, cols));
}

TEST(ColumnSequentialRule, RowAndStridedAccessesAreNot) {
  SCOPED_TRACE(course::edit_hint(ch01::kFlaggedStep));
  constexpr std::int64_t rows = 64, cols = 48;
  std::vector<std::int64_t> along_a_row, every_other_row, two_columns_apart;
  for (int lane = 0; lane < 16; ++lane) {
    along_a_row.push_back(3 * cols + lane);
    every_other_row.push_back(2 * lane * cols + 5);
    two_columns_apart.push_back(lane < 8 ? (rows - 8 + lane) * cols + 5 : (lane - 8) * cols + 7);
  }
  EXPECT_FALSE(ch01::is_column_access(along_a_row, rows, cols));
  EXPECT_FALSE(ch01::is_column_access(every_other_row, rows, cols));
  EXPECT_FALSE(ch01::is_column_access(two_columns_apart, rows, cols));
  EXPECT_FALSE(ch01::is_column_sequential({}, along_a_row, rows, cols));
}

}  // namespace
