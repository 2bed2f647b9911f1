// Step 09 — an optional experiment: step 07's loads with step 08's partial sums.
//
// Not a step forward (it is no faster than step 07): a question put to the GPU, which half of
// step 08 matters, how a plane arrives or what is computed on it.
// Timed as copies with no arithmetic (copy_ceiling.cu), the two ways of bringing a plane in
// differ: step 07's (two tile rows and the x neighbours fetched into registers one plane ahead,
// the x neighbours from global memory, where the neighbouring threads' rows make them L1 hits)
// is the faster copy; step 08's ring of haloed tiles filled by cp.async moves more bytes through
// DRAM, and step 08's kernel keeps the shared-memory pipe busiest: the x neighbours come from the
// tile too (NOTES.md, "The ceiling of one pass").
// So this step takes step 07's loads and keeps step 08's arithmetic: 9 partial sums in a ring
// whose positions are fixed by unrolling the plane loop by 9, 25 FMAs a point, nothing shifted.
// Predicted: step 08's instruction count (about two thirds of step 07's) on the loads whose copy
// is the faster one: faster than step 08; registers: the prefetched plane (5 float4) replaces
// step 08's copy offsets, about 100, so still 2 blocks per multiprocessor.
// Your parts: taking the plane and fetching the next, the tile and xy(p) into out(p)'s sum, the
// centre into the 9 sums, and the loop unrolled by nine; step 07's fetch and step 08's store are
// given.
// BEGIN FINDINGS
// The copies (results/h200/): step 07's loads 0.91 of the device copy, step 08's 0.76, moving
// 2.26 cubes through DRAM instead of 1.98; step 08 keeps shared memory 67% busy.
// The profile: 128 registers, 2 blocks; 285 M warp instructions (step 07: 312 M); no faster than
// step 07 (NOTES.md).
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     09_prefetched_sums  laplacian8 512^3  0.5751 ms, 1867 GB/s (0.623 of copy), 11669 GFLOP/s (0.198 of FMA)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     09_prefetched_sums  laplacian8 512^3  0.5284 ms, 2032 GB/s (0.479 of copy), 12701 GFLOP/s (0.216 of FMA)
// END MEASURED
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
  __shared__ float4 tile[kTileRows][kTileX];
  const int x0 = (blockIdx.x * kTileX + threadIdx.x) * 4;
  const int y0 = blockIdx.y * kTileY;
  const int y = y0 + threadIdx.y;
  const bool inside = x0 < g.dx && y < g.dy;
  const int z_begin = blockIdx.z * kPlanes;
  const int z_end = min(g.dz, z_begin + kPlanes);

  // What a thread loads of one plane (step 07's fetch, given): in the chunk its two tile rows and
  // the x neighbours, in the z-halo only its centre.
  struct Plane {
    float4 rows[2], left, right, centre;
  };
  auto fetch = [&](int p, Plane& plane) {
    if (p >= z_begin && p < z_end) {
#pragma unroll
      for (int k = 0; k < 2; ++k) {
        const int source_y = y0 - kRadius + threadIdx.y + k * kTileY;
        plane.rows[k] = x0 < g.dx && source_y < g.dy + kRadius ? *reinterpret_cast<const float4*>(in + g.at(x0, source_y, p))
                                                               : zero<float4>();
      }
      if (inside) {
        const float* row = in + g.at(x0, y, p);
        plane.left = *reinterpret_cast<const float4*>(row - kRadius);
        plane.right = *reinterpret_cast<const float4*>(row + 4);
      }
    } else if (inside) {
      plane.centre = *reinterpret_cast<const float4*>(in + g.at(x0, y, p));
    }
  };

  const int steps = z_end - z_begin + 2 * kRadius;  // planes z_begin - R .. z_end + R - 1
  float* target = out + g.at(x0, y, z_begin);       // out(p - R) from s = 2R on
  float4 sums[kSums] = {};  // at step s, sums[(s + k) % kSums] is out(p - R + k)'s, k = 0 .. 2R
  Plane next{};
  fetch(z_begin - kRadius, next);
  auto plane_step = [&](int s, auto position) {
    constexpr int j = decltype(position)::value;  // s % kSums
    const int p = z_begin - kRadius + s;
    // BEGIN SOLUTION: part 1 of 4, take plane p and fetch plane p + 1 (step 07's part 3): take the registers fetched for this step as the current plane, then start fetching the next plane (if there is a next plane step) before any barrier or arithmetic. Invariant: plane p + 1's loads are in flight while plane p is computed. Mistake to avoid: fetching after the arithmetic, which leaves nothing in flight while it runs.
    // 1. Take plane p, and issue the loads of plane p+1.
    const Plane current = next;
    if (s + 1 < steps) fetch(p + 1, next);
    // STUB: const Plane current{};
    // END SOLUTION
    float4 c = current.centre;
    if (s >= kRadius && s < steps - kRadius) {  // a plane of the chunk (the same branch in every thread)
      // BEGIN SOLUTION: part 2 of 4, publish the tile and add xy(p) to out(p)'s sum: step 07's publish (a barrier, the two rows into the tile, a barrier); c = the thread's centre from the tile; then, as step 08's part 5, the x window from the fetched left and right float4 and c, and for every r other than the centre both the x and the y term of that distance into out(p)'s slot. Invariant: the centre's own weight is not added here (part 3 adds it, counted for all three directions). Mistake to avoid: the barrier before the stores dropped (a fast thread overwrites rows a slow one still reads).
      // 2. Publish the tile.
      __syncthreads();  // the previous plane's tile has been read
      tile[threadIdx.y][threadIdx.x] = current.rows[0];
      tile[threadIdx.y + kTileY][threadIdx.x] = current.rows[1];
      __syncthreads();
      // 3. xy(p)'s 16 neighbours into out(p)'s sum.
      c = tile[threadIdx.y + kRadius][threadIdx.x];
      float w[2 * kRadius + 4];  // floats x0 - R .. x0 + 3 + R
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        w[i] = lane(current.left, i);
        w[kRadius + i] = lane(c, i);
        w[2 * kRadius + i] = lane(current.right, i);
      }
      float4& sum = sums[(j + kRadius) % kSums];
#pragma unroll
      for (int r = 0; r <= 2 * kRadius; ++r) {
        if (r == kRadius) continue;
        const float4 row = tile[threadIdx.y + r][threadIdx.x];
#pragma unroll
        for (int i = 0; i < 4; ++i)
          lane(sum, i) = fmaf(weight(r - kRadius), w[i + r], fmaf(weight(r - kRadius), lane(row, i), lane(sum, i)));
      }
      // STUB: (void)tile;
      // END SOLUTION
    }
    // BEGIN SOLUTION: part 3 of 4, the centre into the 9 sums (step 08's part 5): each output keeps the slot it had at its first term (step 08's part 2: its slot must not move as j grows and k falls); the centre's weight in out(p - R + k) is the z difference's for R - k planes, except in out(p), where the centre counts for all three directions; the first term of an output starts its slot afresh. Invariant: j is a constant, so every index is. Mistake to avoid: += at an output's first term (that slot still holds the output stored at the previous use).
    // 4. The centre into the 9 sums it weighs in (3 times the centre weight in out(p)'s).
