// Step 07 — prefetch the next plane, and narrower vectors for occupancy.
//
// Step 06 moves the fewest bytes (its DRAM traffic is 2.08 cubes) but runs at a quarter of the
// copy rate: each plane is barrier -> load -> barrier -> compute -> store, so a warp has loads in
// flight only between two barriers, and 98 registers per thread (the 9-float4 z window, the 5-float4
// queue, the x window) leave room for 2 blocks of 256 threads per multiprocessor, 24% occupancy.
// Two changes, each with its own variant:
//   1. Prefetch: the loads of plane p+1 (two tile rows and the x neighbours, or the centre
//      outside the chunk) are issued into registers before plane p is computed, so that their
//      latency hides behind the compute and the barriers (chapter 2's step 06).
//   2. kVec = 2: float2 per thread halves the window and the queue (14 float2 instead of 14
//      float4), for more resident warps; the tile becomes 64 x 8 points per block.
// The taught variant is prefetch_4; prefetch_2 (float2) is an experiment.
// Predicted: prefetching alone doubles the loads in flight per warp, toward 2x step 06; with
// float2, occupancy from 25% to about 50%, toward the copy rate.
// Your parts: the fetch (fetch_plane, tested on its own), priming it, taking plane p while plane
// p + 1's loads fly, publishing the tile between two barriers, and xy(p) from the registers; the
// queue, the z window and the store are step 06's, given.
// BEGIN FINDINGS
// The profile: float4 keeps step 06's bytes and warps (120 registers, 2 blocks) and runs 1.92x
// faster on the H200; float2's 71 registers give 3 blocks (36%), not 4, and it is slower than
// float4: half the points per thread for the same index work and barriers, 1.37x the warp
// instructions.
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     07_prefetch_4  laplacian8 512^3  0.5728 ms, 1875 GB/s (0.626 of copy), 11717 GFLOP/s (0.199 of FMA)
//     07_prefetch_2  laplacian8 512^3  0.6350 ms, an experiment, 1691 GB/s (0.564 of copy), 10569 GFLOP/s (0.179 of FMA)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     07_prefetch_4  laplacian8 512^3  0.5233 ms, 2052 GB/s (0.484 of copy), 12823 GFLOP/s (0.218 of FMA)
//     07_prefetch_2  laplacian8 512^3  0.5972 ms, an experiment, 1798 GB/s (0.424 of copy), 11238 GFLOP/s (0.191 of FMA)
// END MEASURED
#include <cstring>

#include "parts.hpp"
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

// What a thread loads of one plane: inside the chunk its two tile rows and the x neighbours (R
// floats each side), outside only its centre.
template <int kVec>
struct Plane {
  Vec<kVec> rows[2];
  Vec<kVec> left[kRadius / kVec], right[kRadius / kVec];
  Vec<kVec> centre;
};

