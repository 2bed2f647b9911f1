// Float64 CPU references for chapter 1, and the one check of each result that its tests and
// its benchmark share.
#pragma once

#include <span>
#include <vector>

#include "course/compare.hpp"

namespace ch01 {

std::vector<double> multiply_transposed_reference(std::span<const float> a, std::span<const float> x, int rows, int cols);
std::vector<double> multiply_reference(std::span<const float> a, std::span<const float> x, int rows, int cols);

// A transpose moves values without arithmetic: `out` (cols x rows) must equal in^T exactly.
course::Comparison check_transpose(std::span<const float> in, std::span<const float> out, int rows, int cols);

// Float sums of `terms` products of numbers in [-1, 1]: the error grows with the length of the sum.
inline course::Tolerance sum_tolerance(int terms) { return {2e-6 * terms, 1e-5}; }

}  // namespace ch01