#pragma unroll
    for (int k = 0; k < kSums; ++k) {
      float4& sum = sums[(j + k) % kSums];
      const float w = k == kRadius ? 3 * weight(0) : weight(kRadius - k);
#pragma unroll
      for (int i = 0; i < 4; ++i) lane(sum, i) = k == 2 * kRadius ? w * lane(c, i) : fmaf(w, lane(c, i), lane(sum, i));
    }
    // STUB: (void)c;
    // END SOLUTION
    // 5. out(p - R) has all its terms (step 08's store).
    if (s >= 2 * kRadius) {
      const float4& sum = sums[j];
      if (inside && x0 + 4 <= g.dx) {
        course::store_streaming(reinterpret_cast<float4*>(target), sum);
      } else if (inside) {
        for (int i = 0; i < 4 && x0 + i < g.dx; ++i) course::store_streaming(target + i, lane(sum, i));
      }
      target += g.plane;
    }
  };
  static_assert(kSums == 9, "the loop below is unrolled by kSums");
  // BEGIN SOLUTION: part 4 of 4, unrolled by nine (step 08's part 6): advance the plane loop nine steps at a time and run plane_step once for each position j = 0 .. 8, j a compile-time constant. Invariant: every plane step runs once, in order. Mistake to avoid: a missing guard on the last, partial round of nine, which runs past the chunk.
  for (int s = 0; s < steps; s += kSums) {
    plane_step(s, std::integral_constant<int, 0>{});
    if (s + 1 < steps) plane_step(s + 1, std::integral_constant<int, 1>{});
    if (s + 2 < steps) plane_step(s + 2, std::integral_constant<int, 2>{});
    if (s + 3 < steps) plane_step(s + 3, std::integral_constant<int, 3>{});
    if (s + 4 < steps) plane_step(s + 4, std::integral_constant<int, 4>{});
    if (s + 5 < steps) plane_step(s + 5, std::integral_constant<int, 5>{});
    if (s + 6 < steps) plane_step(s + 6, std::integral_constant<int, 6>{});
    if (s + 7 < steps) plane_step(s + 7, std::integral_constant<int, 7>{});
    if (s + 8 < steps) plane_step(s + 8, std::integral_constant<int, 8>{});
  }
  // STUB: (void)plane_step;
  // END SOLUTION
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
