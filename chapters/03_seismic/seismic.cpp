#include "seismic.hpp"

namespace ch03 {

void require_aligned_rows(const Grid& grid, int align, const char* step) {
  course::require_row_alignment(grid, align, step);
  course::require_halo<Laplacian8>(grid);
}

}  // namespace ch03
