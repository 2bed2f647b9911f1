// Chapter 3's steps: one row each, in order. A row names the step's file (solutions/03_seismic/
// or exercises/03_seismic/, without .cu), its variant, and the row alignment (in floats) of the
// grid it runs on: step 00 runs on packed rows, every later step on rows padded to 64 floats.
// The file defines
//   void laplacian_<variant>(const float* in, float* out, const Grid& grid);
// which computes out = Dxx(in) + Dyy(in) + Dzz(in) over the interior (seismic.hpp), leaves the
// halo and padding of `out` untouched and returns once its kernels are launched (checked).
#pragma once

#include <array>
#include <span>

#include "course/step.hpp"
#include "seismic.hpp"

#define CH03_STEPS(STEP, EXPERIMENT)                                             \
  STEP(00_naive, naive, 1)                                                       \
  STEP(01_aligned, aligned, 64)                                                  \
  STEP(02_sliding_window, sliding_window, 64)                                    \
  EXPERIMENT(03_vectors, vectors_1, 64)                                          \
  EXPERIMENT(03_vectors, vectors_2, 64)                                          \
  STEP(03_vectors, vectors_4, 64)                                                \
  EXPERIMENT(03_vectors, vectors_4_z2, 64)                                       \
  EXPERIMENT(03_vectors, vectors_4_z4, 64)                                       \
  STEP(04_shared_y, shared_y, 64)                                                \
  STEP(05_xy_fused, xy_fused, 64)                                                \
  EXPERIMENT(06_one_pass, one_pass_16, 64)                                       \
  STEP(06_one_pass, one_pass_64, 64)                                             \
  EXPERIMENT(06_one_pass, one_pass_256, 64)                                      \
  STEP(07_prefetch, prefetch_4, 64)                                              \
  EXPERIMENT(07_prefetch, prefetch_2, 64)                                        \
  STEP(08_async_ring, async_ring, 64)                                            \
  EXPERIMENT(08_async_ring, async_ring_capped, 64)                               \
  EXPERIMENT(08_async_ring, async_ring_deep, 64)                                 \
  EXPERIMENT(08_async_ring, async_ring_planes16, 64)                             \
  EXPERIMENT(08_async_ring, async_ring_planes32, 64)                             \
  EXPERIMENT(08_async_ring, async_ring_planes128, 64)                            \
  EXPERIMENT(08_async_ring, async_ring_planes256, 64)                            \
  EXPERIMENT(08_async_ring, async_ring_planes512, 64)                            \
  EXPERIMENT(08_async_ring, async_ring_3blocks, 64)                              \
  EXPERIMENT(08_async_ring, async_ring_deep_plain_stores, 64)                    \
  STEP(09_prefetched_sums, prefetched_sums, 64)                                  \
  EXPERIMENT(10_tensor_ring, tensor_ring_one_box, 64)                            \
  EXPERIMENT(10_tensor_ring, tensor_ring, 64)                                    \
  EXPERIMENT(10_tensor_ring, tensor_ring_64x4, 64)                               \
  EXPERIMENT(10_tensor_ring, tensor_ring_two_rows, 64)                           \
  EXPERIMENT(10_tensor_ring, tensor_ring_two_rows_planes128, 64)                 \
  EXPERIMENT(10_tensor_ring, tensor_ring_two_rows_plain_stores, 64)              \
  STEP(10_tensor_ring, tensor_ring_two_rows_planes128_plain_stores, 64)          \
  EXPERIMENT(10_tensor_ring, tensor_ring_two_rows_plain_stores_one_load, 64)     \
  EXPERIMENT(10_tensor_ring, tensor_ring_two_rows_planes128_plain_stores_one_load, 64) \
  /* one row per step, above this line */

namespace ch03 {

using LaplacianFn = void (*)(const float* in, float* out, const Grid& grid);

struct Step {
  course::StepSource source;
  LaplacianFn run;
  int align;  // the grid's row alignment in floats
};

#define CH03_DECLARE(file, variant, align) void laplacian_##variant(const float* in, float* out, const Grid& grid);
CH03_STEPS(CH03_DECLARE, CH03_DECLARE)
#undef CH03_DECLARE

inline std::span<const Step> steps() {
#define CH03_ROW(file, variant, align) Step{COURSE_STEP_SOURCE(file, variant), laplacian_##variant, align},
#define CH03_EXPERIMENT_ROW(file, variant, align) Step{COURSE_EXPERIMENT_SOURCE(file, variant), laplacian_##variant, align},
  static constexpr auto table = std::to_array<Step>({CH03_STEPS(CH03_ROW, CH03_EXPERIMENT_ROW)});
#undef CH03_ROW
#undef CH03_EXPERIMENT_ROW
  return table;
}

}  // namespace ch03
