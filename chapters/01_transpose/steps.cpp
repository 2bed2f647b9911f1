// The chapter's transpose steps, in order: the tests and the benchmark iterate this table.
#include <array>

#include "transpose.hpp"

namespace ch01 {

std::span<const TransposeStep> transpose_steps() {
  static constexpr std::array steps{
      TransposeStep{"00_naive", "thread per element: coalesced reads, strided writes", "01_transpose/00_naive.cu", transpose_naive},
      TransposeStep{"01_write_coalesced", "threads re-mapped: strided reads, coalesced writes", "01_transpose/01_coalesced.cu", transpose_write_coalesced},
      TransposeStep{"02_tile_unpadded", "32x32 shared tile, 32-way bank conflicts", "01_transpose/02_shared_tile.cu", transpose_tile_unpadded},
      TransposeStep{"02_tile_padded", "32x33 shared tile, conflict-free", "01_transpose/02_shared_tile.cu", transpose_tile_padded},
      TransposeStep{"04_rows_per_thread", "32x32 tile, 32x8 threads, 4 rows each", "01_transpose/04_rows_per_thread.cu", transpose_rows_per_thread},
      TransposeStep{"05_vector_tile", "64x64 tile, 16-byte loads and stores", "01_transpose/05_vector_tile.cu", transpose_vector_tile},
      TransposeStep{"05_vector_tile_streaming", "as 05, with streaming stores", "01_transpose/05_vector_tile.cu", transpose_vector_tile_streaming},
      TransposeStep{"06_block_order", "as 05, blocks walk down the input: writes in long runs", "01_transpose/06_block_order.cu", transpose_block_order},
      TransposeStep{"06_block_order_8_rows", "as 06, 16x8 threads, 8 rows each", "01_transpose/06_block_order.cu", transpose_block_order_8_rows},
  };
  return steps;
}

}  // namespace ch01
