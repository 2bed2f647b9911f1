#include "reference.hpp"

#include <cstddef>

namespace ch01 {

std::vector<double> transpose_reference(std::span<const float> in, int rows, int cols) {
  std::vector<double> out(in.size());
  for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r)
    for (std::size_t c = 0; c < static_cast<std::size_t>(cols); ++c) out[c * rows + r] = in[r * cols + c];
  return out;
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
