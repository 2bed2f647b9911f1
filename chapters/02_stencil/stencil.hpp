// Chapter 2: 3D stencils with coalesced plane loads and a circular queue of planes.
//
// A float grid has an interior of dx x dy x dz points and halos of hx, hy, hz points on every
// side, stored as one 1D array, x fastest. Every row is padded so that its interior starts on a
// 128-byte boundary: a warp reading 32 interior floats of a row then touches one 128-byte line,
// not two, and the x-halo costs one more 32-byte sector on each side.
// Every step computes out = F(in) over the interior and leaves the halo of `out` untouched.
#pragma once

#include <span>
#include <string_view>

#include "course/gpu.hpp"

namespace ch02 {

struct Grid {
  int dx, dy, dz;   // interior points
  int hx, hy, hz;   // halo width on each side
  int lead;         // floats before x = 0 in a row: a multiple of 32, at least hx
  int pitch;        // floats per row: a multiple of 32 (128 bytes)
  long long plane;  // floats per z-plane: pitch * (dy + 2 hy)
  long long size;   // floats in the array

  // Index of interior coordinates (x, y, z); the halo is at -h..-1 and d..d+h-1.
  __host__ __device__ long long at(int x, int y, int z) const {
    return lead + x + static_cast<long long>(y + hy) * pitch + (z + hz) * plane;
  }
  __host__ __device__ bool in_array(int x, int y, int z) const {
    return x >= -hx && x < dx + hx && y >= -hy && y < dy + hy && z >= -hz && z < dz + hz;
  }
};

// The layout for an interior and halos; throws std::invalid_argument for empty interiors or
// negative halos.
Grid make_grid(int dx, int dy, int dz, int hx, int hy, int hz);

// --- the steps: every one is a template over the stencil (stencils.hpp) -----------------------
using StencilFn = void (*)(const float* in, float* out, const Grid& grid);

template <class Stencil> void stencil_naive(const float* in, float* out, const Grid& grid);            // 00
template <class Stencil> void stencil_coalesced(const float* in, float* out, const Grid& grid);        // 01
template <class Stencil> void stencil_shared_tile(const float* in, float* out, const Grid& grid);      // 02
template <class Stencil> void stencil_circular_queue(const float* in, float* out, const Grid& grid);   // 03
template <class Stencil> void stencil_plane_load(const float* in, float* out, const Grid& grid);       // 04
template <class Stencil> void stencil_register_queue(const float* in, float* out, const Grid& grid);   // 05
template <class Stencil> void stencil_prefetch(const float* in, float* out, const Grid& grid);         // 06
template <class Stencil> void stencil_prefetch_4_rows(const float* in, float* out, const Grid& grid);  // 06
template <class Stencil> void stencil_z_chunks(const float* in, float* out, const Grid& grid);         // 07
template <class Stencil> void stencil_z_chunks_4_rows(const float* in, float* out, const Grid& grid);  // 07
template <class Stencil> void stencil_fewer_instructions(const float* in, float* out, const Grid& grid);  // 08
template <class Stencil> void stencil_deeper_prefetch(const float* in, float* out, const Grid& grid);     // 09
template <class Stencil> void stencil_async_copy(const float* in, float* out, const Grid& grid);          // 10
template <class Stencil> void stencil_wide_tiles(const float* in, float* out, const Grid& grid);          // 11

struct Step {
  std::string_view id;        // "03_circular_queue"
  std::string_view stencil;   // "box27"
  std::string_view source;    // the step's file under solutions/ or exercises/
  StencilFn run;
};
std::span<const Step> steps();

}  // namespace ch02
