// Chapter 1's steps: one row each, in order. A row names the step's file (solutions/01_transpose/
// or exercises/01_transpose/, without .cu) and its variant. Every function takes device pointers
// to row-major float matrices and returns once its kernels are launched (checked).
#pragma once

#include <array>
#include <span>

#include "course/step.hpp"

// Transposes: void transpose_<variant>(const float* in, float* out, int rows, int cols), a
// rows x cols input into a cols x rows output.
#define CH01_TRANSPOSE_STEPS(STEP, EXPERIMENT)      \
  STEP(00_naive, naive)                             \
  STEP(01_coalesced, write_coalesced)               \
  EXPERIMENT(02_shared_tile, tile_unpadded)         \
  STEP(02_shared_tile, tile_padded)                 \
  STEP(04_rows_per_thread, rows_per_thread)         \
  STEP(05_vector_tile, vector_tile)                 \
  EXPERIMENT(05_vector_tile, vector_tile_streaming) \
  STEP(06_block_order, block_order)                 \
  EXPERIMENT(06_block_order, block_order_8_rows)    \
  /* one row per step, above this line */

// Column consumers y = A^T x, i.e. y[c] = sum over r of A[r][c] * x[r]:
// void multiply_transposed_<variant>(const float* a, const float* x, float* y, int rows, int cols).
#define CH01_CONSUMER_STEPS(STEP, EXPERIMENT)       \
  STEP(00_naive, naive)                             \
  STEP(01_coalesced, coalesced)                     \
  STEP(07_split_rows, split_rows)                   \
  /* one row per step, above this line */

// Step 03 is a class, FlaggedMatrix (transpose.hpp), a consumer that keeps state between passes.
#define CH01_FLAGGED_STEP(STEP)                     \
  STEP(03_flagged_column, flagged)                  \
  /* one row per step, above this line */

namespace ch01 {

using TransposeFn = void (*)(const float* in, float* out, int rows, int cols);
using ColumnConsumerFn = void (*)(const float* a, const float* x, float* y, int rows, int cols);

template <class Fn>
struct Step {
  course::StepSource source;
  Fn run;
};

#define CH01_DECLARE_TRANSPOSE(file, variant) void transpose_##variant(const float* in, float* out, int rows, int cols);
#define CH01_DECLARE_CONSUMER(file, variant) \
  void multiply_transposed_##variant(const float* a, const float* x, float* y, int rows, int cols);
CH01_TRANSPOSE_STEPS(CH01_DECLARE_TRANSPOSE, CH01_DECLARE_TRANSPOSE)
CH01_CONSUMER_STEPS(CH01_DECLARE_CONSUMER, CH01_DECLARE_CONSUMER)
#undef CH01_DECLARE_TRANSPOSE
#undef CH01_DECLARE_CONSUMER

inline std::span<const Step<TransposeFn>> transpose_steps() {
#define CH01_ROW(file, variant) Step<TransposeFn>{COURSE_STEP_SOURCE(file, variant), transpose_##variant},
#define CH01_EXPERIMENT_ROW(file, variant) Step<TransposeFn>{COURSE_EXPERIMENT_SOURCE(file, variant), transpose_##variant},
  static constexpr auto table = std::to_array<Step<TransposeFn>>({CH01_TRANSPOSE_STEPS(CH01_ROW, CH01_EXPERIMENT_ROW)});
#undef CH01_ROW
#undef CH01_EXPERIMENT_ROW
  return table;
}

inline std::span<const Step<ColumnConsumerFn>> consumer_steps() {
#define CH01_ROW(file, variant) Step<ColumnConsumerFn>{COURSE_STEP_SOURCE(file, variant), multiply_transposed_##variant},
#define CH01_EXPERIMENT_ROW(file, variant) Step<ColumnConsumerFn>{COURSE_EXPERIMENT_SOURCE(file, variant), multiply_transposed_##variant},
  static constexpr auto table = std::to_array<Step<ColumnConsumerFn>>({CH01_CONSUMER_STEPS(CH01_ROW, CH01_EXPERIMENT_ROW)});
#undef CH01_ROW
#undef CH01_EXPERIMENT_ROW
  return table;
}

#define CH01_SOURCE(file, variant) COURSE_STEP_SOURCE(file, variant)
inline constexpr course::StepSource kFlaggedStep = CH01_FLAGGED_STEP(CH01_SOURCE);
#undef CH01_SOURCE

}  // namespace ch01
