#include "reference.hpp"

#include <algorithm>
#include <thread>

namespace ch05 {
namespace {

// The velocity set again, on purpose: written apart from lbm.hpp's, a wrong constant there
// makes every step differ from this reference.
constexpr int kEx[kDirections] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
constexpr int kEy[kDirections] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
constexpr int kOpposite[kDirections] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
constexpr double kWeight[kDirections] = {4.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36};

// Rows [first, last) of one time step, from `in` to `out`.
void step_rows(const Channel& c, const std::vector<double>& in, std::vector<double>& out, int first, int last,
               ReferenceFields* fields) {
  const double omega = 1.0 / c.tau;
  for (int y = first; y < last; ++y)
    for (int x = 0; x < c.nx; ++x) {
      const long long cell = static_cast<long long>(y) * c.nx + x;
      double f[kDirections];
      for (int k = 0; k < kDirections; ++k) {
        const int from_x = (x - kEx[k] + c.nx) % c.nx, from_y = c.walls ? y - kEy[k] : (y - kEy[k] + c.ny) % c.ny;
        f[k] = from_y < 0 || from_y >= c.ny ? in[cell * kDirections + kOpposite[k]]  // bounced off a wall
                                            : in[(static_cast<long long>(from_y) * c.nx + from_x) * kDirections + k];
      }
      double rho = 0, mx = 0, my = 0;
      for (int k = 0; k < kDirections; ++k) rho += f[k], mx += f[k] * kEx[k], my += f[k] * kEy[k];
      const double ux = mx / rho, uy = my / rho;
      for (int k = 0; k < kDirections; ++k) {
        const double eu = kEx[k] * ux + kEy[k] * uy;
        const double feq = kWeight[k] * rho * (1 + 3 * eu + 4.5 * eu * eu - 1.5 * (ux * ux + uy * uy));
        out[cell * kDirections + k] = f[k] - omega * (f[k] - feq) + 3 * kWeight[k] * kEx[k] * double{c.force};
      }
      if (fields) fields->rho[cell] = rho, fields->ux[cell] = ux, fields->uy[cell] = uy;
    }
}

}  // namespace

void reference_advance(const Channel& channel, std::vector<double>& f, int steps, ReferenceFields* fields) {
  check_channel(channel);
  const std::size_t cells = static_cast<std::size_t>(channel.cells());
  if (fields) *fields = {std::vector<double>(cells), std::vector<double>(cells), std::vector<double>(cells)};
  std::vector<double> next(f.size());
  // One thread per 64 Ki cells at most: small grids stay on one.
  const long long most = std::min<long long>({std::thread::hardware_concurrency(), channel.ny, channel.cells() / 65536 + 1});
  const int workers = static_cast<int>(std::max(most, 1LL));
  for (int step = 0; step < steps; ++step) {
    ReferenceFields* wanted = step == steps - 1 ? fields : nullptr;
    std::vector<std::jthread> threads;
    for (int w = 0; w < workers; ++w)
      threads.emplace_back([&, w] {
        step_rows(channel, f, next, channel.ny * w / workers, channel.ny * (w + 1) / workers, wanted);
      });
    threads.clear();  // joins
    f.swap(next);
  }
}

}  // namespace ch05
