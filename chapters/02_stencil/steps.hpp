// Chapter 2's steps: one row each, in order. A row names the step's file (solutions/02_stencil/
// or exercises/02_stencil/, without .cu) and its variant; the file defines
//   template <class Stencil> void stencil_<variant>(const float* in, float* out, const Grid& grid);
// which computes out = Stencil(in) over the interior, leaves the halo of `out` untouched and
// returns once its kernels are launched (checked), and ends with CH02_INSTANTIATE(stencil_<variant>).
#pragma once

#include <array>
#include <span>

#include "course/step.hpp"
#include "stencils.hpp"

#define CH02_STEPS(STEP)                              \
  STEP(00_naive, naive)                               \
  STEP(01_coalesced, coalesced)                       \
  STEP(02_shared_tile, shared_tile)                   \
  STEP(03_circular_queue, circular_queue)             \
  STEP(04_plane_load, plane_load)                     \
  STEP(05_register_queue, register_queue)             \
  STEP(06_prefetch, prefetch)                         \
  STEP(06_prefetch, prefetch_4_rows)                  \
  STEP(07_z_chunks, z_chunks)                         \
  STEP(07_z_chunks, z_chunks_4_rows)                  \
  STEP(08_fewer_instructions, fewer_instructions)     \
  STEP(09_deeper_prefetch, deeper_prefetch)           \
  STEP(10_async_copy, async_copy)                     \
  STEP(11_wide_tiles, wide_tiles)

namespace ch02 {

using StencilFn = void (*)(const float* in, float* out, const Grid& grid);

struct Step {
  course::StepSource source;
  StencilFn run;
};

#define CH02_DECLARE(file, variant) template <class Stencil> void stencil_##variant(const float* in, float* out, const Grid& grid);
CH02_STEPS(CH02_DECLARE)
#undef CH02_DECLARE

// The steps for one operator, in order.
template <class Stencil>
std::span<const Step> steps() {
#define CH02_ROW(file, variant) Step{COURSE_STEP_SOURCE(file, variant), stencil_##variant<Stencil>},
  static constexpr auto table = std::to_array<Step>({CH02_STEPS(CH02_ROW)});
#undef CH02_ROW
  return table;
}

}  // namespace ch02

// At the end of each step's file: the step's function for every operator of the chapter.
#define CH02_INSTANTIATE_ONE(Op, step) template void step<Op>(const float*, float*, const Grid&);
#define CH02_INSTANTIATE(step) CH02_OPERATORS(CH02_INSTANTIATE_ONE, step)
