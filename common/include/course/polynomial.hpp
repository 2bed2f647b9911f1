// Polynomial fields in (x, y, z) with exact derivatives: a stencil whose finite differences are
// exact on a polynomial gives a value that is known in closed form at every point, at any grid
// size. The stencil chapters test every step against such a field beside the float64 reference.
#pragma once

#include <vector>

#include "course/random.hpp"

namespace course {

struct Monomial {
  double coefficient;
  int px, py, pz;  // coefficient * x^px * y^py * z^pz
};

class Polynomial {
 public:
  explicit Polynomial(std::vector<Monomial> terms) : terms_(std::move(terms)) {}

  // Every monomial x^a y^b z^c with a, b, c <= degree, each with a coefficient drawn uniformly
  // from [-1, 1] and divided by scale^(a+b+c): on [-scale, scale]^3 no term exceeds 1.
  static Polynomial random(int degree, double scale, const Seed& seed, int stream = 0);

  double value(double x, double y, double z) const { return derivative(0, 0, 0, x, y, z); }
  // d^(nx+ny+nz) u / dx^nx dy^ny dz^nz at (x, y, z).
  double derivative(int nx, int ny, int nz, double x, double y, double z) const;

 private:
  std::vector<Monomial> terms_;
};

}  // namespace course
