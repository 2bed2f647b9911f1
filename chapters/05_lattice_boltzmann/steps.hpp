// Chapter 5's steps: one row each, in order. A row names the step's file (solutions/
// 05_lattice_boltzmann/ or exercises/..., without .cu), its variant, how it stores a
// distribution (the element type of its state: Storage::f32, or 16 bits, rounded to nearest or
// stochastically) and in how many buffers (two, read one and write the other; or one, in
// place); the file defines
//   std::unique_ptr<Lattice> make_<variant>(const Channel& channel);
// a Lattice (lbm.hpp) that holds the channel's state on the device in the step's layout.
#pragma once

#include <array>
#include <memory>
#include <span>

#include "course/compare.hpp"
#include "course/step.hpp"
#include "lbm.hpp"

namespace ch05 {

enum class Storage { f32, f16, bf16, f16_stochastic, bf16_stochastic };

#define CH05_STEPS(STEP, EXPERIMENT)                                          \
  STEP(00_paper, paper, f32, 2)                                               \
  STEP(01_subscript, subscript, f32, 2)                                       \
  STEP(02_ping_pong, ping_pong, f32, 2)                                       \
  STEP(03_soa, soa, f32, 2)                                                   \
  STEP(04_fused, fused, f32, 2)                                               \
  STEP(05_in_place, in_place, f32, 1)                                         \
  STEP(06_half_storage, fp16_storage, f16, 2)                                 \
  EXPERIMENT(06_half_storage, bf16_storage, bf16, 2)                          \
  EXPERIMENT(07_lean, lean_f32, f32, 2)                                       \
  STEP(07_lean, lean_fp16, f16, 2)                                            \
  EXPERIMENT(07_lean, lean_bf16, bf16, 2)                                     \
  EXPERIMENT(08_fma_collision, fma_f32, f32, 2)                               \
  STEP(08_fma_collision, fma_fp16, f16, 2)                                    \
  EXPERIMENT(08_fma_collision, fma_bf16, bf16, 2)                             \
  STEP(09_pairs, pairs_fp16, f16, 2)                                          \
  EXPERIMENT(09_pairs, pairs_bf16, bf16, 2)                                   \
  STEP(10_stochastic_rounding, stochastic_fp16, f16_stochastic, 2)            \
  EXPERIMENT(10_stochastic_rounding, stochastic_bf16, bf16_stochastic, 2)     \
  STEP(11_lean_in_place, lean_in_place, f32, 1)                               \
  STEP(12_in_place_stochastic, in_place_stochastic_fp16, f16_stochastic, 1)   \
  EXPERIMENT(13_pairs_stochastic, pairs_stochastic_fp16, f16_stochastic, 2)   \
  STEP(13_pairs_stochastic, quads_stochastic_fp16, f16_stochastic, 2)         \
  /* one row per step, above this line */

struct Step {
  course::StepSource source;
  MakeLattice make;
  Storage storage;
  int buffers;  // of the state: 2, or 1 (in place)
  // Bytes a time step must move per cell: the 9 distributions read once and written once.
  double fewest_bytes_per_update() const { return 2.0 * kDirections * (storage == Storage::f32 ? 4 : 2); }
  // Bytes a cell the step's lattice holds on the device: its buffers of nine values a cell, and
  // in steps 00-03 the moments (12 bytes), in step 01 two tables of pointers (16 more).
  double lattice_bytes_per_cell() const {
    return buffers * kDirections * (storage == Storage::f32 ? 4 : 2) + (source.file < "04" ? 12 : 0) +
           (source.file == "01_subscript" ? 16 : 0);
  }
};

// How far a step's state and moments may be from the float64 reference after up to 20 time
// steps from a random state near equilibrium (the tests' and the benchmark's check). In float32
// a step rounds each value (O(1)) by about 1e-7; 16-bit storage rounds each stored difference
// from the weight (below ~0.06) to 11 significant bits (fp16) or 8 (bf16); stochastically, to
// either neighbour: up to twice as far each time, the errors adding as a random walk.
inline course::Tolerance tolerance(Storage storage) {
  switch (storage) {
    case Storage::f16:
    case Storage::f16_stochastic: return {2e-4, 0};
    case Storage::bf16:
    case Storage::bf16_stochastic: return {2e-3, 0};
    case Storage::f32: break;
  }
  return {2e-6, 1e-5};
}

#define CH05_DECLARE(file, variant, storage, buffers) std::unique_ptr<Lattice> make_##variant(const Channel& channel);
CH05_STEPS(CH05_DECLARE, CH05_DECLARE)
#undef CH05_DECLARE

// A step's lattice for `channel`, which is checked first (check_channel: std::invalid_argument
// for an empty grid or tau <= 1/2): how the tests and the benchmark make every lattice.
inline std::unique_ptr<Lattice> make_lattice(const Step& step, const Channel& channel) {
  check_channel(channel);
  return step.make(channel);
}

inline std::span<const Step> steps() {
#define CH05_ROW(file, variant, storage, buffers) Step{COURSE_STEP_SOURCE(file, variant), make_##variant, Storage::storage, buffers},
#define CH05_EXPERIMENT_ROW(file, variant, storage, buffers) Step{COURSE_EXPERIMENT_SOURCE(file, variant), make_##variant, Storage::storage, buffers},
  static const auto table = std::to_array<Step>({CH05_STEPS(CH05_ROW, CH05_EXPERIMENT_ROW)});
#undef CH05_ROW
#undef CH05_EXPERIMENT_ROW
  return table;
}

}  // namespace ch05
