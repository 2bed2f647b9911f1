// A peer in the course's own code: the classic vendor design for this 25-point star, the CUDA
// samples' FDTD3d (its structure, not its code). A block of 32 x 16 threads, one float each,
// stages its (16 + 2R) x (32 + 2R) xy tile with both halos in shared memory, plane by plane, and
// each thread walks its (x, y) column through the whole of z with the column's 2R + 1 values in
// registers (R behind, the current plane, R in front, the value R planes ahead loaded each
// plane), so out(p) is computed and stored at plane p. No step of the chapter is this: steps
// 06-07 share its tile and its march but take x from L1 and queue xy for R planes instead.
#pragma once

#include "seismic.hpp"

namespace ch03 {

// out = Dxx(in) + Dyy(in) + Dzz(in) over the interior, as a step; refuses what steps 01-09 refuse.
void laplacian_fdtd3d_design(const float* in, float* out, const Grid& grid);

}  // namespace ch03
