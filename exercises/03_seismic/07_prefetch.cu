// Generated from solutions/03_seismic/07_prefetch.cu by exercises/generate.py (fingerprint 59059920e4e1): edit the TODOs.
// Step 07 — prefetch the next plane, and narrower vectors for occupancy.
//
// Step 06 moves the fewest bytes (its DRAM traffic is 2.06-2.07 cubes) but runs at a quarter of the
// copy rate: each plane is load -> barrier -> compute -> store, so a warp has loads in flight
// only between two barriers, and 98 registers per thread (the 9-float4 z window, the 5-float4
// queue, the x window) leave room for 2 blocks of 256 threads per multiprocessor, 25% occupancy.
// Two changes, each with its own variant:
//   1. Prefetch: the loads of plane p+1 (two tile rows and the x neighbours, or the centre
//      outside the chunk) are issued into registers before plane p is computed, so that their
//      latency hides behind the compute and the barriers (chapter 2's step 06).
//   2. kVec = 2: float2 per thread halves the window and the queue (14 float2 instead of 14
//      float4), for more resident warps; the tile becomes 64 x 8 points per block.
// Predicted: prefetching alone doubles the loads in flight per warp, toward 2x step 06; with
// float2, occupancy from 25% to about 50%, toward the copy rate.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 3 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "steps.hpp"

namespace ch03 {
namespace {

constexpr int kTileX = 32, kTileY = 8;  // threads, one vector each
constexpr int kTileRows = kTileY + 2 * kRadius;
constexpr int kPlanes = 64;
static_assert(kTileRows == 2 * kTileY, "each thread stages two rows of the tile");

// course::store_streaming for any Vec. On HIP, course/gpu.hpp unwraps only 16-byte vectors for
// the non-temporal builtin, which rejects a float2 struct: there a float2 goes as two floats.
template <class V>
__device__ void store_streaming_vec(V* p, const V& v) {
#if defined(COURSE_BACKEND_HIP)
  if constexpr (sizeof(V) == 8) {
    for (int i = 0; i < 2; ++i) course::store_streaming(reinterpret_cast<float*>(p) + i, lane(v, i));
  } else {
    course::store_streaming(p, v);
  }
#else
  course::store_streaming(p, v);
#endif
}

template <int kVec>
__global__ void COURSE_LAUNCH_BOUNDS(kTileX* kTileY) prefetch_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // TODO: step 06's loop, with plane p+1's loads issued into registers (a struct of the two tile rows, the x neighbours and the centre) before plane p is computed
  (void)in; (void)out; (void)g;
}

template <int kVec>
void laplacian_prefetch(const float* in, float* out, const Grid& grid) {
  require_aligned_rows(grid, 64, "step 07");
  course::launch(prefetch_kernel<kVec>,
                 {dim3(course::blocks_for(grid.dx, kTileX * kVec), course::blocks_for(grid.dy, kTileY), course::blocks_for(grid.dz, kPlanes)),
                  dim3(kTileX, kTileY)},
                 in, out, grid);
}

}  // namespace

void laplacian_prefetch_4(const float* in, float* out, const Grid& grid) { laplacian_prefetch<4>(in, out, grid); }
void laplacian_prefetch_2(const float* in, float* out, const Grid& grid) { laplacian_prefetch<2>(in, out, grid); }

}  // namespace ch03
