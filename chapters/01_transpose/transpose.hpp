// Chapter 1: coalescing, the shared-memory transpose and the flagged column transpose.
//
// Every function takes device pointers to row-major float matrices and returns when its kernels
// are launched (checked). A `rows x cols` input transposes into a `cols x rows` output.
// The steps live in solutions/01_transpose/ (or exercises/01_transpose/ in the student track).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "course/device_buffer.hpp"

namespace ch01 {

// --- transposes -----------------------------------------------------------------------------------
using TransposeFn = void (*)(const float* in, float* out, int rows, int cols);

void transpose_naive(const float* in, float* out, int rows, int cols);                // 00
void transpose_write_coalesced(const float* in, float* out, int rows, int cols);      // 01
void transpose_tile_unpadded(const float* in, float* out, int rows, int cols);        // 02
void transpose_tile_padded(const float* in, float* out, int rows, int cols);          // 02
void transpose_rows_per_thread(const float* in, float* out, int rows, int cols);      // 04
void transpose_vector_tile(const float* in, float* out, int rows, int cols);          // 05
void transpose_vector_tile_streaming(const float* in, float* out, int rows, int cols);  // 05
void transpose_block_order(const float* in, float* out, int rows, int cols);          // 06
void transpose_block_order_8_rows(const float* in, float* out, int rows, int cols);   // 06

struct TransposeStep {
  std::string_view id;           // test and benchmark name, e.g. "02_tile_padded"
  std::string_view description;  // one line for tables
  std::string_view source;       // the step's file under solutions/ or exercises/
  TransposeFn run;
};
std::span<const TransposeStep> transpose_steps();

// --- column-sequential consumers: y = A^T x, i.e. y[c] = sum over r of A[r][c] * x[r] ------------
using ColumnConsumerFn = void (*)(const float* a, const float* x, float* y, int rows, int cols);

void multiply_transposed_naive(const float* a, const float* x, float* y, int rows, int cols);      // 00
void multiply_transposed_coalesced(const float* a, const float* x, float* y, int rows, int cols);  // 01

// --- step 03: the flagged column transpose ----------------------------------------------------------
// The patent's rule for recognising a column-sequential access. `indices` are the element indices
// one half-warp (16 threads, in lane order) reads from a `rows x cols` row-major block.
// A column access: one column, consecutive indices N apart; or two neighbouring columns where the
// walk wraps from the last row of the left one to row 0 of the right one.
bool is_column_access(std::span<const std::int64_t> indices, std::int64_t rows, std::int64_t cols);
// Sequential: this access continues where the previous one ended (next row of the same column, or
// row 0 of the next column after row rows-1). With no previous access (empty), any column access.
bool is_column_sequential(std::span<const std::int64_t> previous, std::span<const std::int64_t> current,
                          std::int64_t rows, std::int64_t cols);

// A read-only matrix that carries a flag: "a transposed copy exists". A column-sequential access
// with the flag clear transposes the matrix while reading it, keeps the copy and sets the flag;
// later column-sequential accesses read the copy, coalesced. Other accesses read the original.
class FlaggedMatrix {
 public:
  // Reserves the copy's storage now, so no allocation happens inside a timed access.
  FlaggedMatrix(const float* matrix, int rows, int cols);

  void multiply_transposed(const float* x, float* y);  // column-sequential access: y = A^T x
  void multiply(const float* x, float* y);             // row access: y = A x, always the original

  bool has_transposed_copy() const { return flag_; }
  int transpositions() const { return transpositions_; }
  const float* transposed_copy() const { return flag_ ? copy_.data() : nullptr; }

 private:
  const float* original_;
  int rows_;
  int cols_;
  course::DeviceBuffer<float> copy_;
  bool flag_ = false;
  int transpositions_ = 0;
};

}  // namespace ch01