// Part 1 of the exercise, tested on its own: thread (x0, ty) of the block whose tile starts at row
// y0 - R loads what it needs of plane p into `plane`; `inside`: its point (x0, y0 + ty) is in the
// interior; the block's planes are z_begin .. z_end - 1 (the others are z-halo planes around them).
template <int kVec>
__host__ __device__ __forceinline__ void fetch_plane(const float* __restrict__ in, const Grid& g, int x0, int y0, int ty,
                                                     bool inside, const int& z_begin, const int& z_end, int p, Plane<kVec>& plane) {
  using V = Vec<kVec>;
  // BEGIN SOLUTION: part 1 of 5, the fetch: for a plane of the chunk (z_begin <= p < z_end) load the thread's two rows of the y tile, rows y0 - R + ty and y0 - R + ty + kTileY of column x0 (zeros where x0 >= dx or the row lies past the array, as step 06 stages them), and, if inside, its x neighbours: the R floats left of x0 and the R right of its kVec, as R / kVec vectors each; for a z-halo plane load only its centre, if inside. Invariant: only loads into registers here, no shared memory and no barrier: their latency is what the next plane's compute hides. Mistake to avoid: the second row at ty + R instead of ty + kTileY (the tile has 2 * kTileY rows), or right neighbours starting at x0 + R instead of x0 + kVec.
  if (p >= z_begin && p < z_end) {
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const int source_y = y0 - kRadius + ty + k * kTileY;
      plane.rows[k] = x0 < g.dx && source_y < g.dy + kRadius ? *reinterpret_cast<const V*>(in + g.at(x0, source_y, p))
                                                             : zero<V>();
    }
    if (inside) {
      const float* row = in + g.at(x0, y0 + ty, p);
#pragma unroll
      for (int v = 0; v < kRadius / kVec; ++v) {
        plane.left[v] = *reinterpret_cast<const V*>(row - kRadius + v * kVec);
        plane.right[v] = *reinterpret_cast<const V*>(row + kVec + v * kVec);
      }
    }
  } else if (inside) {
    plane.centre = *reinterpret_cast<const V*>(in + g.at(x0, y0 + ty, p));
  }
  // STUB: (void)in; (void)g; (void)x0; (void)y0; (void)ty; (void)inside; (void)z_begin; (void)z_end; (void)p; (void)plane;
  // END SOLUTION
}

