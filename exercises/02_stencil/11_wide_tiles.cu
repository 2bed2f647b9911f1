// Generated from solutions/02_stencil/11_wide_tiles.cu by exercises/generate.py (fingerprint f671aea5ba68): edit the TODOs.
// Step 11 — wide tiles: a tile row is read in one long run of bytes, and z is cut finer.
//
// Step 10 is limited by neither its arithmetic nor its shared memory (the README's traffic
// table: for the box DRAM 74% busy, shared memory and the FMA pipe 41%), and in an earlier
// session, timed as a plain copy through the same tiles, it was hardly faster (not re-measured
// for the recorded results). What limits it is how the cube is read, and most of all the
// x-halo: a tile row of step 10 is 288 contiguous bytes (64 floats and the halos), and its
// 16-byte halo copies add 2 sectors to 8, a quarter more L2 reads (the README's L2 model and
// its step 11 section). Here blocks are one row of 256 threads, each with 8 rows of outputs, so a
// tile row is 1056 contiguous bytes and the x-halo is 2 sectors in 32 instead of in 8. With the
// rows so wide, z is cut into 16-plane chunks: twice the blocks (4096 at 512^3) for the same
// machine, at 2 planes re-read in 16.
// Radius 2 keeps step 10's shape: its time is arithmetic (256-wide tiles were slightly slower in
// the session that wrote this step; not re-measured). The variants tried before this one are in
// the README.
// Predicted: the same bytes read in longer runs keep DRAM busier, and the box moves toward what
// plain tiled copies reached in that session (close to the copy ceiling; README, Variants tried).
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 2 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include <type_traits>

#include "steps.hpp"

namespace ch02 {
namespace {

constexpr int kStages = 3;      // tiles in the ring: plane p in use, p+1 and p+2 on their way
constexpr int kMinBlocks = 6;   // per multiprocessor: at most 42 registers a thread
constexpr int kVector = 4;      // floats per 16-byte copy

// Radius 1: one row of 256 threads, 8 rows of outputs each, 16-plane chunks. Radius 2 keeps
// step 10's 64x4 threads with 4 rows (5 partial sums per row: 8 rows would spill) and 32-plane
// chunks (each chunk re-reads 2rz planes).
template <class Stencil>
struct Shape {
  static constexpr bool kWide = Stencil::rz == 1;
  static constexpr int kBlockX = kWide ? 256 : 64;
  static constexpr int kBlockY = kWide ? 1 : 4;
  static constexpr int kRows = kWide ? 8 : 4;
  static constexpr int kChunk = kWide ? 16 : 32;
};

template <class Stencil>
__global__ void COURSE_LAUNCH_BOUNDS(Shape<Stencil>::kBlockX * Shape<Stencil>::kBlockY, kMinBlocks)
    wide_tile_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // TODO: step 10's ring of 3 tiles and 16-byte copies, over Shape<Stencil>'s block, rows and chunks
}

}  // namespace

template <class Stencil>
void stencil_wide_tiles(const float* in, float* out, const Grid& grid) {
  using S = Shape<Stencil>;
  require_halo<Stencil>(grid);
  require_16_byte_rows(in, grid, "step 11 copies 16 bytes at a time");
  course::launch(wide_tile_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, S::kBlockX), course::blocks_for(grid.dy, S::kBlockY * S::kRows),
                       course::blocks_for(grid.dz, S::kChunk)),
                  dim3(S::kBlockX, S::kBlockY)},
                 in, out, grid);
}

CH02_INSTANTIATE(stencil_wide_tiles)

}  // namespace ch02
