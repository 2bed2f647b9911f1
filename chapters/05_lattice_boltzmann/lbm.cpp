#include "lbm.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "course/device_buffer.hpp"

namespace ch05 {
namespace {

double viscosity(const Channel& c) { return (double{c.tau} - 0.5) / 3; }
double wavenumber(const Channel& box) { return 2 * std::numbers::pi / box.nx; }

}  // namespace

void check_channel(const Channel& channel) {
  if (channel.nx < 1 || channel.ny < 1)
    throw std::invalid_argument("the channel needs at least one cell each way, not " + std::to_string(channel.nx) +
                                " x " + std::to_string(channel.ny));
  if (!(channel.tau > 0.5f) || !std::isfinite(channel.tau))
    throw std::invalid_argument("tau must be a finite number above 1/2 (the viscosity is (tau - 1/2)/3), not " +
                                std::to_string(channel.tau));
  if (!std::isfinite(channel.force)) throw std::invalid_argument("the body force must be finite");
  if (channel.nx > 65536)
    throw std::invalid_argument("at most 65536 cells along the channel (a plane of cells is offset in 32 bits), not " +
                                std::to_string(channel.nx));
  if (channel.ny > 65535)
    throw std::invalid_argument("at most 65535 cells across the channel (the steps launch a row of blocks per row of cells), not " +
                                std::to_string(channel.ny));
}

State state_at_rest(const Channel& channel) {
  State f(static_cast<std::size_t>(channel.cells()) * kDirections);
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = weight(static_cast<int>(i % kDirections));
  return f;
}

void Lattice::load_at_rest(const Channel& channel) {
  // The nine weights, then the filled part copied after itself until the buffer is full: a few
  // dozen copies on the device instead of the whole state from the host.
  const State weights = state_at_rest({1, 1, channel.tau, channel.force});
  course::DeviceBuffer<float> rest(static_cast<std::size_t>(channel.cells()) * kDirections);
  GPU_CHECK(gpuMemcpy(rest.data(), weights.data(), sizeof(float) * kDirections, gpuMemcpyHostToDevice));
  for (std::size_t filled = kDirections; filled < rest.size(); filled *= 2)
    GPU_CHECK(gpuMemcpy(rest.data() + filled, rest.data(), sizeof(float) * std::min(filled, rest.size() - filled),
                        gpuMemcpyDeviceToDevice));
  load(rest.data());
  GPU_CHECK(gpuDeviceSynchronize());  // before `rest` is freed
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
  return channel.force / (2 * viscosity(channel)) * (y + 0.5) * (channel.ny - 0.5 - y);
}

std::int64_t steps_to_steady(const Channel& channel) {
  const double modes = std::numbers::pi / channel.ny;
  return static_cast<std::int64_t>(std::ceil(std::log(1e4) / (viscosity(channel) * modes * modes)));
}

Channel taylor_green_box(int n, float tau) { return {n, n, tau, 0.0f, false}; }

Velocity taylor_green_velocity(const Channel& box, int x, int y, double time) {
  const double k = wavenumber(box), decay = std::exp(-2 * viscosity(box) * k * k * time);
  return {-kTaylorGreenAmplitude * std::cos(k * x) * std::sin(k * y) * decay,
          kTaylorGreenAmplitude * std::sin(k * x) * std::cos(k * y) * decay};
}

State taylor_green_state(const Channel& box) {
  const double k = wavenumber(box), u2 = kTaylorGreenAmplitude * kTaylorGreenAmplitude;
  State f(static_cast<std::size_t>(box.cells()) * kDirections);
  for (int y = 0; y < box.ny; ++y)
    for (int x = 0; x < box.nx; ++x) {
      const Velocity u = taylor_green_velocity(box, x, y, 0);
      const double pressure = -u2 / 4 * (std::cos(2 * k * x) + std::cos(2 * k * y));
      const Moments m{static_cast<float>(1 + 3 * pressure), static_cast<float>(u.ux), static_cast<float>(u.uy)};
      // The strain rate: d ux/dx = -d uy/dy = U k sin(kx) sin(ky), the shear part is zero.
      const double strain = kTaylorGreenAmplitude * k * std::sin(k * x) * std::sin(k * y);
      for (int direction = 0; direction < kDirections; ++direction) {
        const int ex = velocity_x(direction), ey = velocity_y(direction);
        const double non_equilibrium = -3 * (double{box.tau} - 1) * weight(direction) * m.rho * (ex * ex - ey * ey) * strain;
        f[(static_cast<std::size_t>(y) * box.nx + x) * kDirections + direction] =
            static_cast<float>(equilibrium(direction, m) + non_equilibrium);
      }
    }
  return f;
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
