// Chapter 4's steps: one row each, in order. A row names the step's file (solutions/04_coulomb/
// or exercises/04_coulomb/, without .cu) and its variant; the file defines
//   void potential_<variant>(const SliceAtom* atoms, int count, float* out, const Slice& slice);
// which writes the potential of `count` atoms (device memory) at every point of the slice into
// `out` (nx x ny floats, device memory) and returns once its kernels are launched (checked).
#pragma once

#include <array>
#include <span>

#include "coulomb.hpp"
#include "course/step.hpp"

#define CH04_STEPS(STEP, EXPERIMENT)                            \
  STEP(00_naive, naive)                                         \
  STEP(01_constant_memory, constant_memory)                     \
  STEP(02_coarsening, coarsening)                               \
  STEP(03_coalesced_coarsening, coalesced_coarsening)           \
  STEP(04_fast_rsqrt, fast_rsqrt)                               \
  EXPERIMENT(05_shared_atoms, shared_atoms_8_points)            \
  EXPERIMENT(05_shared_atoms, shared_atoms_16_points)           \
  EXPERIMENT(05_shared_atoms, shared_atoms_8x2_points)          \
  STEP(05_shared_atoms, shared_atoms_8x4_points)                \
  EXPERIMENT(06_split_pipes, split_1_of_8)                      \
  EXPERIMENT(06_split_pipes, split_2_of_8)                      \
  EXPERIMENT(06_split_pipes, split_1_of_8_newton)               \
  EXPERIMENT(06_split_pipes, split_2_of_16)                     \
  EXPERIMENT(06_split_pipes, split_3_of_16)                     \
  EXPERIMENT(06_split_pipes, split_4_of_32)                     \
  EXPERIMENT(06_split_pipes, split_6_of_32)                     \
  EXPERIMENT(06_split_pipes, split_8_of_32)                     \
  EXPERIMENT(06_split_pipes, split_4_of_32_newton)              \
  EXPERIMENT(06_split_pipes, split_6_of_32_minimax)             \
  EXPERIMENT(06_split_pipes, split_chosen_of_32_balanced)       \
  EXPERIMENT(06_split_pipes, split_0_of_32_balanced)            \
  EXPERIMENT(06_split_pipes, split_specialised_0_of_8)          \
  EXPERIMENT(06_split_pipes, split_specialised_1_of_8)          \
  EXPERIMENT(06_split_pipes, split_specialised_2_of_8)          \
  EXPERIMENT(06_split_pipes, split_specialised_3_of_8)          \
  EXPERIMENT(06_split_pipes, split_specialised_2_of_8_xu_priority) \
  EXPERIMENT(06_split_pipes, split_specialised_3_of_8_xu_priority) \
  STEP(06_split_pipes, split_specialised_4_of_8_xu_priority)    \
  EXPERIMENT(06_split_pipes, split_specialised_5_of_8_xu_priority) \
  EXPERIMENT(06_split_pipes, split_specialised_4_of_8_xu_priority_one_pass) \
  EXPERIMENT(07_constant_coarsening, constant_1_point)          \
  EXPERIMENT(07_constant_coarsening, constant_1_point_chunks_of_128) \
  EXPERIMENT(07_constant_coarsening, constant_1_point_barrier_every_32) \
  STEP(07_constant_coarsening, constant_8x4_points)             \
  EXPERIMENT(07_constant_coarsening, constant_8x4_points_barrier_every_32) \
  /* one row per step, above this line */

namespace ch04 {

using PotentialFn = void (*)(const SliceAtom* atoms, int count, float* out, const Slice& slice);

struct Step {
  course::StepSource source;
  PotentialFn run;
};

#define CH04_DECLARE(file, variant) void potential_##variant(const SliceAtom* atoms, int count, float* out, const Slice& slice);
CH04_STEPS(CH04_DECLARE, CH04_DECLARE)
#undef CH04_DECLARE

inline std::span<const Step> steps() {
#define CH04_ROW(file, variant) Step{COURSE_STEP_SOURCE(file, variant), potential_##variant},
#define CH04_EXPERIMENT_ROW(file, variant) Step{COURSE_EXPERIMENT_SOURCE(file, variant), potential_##variant},
  static constexpr auto table = std::to_array<Step>({CH04_STEPS(CH04_ROW, CH04_EXPERIMENT_ROW)});
#undef CH04_ROW
#undef CH04_EXPERIMENT_ROW
  return table;
}

// Step 06's reciprocal square roots on the FMA pipe, callable on the host so that the tests can
// measure their errors: a bit-trick guess and a polynomial correction (the one the split kernels
// use), the same guess and three Newton steps (the one measured beside it), and the same guess
// with a cheaper, fitted polynomial (one instruction fewer).
float rsqrt_on_fma_pipe(float x);
float rsqrt_newton_on_fma_pipe(float x);
float rsqrt_minimax_on_fma_pipe(float x);

}  // namespace ch04
