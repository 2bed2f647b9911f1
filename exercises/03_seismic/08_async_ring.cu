// Generated from solutions/03_seismic/08_async_ring.cu by exercises/generate.py (fingerprint 6ff0b21d7a8b): edit the TODOs.
// Step 08 — a ring of tiles filled by asynchronous copies, and partial sums in z.
//
// Step 07 keeps the bytes at their minimum and is limited by what each thread carries and
// executes: 120 registers (a 9-vector z window, a 5-vector queue of xy, a 5-vector prefetch)
// leave 2 blocks per multiprocessor, and a plane costs a warp 264 instructions, of which its
// arithmetic takes 108 (27 a point): the rest shifts the window and the queue (12 float4 a plane
// in its source), adds up addresses and moves the prefetched vectors through registers into the tile.
// Three changes:
//   1. The tile of plane p + kStages - 1, with its x-halo (one float4 each side), is copied
//      into a ring of kStages tiles in shared memory by cp.async (course::copy_async, chapter 2's
//      step 10) while plane p is computed: no registers hold the loads in flight, and each
//      thread's copy offsets are computed once. The planes of the z-halo copy only their centres.
//   2. Partial sums instead of the window and the queue: plane p's centre adds its weight to the
//      9 outputs out(p - R) .. out(p + R) it contributes to, and xy(p) goes into out(p); out(p-R)
//      is complete and stored. 9 vectors live instead of 14, and 25 FMAs a point, no more.
//   3. The plane loop is unrolled by 9, the length of the ring of sums, so that which sum is
//      which is known at compile time: nothing is shifted (nor, with 3 tiles, which tile).
// Variants: `async_ring`, 3 tiles and no register cap; `async_ring_capped`, the same held to
// 64 registers (__launch_bounds__(256, 4)) for 4 blocks per multiprocessor; `async_ring_deep`,
// 5 tiles (43.5 KB), the copies 4 planes ahead instead of 2, added after the first two were
// measured: their loads, timed as a copy, took 0.76 of the device copy, and step 09 (README)
// suggested that at 2 blocks per multiprocessor the depth of the prefetch is what hides latency.
// Predicted: about 150 instructions per warp and plane instead of 264, and 64 registers, 4 blocks
// per multiprocessor (50% of the warps) instead of 2; from 0.48 of the copy rate toward the
// fastest haloed copy through the same tiles (copy_ceiling.cu, measured beside it). For the deep
// ring: twice the bytes in flight, a few percent faster than `async_ring`, short of its copy's 0.76.
// Cheap knobs on `async_ring` (the README's "Diagnosing the fused pass" reads them):
// `async_ring_planes16` .. `_planes512` (the source document's nw sweep): kPlanes z-planes per
// block instead of 64, so the 2R z-halo planes a chunk re-reads go from 8/64 = 12.5% to 50%, 25%, 6.3%, 3.1%, 1.6% of its planes, and
// the 512^3 grid's blocks from 4 x 64 x 8 = 2048 (7.8 waves of 2 blocks on 132 multiprocessors)
// to 8192, 4096, 1024, 512, 256 (31, 15.5, 3.9, 1.9, 0.97 waves: longer blocks, a smaller tail,
// less parallelism); `async_ring_deep_plain_stores`: the best variant with plain stores instead
// of non-temporal ones, an A/B this chapter had not measured before;
// `async_ring_3blocks`, __launch_bounds__(256, 3): at most 85 registers, 3 blocks of 256 threads
// (37.5% of the warps). ptxas (CUDA 13.0, sm_90, -Xptxas -v) gives it 80 registers and spills 32
// bytes (188 bytes of spill loads), against the 64-register cap's 152 (400): fewer, maybe cheap.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 3 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include <type_traits>

#include "steps.hpp"

namespace ch03 {
namespace {

constexpr int kTileX = 32, kTileY = 8;  // threads, one float4 each: 128 x 8 points, one float4 of x-halo each side
constexpr int kSums = 2 * kRadius + 1;

// kStages tiles in the ring: plane p in use, p+1 .. p+kStages-1 on their way; kPlanes z-planes per
// block; kStreaming: out stored with non-temporal stores (course::store_streaming) or plain ones.
template <int kStages, int kMinBlocks, int kPlanes, bool kStreaming>
__global__ void COURSE_LAUNCH_BOUNDS(kTileX* kTileY, kMinBlocks) async_ring_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // The copy plan is given: the tiles, where each of this thread's copies comes from, and
  // start_copies(s, slot), which starts plane s's copies into tiles[slot]. The pipeline is yours.
  constexpr int kThreads = kTileX * kTileY;
  constexpr int kWidth = kTileX + 2;  // float4s per tile row
  constexpr int kHeight = kTileY + 2 * kRadius;
  constexpr int kCopies = kHeight * kWidth;
  constexpr int kPasses = (kCopies + kThreads - 1) / kThreads;
  __shared__ float4 tiles[kStages][kHeight][kWidth];

