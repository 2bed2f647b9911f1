// A padded 3D grid of floats with halos, as the stencil chapters store it.
//
// The interior has dx x dy x dz points and halos of hx, hy, hz points on every side, stored as
// one 1D array, x fastest. Rows are padded so that the interior of every row starts on an
// `align`-float boundary: with 32 floats (128 bytes), a warp reading 32 interior floats of a row
// touches one 128-byte line, not two, and the x-halo costs one more 32-byte sector on each side.
#pragma once

#include <cstddef>
#include <vector>

#include "course/gpu.hpp"

namespace course {

struct Grid {
  int dx, dy, dz;   // interior points
  int hx, hy, hz;   // halo width on each side
  int lead;         // floats before x = 0 in a row: a multiple of the alignment, at least hx
  int pitch;        // floats per row: a multiple of the alignment
  long long plane;  // floats per z-plane: pitch * (dy + 2 hy)
  long long size;   // floats in the array

  // Index of interior coordinates (x, y, z); the halo is at -h..-1 and d..d+h-1.
  __host__ __device__ long long at(int x, int y, int z) const {
    return lead + x + static_cast<long long>(y + hy) * pitch + (z + hz) * plane;
  }
  __host__ __device__ bool in_array(int x, int y, int z) const {
    return x >= -hx && x < dx + hx && y >= -hy && y < dy + hy && z >= -hz && z < dz + hz;
  }
  // The array's shape, slowest first (z, y, x), halos and padding included.
  std::vector<std::size_t> array_extents() const {
    return {std::size_t(dz + 2 * hz), std::size_t(dy + 2 * hy), std::size_t(pitch)};
  }
  // The interior's shape, slowest first (z, y, x).
  std::vector<std::size_t> interior_extents() const { return {std::size_t(dz), std::size_t(dy), std::size_t(dx)}; }
};

// The layout for an interior and halos, rows aligned to `align` floats (1: rows packed, no
// padding). Throws std::invalid_argument for empty interiors, negative halos or an alignment < 1.
Grid make_grid(int dx, int dy, int dz, int hx, int hy, int hz, int align = 32);

// Steps that load several floats at once from a row need every row, and the interior's first
// column, to start on a multiple of `floats` floats: before any launch they refuse a grid whose
// lead or pitch is not, with std::invalid_argument naming `why` (the step and what it does).
void require_row_alignment(const Grid& grid, int floats, const char* why);

// The interior of a whole array, dense, x fastest.
std::vector<float> interior(const std::vector<float>& array, const Grid& grid);

}  // namespace course
