#include "lbm.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ch05 {

void check_channel(const Channel& channel) {
  if (channel.nx < 1 || channel.ny < 1)
    throw std::invalid_argument("the channel needs at least one cell each way, not " + std::to_string(channel.nx) +
                                " x " + std::to_string(channel.ny));
  if (!(channel.tau > 0.5f) || !std::isfinite(channel.tau))
    throw std::invalid_argument("tau must be a finite number above 1/2 (the viscosity is (tau - 1/2)/3), not " +
                                std::to_string(channel.tau));
  if (!std::isfinite(channel.force)) throw std::invalid_argument("the body force must be finite");
  if (channel.ny > 65535)
    throw std::invalid_argument("at most 65535 cells across the channel (the steps launch a row of blocks per row of cells), not " +
                                std::to_string(channel.ny));
}

State state_at_rest(const Channel& channel) {
  State f(static_cast<std::size_t>(channel.cells()) * kDirections);
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = weight(static_cast<int>(i % kDirections));
  return f;
}

State random_state(const Channel& channel, const course::Seed& seed) {
  const std::size_t cells = static_cast<std::size_t>(channel.cells());
  const std::vector<float> rho = course::random_floats(cells, seed, 0, 0.95f, 1.05f);
  const std::vector<float> u = course::random_floats(2 * cells, seed, 1, -0.05f, 0.05f);
  const std::vector<float> noise = course::random_floats(cells * kDirections, seed, 2, -0.01f, 0.01f);
  State f(cells * kDirections);
  for (std::size_t cell = 0; cell < cells; ++cell) {
    const Moments m{rho[cell], u[2 * cell], u[2 * cell + 1]};
    for (int k = 0; k < kDirections; ++k) {
      const std::size_t at = cell * kDirections + k;
      f[at] = equilibrium(k, m) + noise[at] * weight(k);
    }
  }
  return f;
}

double steady_velocity(const Channel& channel, int y) {
  const double nu = (double{channel.tau} - 0.5) / 3;
  return channel.force / (2 * nu) * (y + 0.5) * (channel.ny - 0.5 - y);
}

double profile_error(const std::vector<float>& ux, const Channel& channel) {
  double distance = 0, norm = 0;
  for (int y = 0; y < channel.ny; ++y) {
    const double exact = steady_velocity(channel, y);
    for (int x = 0; x < channel.nx; ++x) {
      const double d = ux[static_cast<std::size_t>(y) * channel.nx + x] - exact;
      distance += d * d, norm += exact * exact;
    }
  }
  return std::sqrt(distance / norm);
}

}  // namespace ch05