  const int thread = threadIdx.x + threadIdx.y * kTileX;
  const int x_left = blockIdx.x * kTileX * 4 - kRadius;  // the tile's first float
  const int y_top = blockIdx.y * kTileY - kRadius;
  const int z_begin = blockIdx.z * kPlanes;
  const int z_end = min(g.dz, z_begin + kPlanes);

  // 1. This thread's copies, the same in every plane: where each comes from relative to the
  //    tile's corner, whether it lies in the array's rows (x may run into the row's padding,
  //    whose values feed only outputs that are not stored), and whether it is a centre, the
  //    only part a z-halo plane needs.
  int offset[kPasses];
  bool valid[kPasses], centre[kPasses];
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int copy = thread + pass * kThreads;
    const int row = copy / kWidth, column = copy % kWidth;
    const int x = x_left + 4 * column, y = y_top + row;
    valid[pass] = copy < kCopies && y < g.dy + kRadius && x + 4 <= g.pitch - g.lead;
    centre[pass] = row >= kRadius && row < kRadius + kTileY && column >= 1 && column <= kTileX;
    offset[pass] = valid[pass] ? row * g.pitch + 4 * column : 0;
  }
  const int steps = z_end - z_begin + 2 * kRadius;  // planes z_begin - R .. z_end + R - 1
  const float* plane_source = in + g.at(x_left, y_top, z_begin - kRadius);
  auto start_copies = [&](int s, int slot) {
    const bool halo_plane = s < kRadius || s >= steps - kRadius;
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int copy = thread + pass * kThreads;
      if (copy < kCopies && (!halo_plane || centre[pass]))
        course::copy_async(&tiles[slot][0][0] + copy, reinterpret_cast<const float4*>(plane_source + offset[pass]), valid[pass]);
    }
    plane_source += g.plane;
  };

  // TODO: prime the ring (kStages - 1 planes, a commit_copies() each); per plane s: wait until plane s has landed (wait_copies<kStages - 2>), barrier, start plane s + kStages - 1 into the slot plane s - 1 used, commit; add the centre's weight to the 9 partial sums it belongs to and xy(p) to out(p)'s; store out(p - R) once complete; unroll the plane loop by 9 (std::integral_constant) so which sum is which is a constant
  (void)out; (void)start_copies;
}

template <int kStages, int kMinBlocks, int kPlanes = 64, bool kStreaming = true>
void launch_async_ring(const float* in, float* out, const Grid& grid) {
  require_aligned_rows(grid, 64, "step 08");
  course::launch(async_ring_kernel<kStages, kMinBlocks, kPlanes, kStreaming>,
                 {dim3(course::blocks_for(grid.dx, kTileX * 4), course::blocks_for(grid.dy, kTileY), course::blocks_for(grid.dz, kPlanes)),
                  dim3(kTileX, kTileY)},
                 in, out, grid);
}

}  // namespace

void laplacian_async_ring(const float* in, float* out, const Grid& grid) { launch_async_ring<3, 2>(in, out, grid); }
void laplacian_async_ring_capped(const float* in, float* out, const Grid& grid) { launch_async_ring<3, 4>(in, out, grid); }
void laplacian_async_ring_deep(const float* in, float* out, const Grid& grid) { launch_async_ring<5, 2>(in, out, grid); }
void laplacian_async_ring_planes16(const float* in, float* out, const Grid& grid) { launch_async_ring<3, 2, 16>(in, out, grid); }
void laplacian_async_ring_planes32(const float* in, float* out, const Grid& grid) { launch_async_ring<3, 2, 32>(in, out, grid); }
void laplacian_async_ring_planes128(const float* in, float* out, const Grid& grid) { launch_async_ring<3, 2, 128>(in, out, grid); }
void laplacian_async_ring_planes256(const float* in, float* out, const Grid& grid) { launch_async_ring<3, 2, 256>(in, out, grid); }
void laplacian_async_ring_planes512(const float* in, float* out, const Grid& grid) { launch_async_ring<3, 2, 512>(in, out, grid); }
void laplacian_async_ring_3blocks(const float* in, float* out, const Grid& grid) { launch_async_ring<3, 3>(in, out, grid); }
void laplacian_async_ring_deep_plain_stores(const float* in, float* out, const Grid& grid) { launch_async_ring<5, 2, 64, false>(in, out, grid); }

}  // namespace ch03
