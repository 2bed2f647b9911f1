#include "reference.hpp"

#include "stencils.hpp"

namespace ch02 {

template <class Stencil>
std::vector<double> reference(const std::vector<float>& in, const Grid& grid) {
  std::vector<double> out(static_cast<size_t>(grid.dx) * grid.dy * grid.dz);
  size_t n = 0;
  for (int z = 0; z < grid.dz; ++z)
    for (int y = 0; y < grid.dy; ++y)
      for (int x = 0; x < grid.dx; ++x)
        out[n++] = apply<Stencil, double>([&](int i, int j, int k) { return double{in[grid.at(x + i, y + j, z + k)]}; });
  return out;
}

double Polynomial::value(double x, double y, double z) const {
  return a * x * x + b * y * y + c * z * z + d * x * y + e * y * z + f * x * z + g * x + h * y + i * z + j + m * x * y * z;
}

template <>
double Polynomial::image<Star7>(double, double, double) const {
  return 2 * (a + b + c);  // m xyz has no Laplacian
}
template <>
double Polynomial::image<Box27>(double x, double y, double z) const {
  return value(x, y, z) + 2.0 / 3 * (a + b + c);  // the mean of (x+s)^2 over s = -1, 0, 1 is x^2 + 2/3
}
template <>
double Polynomial::image<CompoundR1>(double x, double y, double z) const {
  return 2 * (a + b + c) + (d + m * z) + (e + m * x) + (f + m * y) + m;
}
template <>
double Polynomial::image<CompoundR2>(double x, double y, double z) const {
  return image<CompoundR1>(x, y, z);  // same operator, higher order: both exact on this field
}

template std::vector<double> reference<Star7>(const std::vector<float>&, const Grid&);
template std::vector<double> reference<Box27>(const std::vector<float>&, const Grid&);
template std::vector<double> reference<CompoundR1>(const std::vector<float>&, const Grid&);
template std::vector<double> reference<CompoundR2>(const std::vector<float>&, const Grid&);

}  // namespace ch02
