#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "wave.hpp"

namespace ch06 {
namespace {

// 5x the largest error divided by (steps + 1)^2 seen in the tests on random fields (8.6e-8).
constexpr double kErrorPerStep = 4.5e-7;

// K L(u) at every point of a dense periodic field, in float64.
std::vector<double> scaled_laplacian(const Problem& p, const std::vector<double>& u) {
  const auto index = [&](int x, int y, int z) {
    x = (x + p.nx) % p.nx, y = (y + p.ny) % p.ny, z = (z + p.nz) % p.nz;
    return (std::size_t(z) * p.ny + y) * p.nx + x;
  };
  std::vector<double> result(u.size());
  for (int z = 0; z < p.nz; ++z)
    for (int y = 0; y < p.ny; ++y)
      for (int x = 0; x < p.nx; ++x) {
        double sum = 3 * course::second_derivative(kRadius, 0) * u[index(x, y, z)];
        for (int d = 1; d <= kRadius; ++d)
          sum += course::second_derivative(kRadius, d) *
                 (u[index(x - d, y, z)] + u[index(x + d, y, z)] + u[index(x, y - d, z)] + u[index(x, y + d, z)] +
                  u[index(x, y, z - d)] + u[index(x, y, z + d)]);
        result[index(x, y, z)] = p.courant2 * sum;
      }
  return result;
}

}  // namespace

double StandingMode::eigenvalue(const Problem& p) const {
  const auto along = [](int m, int n) {
    double sum = course::second_derivative(kRadius, 0);
    for (int d = 1; d <= kRadius; ++d) sum += 2 * course::second_derivative(kRadius, d) * std::cos(2 * std::numbers::pi * m * d / n);
    return sum;
  };
  return along(mx, p.nx) + along(my, p.ny) + along(mz, p.nz);
}

double StandingMode::theta(const Problem& p) const { return std::acos(1 + p.courant2 * eigenvalue(p) / 2); }

void reference_steps(const Problem& problem, std::vector<double>& u, std::vector<double>& previous, int steps) {
  for (int step = 0; step < steps; ++step) {
    const std::vector<double> kl = scaled_laplacian(problem, u);
    for (std::size_t i = 0; i < u.size(); ++i) previous[i] = 2 * u[i] - previous[i] + kl[i];
    std::swap(u, previous);
  }
}

double energy(const Problem& problem, const std::vector<double>& u, const std::vector<double>& previous) {
  const std::vector<double> kl = scaled_laplacian(problem, previous);
  double sum = 0;
  for (std::size_t i = 0; i < u.size(); ++i) sum += (u[i] - previous[i]) * (u[i] - previous[i]) - u[i] * kl[i];
  return sum;
}

std::vector<double> ricker_pulse(const Problem& p, double sigma) {
  std::vector<double> u;
  u.reserve(std::size_t(p.nx) * p.ny * p.nz);
  for (int z = 0; z < p.nz; ++z)
    for (int y = 0; y < p.ny; ++y)
      for (int x = 0; x < p.nx; ++x) {
        const double dx = x - p.nx / 2, dy = y - p.ny / 2, dz = z - p.nz / 2;
        const double r2 = (dx * dx + dy * dy + dz * dz) / (sigma * sigma);
        u.push_back((1 - r2) * std::exp(-r2 / 2));
      }
  return u;
}

course::Tolerance tolerance(int steps, double amplitude) {
  return {kErrorPerStep * double(steps + 1) * double(steps + 1) * amplitude, 0.0};
}

}  // namespace ch06
