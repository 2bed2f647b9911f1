#include "course/polynomial.hpp"

#include <cmath>
#include <random>

namespace course {

namespace {
// d^n/dt^n t^p = p!/(p-n)! t^(p-n).
double power_derivative(int p, int n, double t) {
  if (n > p) return 0.0;
  double factor = 1.0;
  for (int k = 0; k < n; ++k) factor *= p - k;
  double power = 1.0;
  for (int k = 0; k < p - n; ++k) power *= t;
  return factor * power;
}
}  // namespace

Polynomial Polynomial::random(int degree, double scale, const Seed& seed, int stream) {
  std::seed_seq sequence{static_cast<std::uint32_t>(seed.value), static_cast<std::uint32_t>(seed.value >> 32),
                         static_cast<std::uint32_t>(stream), 0x9017u};
  std::mt19937 engine(sequence);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<Monomial> terms;
  for (int a = 0; a <= degree; ++a)
    for (int b = 0; b <= degree; ++b)
      for (int c = 0; c <= degree; ++c) terms.push_back({uniform(engine) / std::pow(scale, a + b + c), a, b, c});
  return Polynomial(std::move(terms));
}

double Polynomial::derivative(int nx, int ny, int nz, double x, double y, double z) const {
  double sum = 0.0;
  for (const Monomial& m : terms_)
    sum += m.coefficient * power_derivative(m.px, nx, x) * power_derivative(m.py, ny, y) * power_derivative(m.pz, nz, z);
  return sum;
}

}  // namespace course
