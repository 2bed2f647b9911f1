// Float64 CPU references for chapter 2, and the analytic fields the tests also check against.
#pragma once

#include <vector>

#include "stencil.hpp"

namespace ch02 {

// The interior of out = F(in), dense (x fastest), in float64.
template <class Stencil>
std::vector<double> reference(const std::vector<float>& in, const Grid& grid);

// A polynomial field whose image under every stencil of the chapter is known exactly:
// u = a x^2 + b y^2 + c z^2 + d xy + e yz + f xz + g x + h y + i z + j + m xyz, with (x, y, z)
// measured from the interior's centre.
struct Polynomial {
  double a, b, c, d, e, f, g, h, i, j, m;
  double value(double x, double y, double z) const;
  // What the stencil gives at (x, y, z): exact, since every 1D difference used is exact on it.
  template <class Stencil>
  double image(double x, double y, double z) const;
};

}  // namespace ch02
