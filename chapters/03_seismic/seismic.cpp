#include <stdexcept>
#include <string>

#include "seismic.hpp"

namespace ch03 {

void require_aligned_rows(const Grid& grid, int align, const char* step) {
  if (grid.lead % align != 0 || grid.pitch % align != 0)
    throw std::invalid_argument(std::string(step) + " needs rows aligned to " + std::to_string(align) +
                                " floats (course::make_grid(..., " + std::to_string(align) + "))");
  course::require_halo<Laplacian8>(grid);
}

}  // namespace ch03
