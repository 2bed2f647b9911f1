// The chapter's steps x stencils, in order: the tests and the benchmark iterate this table.
#include <array>

#include "stencils.hpp"

namespace ch02 {
namespace {

template <class Stencil>
constexpr std::array<Step, 14> steps_for() {
  return {{
      {"00_naive", Stencil::name, "02_stencil/00_naive.cu", stencil_naive<Stencil>},
      {"01_coalesced", Stencil::name, "02_stencil/01_coalesced.cu", stencil_coalesced<Stencil>},
      {"02_shared_tile", Stencil::name, "02_stencil/02_shared_tile.cu", stencil_shared_tile<Stencil>},
      {"03_circular_queue", Stencil::name, "02_stencil/03_circular_queue.cu", stencil_circular_queue<Stencil>},
      {"04_plane_load", Stencil::name, "02_stencil/04_plane_load.cu", stencil_plane_load<Stencil>},
      {"05_register_queue", Stencil::name, "02_stencil/05_register_queue.cu", stencil_register_queue<Stencil>},
      {"06_prefetch", Stencil::name, "02_stencil/06_prefetch.cu", stencil_prefetch<Stencil>},
      {"06_prefetch_4_rows", Stencil::name, "02_stencil/06_prefetch.cu", stencil_prefetch_4_rows<Stencil>},
      {"07_z_chunks", Stencil::name, "02_stencil/07_z_chunks.cu", stencil_z_chunks<Stencil>},
      {"07_z_chunks_4_rows", Stencil::name, "02_stencil/07_z_chunks.cu", stencil_z_chunks_4_rows<Stencil>},
      {"08_fewer_instructions", Stencil::name, "02_stencil/08_fewer_instructions.cu", stencil_fewer_instructions<Stencil>},
      {"09_deeper_prefetch", Stencil::name, "02_stencil/09_deeper_prefetch.cu", stencil_deeper_prefetch<Stencil>},
      {"10_async_copy", Stencil::name, "02_stencil/10_async_copy.cu", stencil_async_copy<Stencil>},
      {"11_wide_tiles", Stencil::name, "02_stencil/11_wide_tiles.cu", stencil_wide_tiles<Stencil>},
  }};
}

template <size_t... N>
constexpr auto join(const std::array<Step, N>&... tables) {
  std::array<Step, (N + ...)> all{};
  size_t next = 0;
  ((std::copy(tables.begin(), tables.end(), all.begin() + next), next += N), ...);
  return all;
}

}  // namespace

std::span<const Step> steps() {
  static const auto table =
      join(steps_for<Star7>(), steps_for<Box27>(), steps_for<CompoundR1>(), steps_for<CompoundR2>());
  return table;
}

}  // namespace ch02
