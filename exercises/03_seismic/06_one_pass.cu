// Generated from solutions/03_seismic/06_one_pass.cu by exercises/generate.py (fingerprint 58700fab8deb): edit the TODOs.
// Step 06 — one pass: x, y and z in one kernel that reads the field once and writes it once.
//
// A block of kTileX x kTileY threads (float4 each: 128 x 8 points) walks up kPlanes z-planes.
// For every plane p it stages the y tile (step 05) and computes xy(p) = Dxx + Dyy there; the
// centre float4 of each plane also enters a z window of 2R+1 registers (step 02). The output of
// plane p needs the planes up to p + R, so the thread runs R planes ahead: xy(p) waits in a
// queue of R+1 registers until plane p + R has arrived, then out(p) = xy(p) + Dzz is stored
// (streaming). Planes z_begin - R .. z_begin - 1 only fill the z window (their centres);
// planes z_end .. z_end + R - 1 as well.
// Bytes per point at best: 8 (read once, write once). The 2R planes of centres that two z-chunks
// share and the y-halo rows that two tiles share are read twice, from L2 when they hit there:
// L2 reads per point 1 + 2R / kPlanes plus the halo rows, DRAM reads 1. The read/write ratio
// approaches 1 as kPlanes grows; fewer, longer blocks fill the GPU less, so the time does not
// fall forever.
// Predicted: 20 -> 8 bytes per point against step 05 (2.5x at the same bandwidth), 3.5x
// against the three passes; the fused kernel's registers (9 + 5 float4 + the x window) limit
// occupancy, and with it the bytes in flight.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 3 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "steps.hpp"

namespace ch03 {
namespace {

constexpr int kTileX = 32, kTileY = 8;  // threads, one float4 each
constexpr int kTileRows = kTileY + 2 * kRadius;

template <int kPlanes>
__global__ void COURSE_LAUNCH_BOUNDS(kTileX* kTileY) one_pass_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // TODO: for p = z_begin - R .. z_end + R - 1: push plane p's centre into the z window; for p < z_end also stage its y tile and push xy(p) into a queue; once p - R >= z_begin store out(p - R) = queued xy + Dzz; shift both
  (void)in; (void)out; (void)g;
}

template <int kPlanes>
void laplacian_one_pass(const float* in, float* out, const Grid& grid) {
  require_aligned_rows(grid, 64, "step 06");
  course::launch(one_pass_kernel<kPlanes>,
                 {dim3(course::blocks_for(grid.dx, kTileX * 4), course::blocks_for(grid.dy, kTileY), course::blocks_for(grid.dz, kPlanes)),
                  dim3(kTileX, kTileY)},
                 in, out, grid);
}

}  // namespace

void laplacian_one_pass_16(const float* in, float* out, const Grid& grid) { laplacian_one_pass<16>(in, out, grid); }
void laplacian_one_pass_64(const float* in, float* out, const Grid& grid) { laplacian_one_pass<64>(in, out, grid); }
void laplacian_one_pass_256(const float* in, float* out, const Grid& grid) { laplacian_one_pass<256>(in, out, grid); }

}  // namespace ch03
