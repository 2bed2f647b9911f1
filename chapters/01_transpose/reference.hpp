// Float64 CPU references for chapter 1.
#pragma once

#include <span>
#include <vector>

namespace ch01 {

std::vector<double> transpose_reference(std::span<const float> in, int rows, int cols);
std::vector<double> multiply_transposed_reference(std::span<const float> a, std::span<const float> x, int rows, int cols);
std::vector<double> multiply_reference(std::span<const float> a, std::span<const float> x, int rows, int cols);

}  // namespace ch01
