#include "course/grid3d.hpp"

#include <stdexcept>
#include <string>

namespace course {

Grid make_grid(int dx, int dy, int dz, int hx, int hy, int hz, int align) {
  if (dx < 1 || dy < 1 || dz < 1 || hx < 0 || hy < 0 || hz < 0 || align < 1)
    throw std::invalid_argument("grid " + std::to_string(dx) + "x" + std::to_string(dy) + "x" + std::to_string(dz) +
                                ": the interior must be at least 1x1x1, halos not negative and the alignment positive");
  Grid g{};
  g.dx = dx, g.dy = dy, g.dz = dz, g.hx = hx, g.hy = hy, g.hz = hz;
  g.lead = (hx + align - 1) / align * align;
  g.pitch = (g.lead + dx + hx + align - 1) / align * align;
  g.plane = static_cast<long long>(g.pitch) * (dy + 2 * hy);
  g.size = g.plane * (dz + 2 * hz);
  return g;
}

void require_row_alignment(const Grid& g, int floats, const char* why) {
  if (g.lead % floats != 0 || g.pitch % floats != 0)
    throw std::invalid_argument(std::string(why) + ": rows must be aligned to " + std::to_string(floats) +
                                " floats (course::make_grid(..., " + std::to_string(floats) + ")); this grid's rows are " +
                                std::to_string(g.pitch) + " floats with the interior at float " + std::to_string(g.lead));
}

std::vector<float> interior(const std::vector<float>& array, const Grid& g) {
  std::vector<float> dense;
  dense.reserve(std::size_t(g.dx) * g.dy * g.dz);
  for (int z = 0; z < g.dz; ++z)
    for (int y = 0; y < g.dy; ++y)
      for (int x = 0; x < g.dx; ++x) dense.push_back(array[g.at(x, y, z)]);
  return dense;
}

}  // namespace course
