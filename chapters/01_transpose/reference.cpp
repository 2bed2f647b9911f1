#include "reference.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace ch01 {

course::Comparison check_transpose(std::span<const float> in, std::span<const float> out, int rows, int cols) {
  if (out.size() != in.size()) throw std::invalid_argument("check_transpose: input and output differ in size");
  // The reference is the input read by columns: out(c, r) = in(r, c). Read in bands of 64
  // columns, so that both arrays are read along their rows (a column of a large matrix misses the
  // cache at every element), and the first wrong elements, in the output's order, are kept apart.
  constexpr std::size_t kBand = 64, kShown = 8;
  const std::size_t n_rows = static_cast<std::size_t>(rows), n_cols = static_cast<std::size_t>(cols);
  course::Comparison result;
  result.extents = {n_cols, n_rows};
  std::vector<std::size_t> first;  // the smallest output indices that are wrong, sorted
  for (std::size_t c0 = 0; c0 < n_cols; c0 += kBand) {
    const std::size_t c1 = std::min(n_cols, c0 + kBand);
    for (std::size_t r = 0; r < n_rows; ++r)
      for (std::size_t c = c0; c < c1; ++c) {
        const std::size_t index = c * n_rows + r;
        if (out[index] == in[r * n_cols + c]) continue;  // a transpose moves values: equal or wrong
        ++result.mismatches;
        if (first.size() < kShown || index < first.back()) {
          first.insert(std::upper_bound(first.begin(), first.end(), index), index);
          if (first.size() > kShown) first.pop_back();
        }
      }
  }
  result.checked = in.size();
  for (const std::size_t index : first) result.first.push_back({index, out[index], in[index % n_rows * n_cols + index / n_rows]});
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
