// Generated from solutions/03_seismic/09_prefetched_sums.cu by exercises/generate.py (fingerprint 79180cbab8ff): edit the TODOs.
// Step 09 — an optional experiment: step 07's loads with step 08's partial sums.
//
// Not a step forward (it is no faster than step 07): a question put to the GPU, which half of
// step 08 matters, how a plane arrives or what is computed on it.
// Timed as copies with no arithmetic (copy_ceiling.cu), the two ways of bringing a plane in
// differ: step 07's (two tile rows and the x neighbours fetched into registers one plane ahead,
// the x neighbours from global memory, where the neighbouring threads' rows make them L1 hits)
// copies the cube at 0.91 of the device copy, step 08's ring of haloed tiles filled by cp.async
// at 0.76, moving 2.26 cubes through DRAM instead of 1.98 (the README's copy table). Step 08's
// kernel also keeps the shared-memory pipe 67% busy: the x neighbours come from the tile too.
// So this step takes step 07's loads and keeps step 08's arithmetic: 9 partial sums in a ring
// whose positions are fixed by unrolling the plane loop by 9, 25 FMAs a point, nothing shifted.
// Predicted: step 08's instructions (about 210 M warp instructions instead of 07's 312 M) on
// the structure whose copy reaches 0.91: below step 08's 0.396 ms; registers: the prefetched
// plane (5 float4) replaces step 08's copy offsets, about 100, so still 2 blocks per
// multiprocessor.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 3 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include <type_traits>

#include "steps.hpp"

namespace ch03 {
namespace {

constexpr int kTileX = 32, kTileY = 8;  // threads, one float4 each: 128 x 8 points
constexpr int kTileRows = kTileY + 2 * kRadius;
constexpr int kPlanes = 64;
constexpr int kSums = 2 * kRadius + 1;
static_assert(kTileRows == 2 * kTileY, "each thread stages two rows of the tile");

__global__ void COURSE_LAUNCH_BOUNDS(kTileX* kTileY, 2) prefetched_sums_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // TODO: step 07's fetch of plane p+1 into registers before plane p is computed, step 08's ring of 9 partial sums and its loop unrolled by 9
  (void)in; (void)out; (void)g;
}

void launch_prefetched_sums(const float* in, float* out, const Grid& grid) {
  require_aligned_rows(grid, 64, "step 09");
  course::launch(prefetched_sums_kernel,
                 {dim3(course::blocks_for(grid.dx, kTileX * 4), course::blocks_for(grid.dy, kTileY), course::blocks_for(grid.dz, kPlanes)),
                  dim3(kTileX, kTileY)},
                 in, out, grid);
}

}  // namespace

void laplacian_prefetched_sums(const float* in, float* out, const Grid& grid) { launch_prefetched_sums(in, out, grid); }

}  // namespace ch03
