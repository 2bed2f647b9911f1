// Chapter 6's steps: one row each, in order. A row names the step's file (solutions/06_multi_gpu/
// or exercises/06_multi_gpu/, without .cu), its variant, and what it needs: one_rank (it runs on
// one GPU), ranks (any number of ranks, sharing devices if there are fewer) or nccl (a device per
// rank and a build with NCCL). The file defines
//   std::unique_ptr<Propagator> make_<variant>(Crew& crew, int rank);
// which makes rank `rank`'s propagator (team.hpp) on its thread, with its device current.
#pragma once

#include <array>
#include <memory>
#include <span>

#include "course/step.hpp"
#include "team.hpp"

#define CH06_STEPS(STEP, EXPERIMENT)             \
  STEP(00_one_gpu, one_gpu, one_rank)            \
  STEP(01_host_staging, host_staging, ranks)     \
  STEP(02_peer_copies, peer_copies, ranks)       \
  STEP(03_nccl, nccl, nccl)                      \
  STEP(04_overlap, overlap, nccl)                \
  STEP(05_graph, graph, nccl)                    \
  /* one row per step, above this line */

namespace ch06 {

enum class Needs { one_rank, ranks, nccl };

struct Step {
  course::StepSource source;
  MakePropagator make;
  Needs needs;
};

#define CH06_DECLARE(file, variant, needs) std::unique_ptr<Propagator> make_##variant(Crew& crew, int rank);
CH06_STEPS(CH06_DECLARE, CH06_DECLARE)
#undef CH06_DECLARE

inline std::span<const Step> steps() {
#define CH06_ROW(file, variant, needs) Step{COURSE_STEP_SOURCE(file, variant), make_##variant, Needs::needs},
#define CH06_EXPERIMENT_ROW(file, variant, needs) Step{COURSE_EXPERIMENT_SOURCE(file, variant), make_##variant, Needs::needs},
  static constexpr auto table = std::to_array<Step>({CH06_STEPS(CH06_ROW, CH06_EXPERIMENT_ROW)});
#undef CH06_ROW
#undef CH06_EXPERIMENT_ROW
  return table;
}

// What later steps take from earlier ones, as chapter 3's steps share step 02's z pass:
// step 03's exchange, which steps 04 and 05 use (and the benchmark times alone), and step 04's
// two halves of a time step's update, which step 05 captures. Each is launched on `stream`, not synchronised.
//   The halos of field `v` of the slab: sends its bottom R planes down and its top R planes up,
//   receives the planes below and above it from its neighbours, in one NCCL group.
void exchange_nccl(const Slab& slab, float* v, ncclComm_t comm, gpuStream_t stream);
//   The leapfrog from u to next on the slab's boundary planes (the R at each end) with their x
//   and y images; and the same on the interior planes between them.
void update_boundary(const Slab& slab, const Problem& problem, const float* u, float* next, gpuStream_t stream);
void update_interior(const Slab& slab, const Problem& problem, const float* u, float* next, gpuStream_t stream);

}  // namespace ch06
