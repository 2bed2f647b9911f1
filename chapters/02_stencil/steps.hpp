// Chapter 2's steps: one row each, in order. A row names the step's file (solutions/02_stencil/
// or exercises/02_stencil/, without .cu), its variant, the form of the operator it computes
// (weights: the weight table, point by point; separable: the operator's separable form, one
// axis at a time), which says how much arithmetic it does, and the row alignment in floats it
// needs of a grid (1: any rows; 4: its 16-byte copies need rows on 16-byte boundaries, which it
// checks with require_16_byte_rows). The file defines
//   template <class Stencil> void stencil_<variant>(const float* in, float* out, const Grid& grid);
// which computes out = Stencil(in) over the interior, leaves the halo of `out` untouched and
// returns once its kernels are launched (checked), and ends with CH02_INSTANTIATE(stencil_<variant>).
#pragma once

#include <array>
#include <span>

#include "course/step.hpp"
#include "stencils.hpp"

#define CH02_STEPS(STEP, EXPERIMENT)                           \
  STEP(00_naive, naive, weights, 1)                            \
  STEP(01_coalesced, coalesced, weights, 1)                    \
  STEP(02_shared_tile, shared_tile, weights, 1)                \
  STEP(03_circular_queue, circular_queue, weights, 1)          \
  STEP(04_plane_load, plane_load, weights, 1)                  \
  STEP(05_register_queue, register_queue, weights, 1)          \
  STEP(06_prefetch, prefetch, weights, 1)                      \
  EXPERIMENT(06_prefetch, prefetch_4_rows, weights, 1)         \
  STEP(07_z_chunks, z_chunks, weights, 1)                      \
  EXPERIMENT(07_z_chunks, z_chunks_4_rows, weights, 1)         \
  STEP(08_fewer_instructions, fewer_instructions, weights, 1)  \
  STEP(09_deeper_prefetch, deeper_prefetch, weights, 1)        \
  STEP(10_async_copy, async_copy, weights, 4)                  \
  STEP(11_wide_tiles, wide_tiles, weights, 4)                  \
  STEP(12_factored, factored, separable, 4)                    \
  /* one row per step, above this line */

namespace ch02 {

using StencilFn = void (*)(const float* in, float* out, const Grid& grid);

enum class Form { weights, separable };

struct Step {
  course::StepSource source;
  StencilFn run;
  Form form;
  int row_align;  // the grid's row alignment in floats the step needs
};

// Steps 10-12 copy 16 bytes at a time, from the input and within each of its rows: before any
// launch they refuse an input that is not 16-byte aligned and rows that are not (a grid of
// course::make_grid(..., align) with align not a multiple of 4), naming the step (`why`).
inline void require_16_byte_rows(const float* in, const Grid& grid, const char* why) {
  course::require_aligned(in, 16, why);
  course::require_row_alignment(grid, 4, why);
}

#define CH02_DECLARE(file, variant, form, row_align) \
  template <class Stencil>                           \
  void stencil_##variant(const float* in, float* out, const Grid& grid);
CH02_STEPS(CH02_DECLARE, CH02_DECLARE)
#undef CH02_DECLARE

// The steps for one operator, in order.
template <class Stencil>
std::span<const Step> steps() {
#define CH02_ROW(file, variant, form, row_align) \
  Step{COURSE_STEP_SOURCE(file, variant), stencil_##variant<Stencil>, Form::form, row_align},
#define CH02_EXPERIMENT_ROW(file, variant, form, row_align) \
  Step{COURSE_EXPERIMENT_SOURCE(file, variant), stencil_##variant<Stencil>, Form::form, row_align},
  static constexpr auto table = std::to_array<Step>({CH02_STEPS(CH02_ROW, CH02_EXPERIMENT_ROW)});
#undef CH02_ROW
#undef CH02_EXPERIMENT_ROW
  return table;
}

}  // namespace ch02

// At the end of each step's file: the step's function for every operator of the chapter.
#define CH02_INSTANTIATE_ONE(Op, step) template void step<Op>(const float*, float*, const Grid&);
#define CH02_INSTANTIATE(step) CH02_OPERATORS(CH02_INSTANTIATE_ONE, step)
