// Generated from solutions/02_stencil/11_wide_tiles.cu by exercises/generate.py: edit the TODOs, not the solution.
// Step 11 — wide tiles: a tile row is read in one long run of bytes, and z is cut finer.
//
// Step 10 is limited by neither its arithmetic nor its shared memory: the same kernel with one
// weight instead of 27 (a copy through the same tiles) took 0.314 ms against the box's 0.322.
// What limits it is how the cube is read. Measured with plain tiled copies (each block walks z
// through its column and copies the tile's floats, 64x32 tiles, 32-plane chunks; H200, 512^3):
//   - without halos 0.288 ms (0.88 of the copy ceiling), with step 10's halos 0.320 ms;
//   - the x-halo alone costs 8-9%: DRAM reads 1.075 cubes where the 16-byte halos are 25% more
//     L2 reads; the z-halo (2 planes in 32) 3%; the y-halo nothing (that variant was 3% faster).
// A tile row of step 10 is 288 contiguous bytes (64 floats and the halos); here blocks are one
// row of 256 threads, each with 8 rows of outputs, so a tile row is 1056 contiguous bytes and
// the x-halo is 2 sectors in 32 instead of in 8. With the rows so wide, z is cut into 16-plane
// chunks: twice the blocks (4096 at 512^3) for the same machine, at 2 planes re-read in 16.
// Radius 2 keeps step 10's shape: its time is arithmetic, and 256-wide tiles were 1% slower.
// Predicted: the same bytes read in longer runs keep DRAM busier, and the box moves toward the
// tiled copy's 0.88.
// Measured (H200, 512^3, commit f85206e): box27 0.302 ms, 3556 GB/s (+5% over step 10 in the
// same run), 0.84 of the copy ceiling; compound_r1 3555 GB/s; star7 3270 GB/s (+2%); radius 2
// unchanged. Box profile: DRAM 81% of its peak (step 10: 74%), as busy as a grid-stride float4
// copy keeps it under Nsight Compute (a copy starting its blocks in address order: 87%); HBM
// traffic 2.16 cubes (2.11: 2 planes in 16 re-read), L2 reads 1.47 cubes.
// Tried on the H200 (box27 512^3, one run of 20 repetitions each, before this version):
//   - 128x2 threads x 8 rows: 0.307-0.308 ms; 256x1: 0.305-0.306 ms with 32-plane chunks,
//     0.302-0.304 with 16, 0.307 with 24 or 12, 0.312 with 8 (and 64x4 with 16: 0.326);
//   - the whole z-range in one wave (6 chunks of 86 planes, 768 blocks, 64x4 threads): 0.327 ms,
//     DRAM reads still 1.14 cubes; odd chunks walking down in that wave: 0.335 ms;
//   - chunks in pairs launched side by side, one walking down and one up from their shared
//     boundary, so that it is read once: DRAM reads 1.14 cubes instead of 1.20 (16-plane
//     chunks), 0.300-0.302 ms; 0.298 ms with 8-plane chunks. 1-2% for a second, mirrored copy
//     of the plane loop: not adopted;
//   - copies with an L2::256B or L2::128B prefetch hint: 2-3% slower with 256-wide tiles;
//     an L2 evict_first hint: 21-27% slower (the halos are re-read from L2); an evict_last hint
//     looked 3% faster in the timed loop, but Nsight Compute, which flushes the caches, counted
//     the same DRAM bytes and time: not adopted;
//   - streaming stores (st.global.cs): 1% slower.
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "stencils.hpp"

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
__global__ void __launch_bounds__(Shape<Stencil>::kBlockX * Shape<Stencil>::kBlockY, kMinBlocks)
    wide_tile_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // TODO: step 10's ring of 3 tiles and 16-byte copies, over Shape<Stencil>'s block, rows and chunks
}

}  // namespace

template <class Stencil>
void stencil_wide_tiles(const float* in, float* out, const Grid& grid) {
  using S = Shape<Stencil>;
  require_halo<Stencil>(grid);
  if (reinterpret_cast<std::uintptr_t>(in) % 16 != 0)
    throw std::invalid_argument("step 11 copies 16 bytes at a time: the input must be 16-byte aligned");
  course::launch(wide_tile_kernel<Stencil>,
                 {dim3(course::blocks_for(grid.dx, S::kBlockX), course::blocks_for(grid.dy, S::kBlockY * S::kRows),
                       course::blocks_for(grid.dz, S::kChunk)),
                  dim3(S::kBlockX, S::kBlockY)},
                 in, out, grid);
}

CH02_INSTANTIATE_FOR_EVERY_STENCIL(stencil_wide_tiles)

}  // namespace ch02
