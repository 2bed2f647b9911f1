// Chapter 1: coalescing, the shared-memory transpose and the flagged column transpose.
//
// The steps are registered in steps.hpp and live in solutions/01_transpose/ (or
// exercises/01_transpose/ in the student track). Here: step 03's flagged matrix and the patent's
// rule for a column-sequential access.
#pragma once

#include <cstdint>
#include <span>

#include "course/device_buffer.hpp"
#include "steps.hpp"

namespace ch01 {

// --- step 03: the flagged column transpose ----------------------------------------------------------
// The patent's rule for recognising a column-sequential access, as the patent's hardware would
// apply it to the addresses of each half-warp's load. A program cannot watch its own loads, so
// FlaggedMatrix does not call these: it goes by the method its caller chooses
// (multiply_transposed is the column-sequential access, multiply the other kind). They are
// the rule itself, tested on their own.
// `indices` are the element indices one half-warp (16 threads, in lane order) reads from a
// `rows x cols` row-major block. Each index lies at walk position col * rows + row along the
// column-by-column walk (col = index mod cols, row = index div cols).
// A column access: the lanes sit at consecutive walk positions within one column, or two
// neighbouring columns (the walk wraps once, from the last row of the left one to row 0 of the
// right one).
bool is_column_access(std::span<const std::int64_t> indices, std::int64_t rows, std::int64_t cols);
// Sequential: a column access whose smallest walk position is one past the largest of the
// previous access (the next row, or row 0 of the next column after row rows-1). With no previous
// access (empty), any column access.
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

  // The class cannot see writes to the original: whoever writes it calls invalidate() after, and
  // the next column-sequential access transposes again (the copy's storage is kept).
  void invalidate() { flag_ = false; }

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
