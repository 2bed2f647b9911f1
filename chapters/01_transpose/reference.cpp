#include "reference.hpp"

#include <cstddef>
#include <stdexcept>

namespace ch01 {

course::Comparison check_transpose(std::span<const float> in, std::span<const float> out, int rows, int cols) {
  course::Comparison result;
  result.extents = {std::size_t(cols), std::size_t(rows)};
  if (out.size() != in.size()) throw std::invalid_argument("check_transpose: input and output differ in size");
  for (std::size_t c = 0; c < static_cast<std::size_t>(cols); ++c)  // in the output's order
    for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r)
      result.check(c * rows + r, out[c * rows + r], in[r * cols + c]);
  return result;
}

std::vector<double> multiply_transposed_reference(std::span<const float> a, std::span<const float> x, int rows, int cols) {
  std::vector<double> y(cols, 0.0);
  for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r)
    for (std::size_t c = 0; c < static_cast<std::size_t>(cols); ++c) y[c] += double{a[r * cols + c]} * x[r];
  return y;
}

std::vector<double> multiply_reference(std::span<const float> a, std::span<const float> x, int rows, int cols) {
  std::vector<double> y(rows, 0.0);
  for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r)
    for (std::size_t c = 0; c < static_cast<std::size_t>(cols); ++c) y[r] += double{a[r * cols + c]} * x[c];
  return y;
}

}  // namespace ch01