template <int kVec>
__global__ void COURSE_LAUNCH_BOUNDS(kTileX* kTileY) prefetch_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  using V = Vec<kVec>;
  __shared__ V tile[kTileRows][kTileX];
  const int x0 = (blockIdx.x * kTileX + threadIdx.x) * kVec;
  const int y0 = blockIdx.y * kTileY;
  const int y = y0 + threadIdx.y;
  const bool inside = x0 < g.dx && y < g.dy;
  const int z_begin = blockIdx.z * kPlanes;
  const int z_end = min(g.dz, z_begin + kPlanes);
  auto fetch = [&](int p, Plane<kVec>& plane) {
    fetch_plane<kVec>(in, g, x0, y0, threadIdx.y, inside, z_begin, z_end, p, plane);
  };

  V window[2 * kRadius + 1];  // the centres of planes p - 2R .. p
  V queue[kRadius + 1];       // xy of planes p - R .. p
  Plane<kVec> next{};
  // BEGIN SOLUTION: part 2 of 5, priming: fetch the first plane the loop takes, z_begin - R, into `next` before the loop. Invariant: at the top of iteration p, `next` holds (or is receiving) plane p. Mistake to avoid: fetching z_begin, which shifts every plane by R.
  fetch(z_begin - kRadius, next);
  // STUB: (void)fetch;
  // END SOLUTION
  for (int p = z_begin - kRadius; p < z_end + kRadius; ++p) {
    // BEGIN SOLUTION: part 3 of 5, take plane p and fetch plane p + 1: copy `next` into `current`, then issue plane p + 1's loads into `next` (if p + 1 < z_end + R) before anything uses `current`. Invariant: plane p + 1's loads are in flight during all of plane p's barriers and arithmetic. Mistake to avoid: fetching after the compute (that is step 06 again), or into `current`.
    // 1. Take plane p, and issue the loads of plane p+1.
    const Plane<kVec> current = next;
    if (p + 1 < z_end + kRadius) fetch(p + 1, next);
    // STUB: const Plane<kVec> current{};
    // END SOLUTION
    V centre = current.centre;
    queue[kRadius] = zero<V>();
    if (p >= z_begin && p < z_end) {
      // BEGIN SOLUTION: part 4 of 5, publish the tile: a __syncthreads() (every thread has finished reading the previous plane's tile), the thread's two rows from `current` into tile rows threadIdx.y and threadIdx.y + kTileY, another __syncthreads() (the whole tile is in place). Invariant: every thread of the block reaches both barriers (this branch is the same in every thread). Mistake to avoid: dropping the first barrier: a fast thread then overwrites rows a slow one is still reading.
      // 2. Publish the tile (the same branch in every thread of the block).
      __syncthreads();  // the previous plane's tile has been read
      tile[threadIdx.y][threadIdx.x] = current.rows[0];
      tile[threadIdx.y + kTileY][threadIdx.x] = current.rows[1];
      __syncthreads();
      // END SOLUTION
      // BEGIN SOLUTION: part 5 of 5, xy(p): for a thread inside, its centre from tile row threadIdx.y + R; the x window w of 2R + kVec floats from current.left, the centre and current.right; xy of each lane i = sum over r of weight(r - R) * (w[i + r] + lane i of tile row threadIdx.y + r), into queue[R]. Invariant: the x neighbours come from the registers fetched a plane ahead, never from global memory here. Mistake to avoid: leaving `centre` as current.centre for a plane of the chunk (it is empty there: the centre is in the tile).
      // 3. xy(p).
      if (inside) {
        centre = tile[threadIdx.y + kRadius][threadIdx.x];
        float w[2 * kRadius + kVec];  // floats x0 - R .. x0 + kVec + R - 1
#pragma unroll
        for (int i = 0; i < kRadius; ++i) {
          w[i] = lane(current.left[i / kVec], i % kVec);
          w[kRadius + kVec + i] = lane(current.right[i / kVec], i % kVec);
        }
#pragma unroll
        for (int i = 0; i < kVec; ++i) w[kRadius + i] = lane(centre, i);
#pragma unroll
        for (int i = 0; i < kVec; ++i) {
          float s = 0.0f;
#pragma unroll
          for (int r = 0; r <= 2 * kRadius; ++r) s += weight(r - kRadius) * (w[i + r] + lane(tile[threadIdx.y + r][threadIdx.x], i));
          lane(queue[kRadius], i) = s;
        }
      }
      // STUB: (void)tile;
      // END SOLUTION
    }
    window[2 * kRadius] = centre;
    // 4. Plane p - R has all its z neighbours: out = xy + Dzz (step 06's).
    if (inside && p - kRadius >= z_begin) {
      V sum = queue[0];
#pragma unroll
      for (int r = 0; r <= 2 * kRadius; ++r)
#pragma unroll
        for (int i = 0; i < kVec; ++i) lane(sum, i) += weight(r - kRadius) * lane(window[r], i);
      float* target = out + g.at(x0, y, p - kRadius);
      if (x0 + kVec <= g.dx) {
        store_streaming_vec(reinterpret_cast<V*>(target), sum);
      } else {
        for (int i = 0; i < kVec && x0 + i < g.dx; ++i) course::store_streaming(target + i, lane(sum, i));
      }
    }
    // 5. Shift the window and the queue by one plane (step 06's).
#pragma unroll
    for (int r = 0; r < 2 * kRadius; ++r) window[r] = window[r + 1];
#pragma unroll
    for (int r = 0; r < kRadius; ++r) queue[r] = queue[r + 1];
  }
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

namespace parts {
PrefetchedPlane prefetched_plane(const float* in, const Grid& g, int block_x, int block_y, int tx, int ty, int z_begin, int p) {
  static_assert(sizeof(Plane<4>) == sizeof(PrefetchedPlane), "parts.hpp describes a plane of float4s");
  Plane<4> plane;
  std::memset(&plane, 0xff, sizeof plane);  // the poison: what the fetch does not load stays NaN
  const int x0 = (block_x * kTileX + tx) * 4, y0 = block_y * kTileY;
  fetch_plane<4>(in, g, x0, y0, ty, x0 < g.dx && y0 + ty < g.dy, z_begin, min(g.dz, z_begin + kPlanes), p, plane);
  PrefetchedPlane result;
  std::memcpy(&result, &plane, sizeof result);
  return result;
}
}  // namespace parts

void laplacian_prefetch_4(const float* in, float* out, const Grid& grid) { laplacian_prefetch<4>(in, out, grid); }
void laplacian_prefetch_2(const float* in, float* out, const Grid& grid) { laplacian_prefetch<2>(in, out, grid); }

}  // namespace ch03
