#include <stdexcept>
#include <string>

#include "stencil.hpp"

namespace ch02 {

Grid make_grid(int dx, int dy, int dz, int hx, int hy, int hz) {
  if (dx < 1 || dy < 1 || dz < 1 || hx < 0 || hy < 0 || hz < 0)
    throw std::invalid_argument("grid " + std::to_string(dx) + "x" + std::to_string(dy) + "x" + std::to_string(dz) +
                                ": the interior must be at least 1x1x1 and halos not negative");
  constexpr int kLine = 32;  // floats per 128-byte line
  Grid g{};
  g.dx = dx, g.dy = dy, g.dz = dz, g.hx = hx, g.hy = hy, g.hz = hz;
  g.lead = (hx + kLine - 1) / kLine * kLine;
  g.pitch = (g.lead + dx + hx + kLine - 1) / kLine * kLine;
  g.plane = static_cast<long long>(g.pitch) * (dy + 2 * hy);
  g.size = g.plane * (dz + 2 * hz);
  return g;
}

}  // namespace ch02
