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
// The taught variant is `async_ring`: 3 tiles, 64 planes a block, no register cap.
// Predicted: about 150 instructions per warp and plane instead of 264, and 64 registers, 4 blocks
// per multiprocessor (50% of the warps) instead of 2; from step 07's rate toward the fastest
// haloed copy through the same tiles (copy_ceiling.cu, timed beside it).
// Your parts: the copy plan (ring_copy) and the ring of sums' bookkeeping (sum_slot,
// centre_weight), each tested on its own; then priming the ring, the wait, the barrier and the
// refill, the partial sums, and the loop unrolled by nine. The tiles, start_copies and the store
// are given.
// Experiments (EXPERIMENT rows in steps.hpp; NOTES.md reads them): `async_ring_capped`, held to
// 64 registers (__launch_bounds__(256, 4)) for 4 blocks per multiprocessor; `async_ring_deep`,
// 5 tiles (43.5 KB), the copies 4 planes ahead instead of 2: twice the bytes in flight,
// predicted a few percent faster than `async_ring`, short of its copy;
// `async_ring_planes16` .. `_planes512` (the source document's nw sweep): kPlanes z-planes per
// block instead of 64, so the 2R z-halo planes a chunk re-reads go from 8/64 = 12.5% to 50%, 25%,
// 6.3%, 3.1%, 1.6% of its planes, and the 512^3 grid's blocks from 4 x 64 x 8 = 2048 (7.8 waves
// of 2 blocks on 132 multiprocessors) to 8192, 4096, 1024, 512, 256 (31, 15.5, 3.9, 1.9, 0.97
// waves: longer blocks, a smaller tail, less parallelism); `async_ring_deep_plain_stores`: the
// deep ring with plain stores instead of non-temporal ones; `async_ring_3blocks`,
// __launch_bounds__(256, 3): at most 85 registers, 3 blocks of 256 threads (37.5% of the warps).
// BEGIN FINDINGS
// ptxas (CUDA 13.0, sm_90, -Xptxas -v) gives async_ring_3blocks 80 registers and spills 32 bytes
// (188 bytes of spill loads), against the 64-register cap's 152 (400): fewer, maybe cheap.
// The deep ring was added after the first two variants and step 09 were measured: their loads,
// timed as a copy, reached 0.76 of the device copy, and step 09 suggested that at 2 blocks per
// multiprocessor the depth of the prefetch is what hides latency.
// The profile: 177 instructions a plane, but 101 registers (103 deep), so 2 blocks as step 07;
// the capped variant spills (L2 writes 1.91 cubes on the H100) and is slower; shared memory 67%
// busy on the H200; the deep ring is 1.5% faster than 3 tiles on the H200, 9% on the H100.
// On the H200, 512 planes a block is step 08's fastest case (4% faster than 64 planes), 16 and 32
// planes lose 13% and 4%; plain stores change nothing; 3 blocks lose 8% (36% of the warps, but
// 10.0 cycles between a warp's instructions instead of 7.3 in the earlier recording of
// a4744eb8f0e5, whose profile covered the experiments). NOTES.md has them all, on both GPUs.
// Step 09 (step 07's loads with this step's arithmetic, at the same 2 blocks) is no faster than
// step 07: the gain over step 07 comes from how a plane arrives, not from the instruction count.
// At 2 blocks this step's own loads as a copy reach 0.62 of the device copy and the step 0.64, so
// that copy is no ceiling (and it is confounded: it reserves shared memory, shrinking the L1).
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     08_async_ring                    laplacian8 512^3  0.4773 ms, 2250 GB/s (0.751 of copy), 14061 GFLOP/s (0.238 of FMA)
//     08_async_ring_capped             laplacian8 512^3  0.5754 ms, an experiment, 1866 GB/s (0.623 of copy), 11663 GFLOP/s (0.198 of FMA)
//     08_async_ring_deep               laplacian8 512^3  0.4396 ms, an experiment, 2443 GB/s (0.815 of copy), 15266 GFLOP/s (0.259 of FMA)
//     08_async_ring_planes16           laplacian8 512^3  0.4993 ms, an experiment, 2150 GB/s (0.718 of copy), 13440 GFLOP/s (0.228 of FMA)
//     08_async_ring_planes32           laplacian8 512^3  0.4873 ms, an experiment, 2203 GB/s (0.735 of copy), 13771 GFLOP/s (0.233 of FMA)
//     08_async_ring_planes128          laplacian8 512^3  0.4686 ms, an experiment, 2291 GB/s (0.765 of copy), 14320 GFLOP/s (0.243 of FMA)
//     08_async_ring_planes256          laplacian8 512^3  0.4660 ms, an experiment, 2304 GB/s (0.769 of copy), 14400 GFLOP/s (0.244 of FMA)
//     08_async_ring_planes512          laplacian8 512^3  0.4683 ms, an experiment, 2293 GB/s (0.765 of copy), 14331 GFLOP/s (0.243 of FMA)
//     08_async_ring_3blocks            laplacian8 512^3  0.5219 ms, an experiment, 2057 GB/s (0.687 of copy), 12859 GFLOP/s (0.218 of FMA)
//     08_async_ring_deep_plain_stores  laplacian8 512^3  0.4348 ms, an experiment, 2469 GB/s (0.824 of copy), 15433 GFLOP/s (0.262 of FMA)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     08_async_ring                    laplacian8 512^3  0.3958 ms, 2713 GB/s (0.640 of copy), 16956 GFLOP/s (0.289 of FMA)
//     08_async_ring_capped             laplacian8 512^3  0.4695 ms, an experiment, 2287 GB/s (0.540 of copy), 14294 GFLOP/s (0.243 of FMA)
//     08_async_ring_deep               laplacian8 512^3  0.3901 ms, an experiment, 2752 GB/s (0.649 of copy), 17202 GFLOP/s (0.293 of FMA)
//     08_async_ring_planes16           laplacian8 512^3  0.4476 ms, an experiment, 2399 GB/s (0.566 of copy), 14995 GFLOP/s (0.255 of FMA)
//     08_async_ring_planes32           laplacian8 512^3  0.4129 ms, an experiment, 2600 GB/s (0.613 of copy), 16252 GFLOP/s (0.277 of FMA)
//     08_async_ring_planes128          laplacian8 512^3  0.3858 ms, an experiment, 2783 GB/s (0.657 of copy), 17393 GFLOP/s (0.296 of FMA)
//     08_async_ring_planes256          laplacian8 512^3  0.3806 ms, an experiment, 2821 GB/s (0.666 of copy), 17633 GFLOP/s (0.300 of FMA)
//     08_async_ring_planes512          laplacian8 512^3  0.3789 ms, an experiment, 2834 GB/s (0.669 of copy), 17713 GFLOP/s (0.302 of FMA)
//     08_async_ring_3blocks            laplacian8 512^3  0.4289 ms, an experiment, 2504 GB/s (0.591 of copy), 15647 GFLOP/s (0.266 of FMA)
//     08_async_ring_deep_plain_stores  laplacian8 512^3  0.3902 ms, an experiment, 2751 GB/s (0.649 of copy), 17197 GFLOP/s (0.293 of FMA)
// END MEASURED
#include <type_traits>

#include "parts.hpp"
#include "steps.hpp"

namespace ch03 {
namespace {

constexpr int kTileX = 32, kTileY = 8;  // threads, one float4 each: 128 x 8 points, one float4 of x-halo each side
constexpr int kSums = 2 * kRadius + 1;
constexpr int kThreads = kTileX * kTileY;
constexpr int kWidth = kTileX + 2;  // float4s per tile row
constexpr int kHeight = kTileY + 2 * kRadius;
constexpr int kCopies = kHeight * kWidth;
constexpr int kPasses = (kCopies + kThreads - 1) / kThreads;
static_assert(kWidth == parts::kRingTileWidth && kHeight == parts::kRingTileHeight && kThreads == parts::kRingThreads,
              "parts.hpp describes this tile");

// Part 1 of the exercise, tested on its own: copy number `copy` of the haloed tile (its float4
// number, row after row) -- where it comes from, whether it lies in the array, whether it is a
// centre. The same in every plane, so a thread computes its copies once.
__host__ __device__ __forceinline__ parts::RingCopy ring_copy(int copy, int x_left, int y_top, const Grid& g) {
  // BEGIN SOLUTION: part 1 of 6, the copy plan: the copies are numbered row after row over the haloed tile, kWidth float4 a row: find the copy's tile row and float4 column, then where its source lies relative to the tile's first float (x_left, y_top), as an offset in floats (rows are g.pitch floats apart, a float4 column is 4 floats). Invariant: valid only for a copy that exists (copy < kCopies) and whose source lies in the array where the stencil reaches: its row below dy + R (y never starts below -R; rows further down are never read, even where the array's y-halo is wider, and are filled with zeros), and its float4 ending within the row (it may run into the row's padding, not past it); a centre is a float4 of the block's own rows and columns, not of the halo. Mistake to avoid: forgetting the one float4 of x-halo on each side (a tile row is kWidth float4, not kTileX).
  const int row = copy / kWidth, column = copy % kWidth;
  const int x = x_left + 4 * column, y = y_top + row;
  parts::RingCopy plan;
  plan.valid = copy < kCopies && y < g.dy + kRadius && x + 4 <= g.pitch - g.lead;
  plan.centre = row >= kRadius && row < kRadius + kTileY && column >= 1 && column <= kTileX;
  plan.offset = plan.valid ? row * g.pitch + 4 * column : 0;
  return plan;
  // STUB: (void)copy; (void)x_left; (void)y_top; (void)g;
  // STUB: return {};
  // END SOLUTION
}

// Part 2 of the exercise, tested on its own: the ring of 9 partial sums. At the plane step whose
// position in the loop unrolled by 9 is j, out(p - R + k)'s sum is sums[sum_slot(j, k)], and
// plane p's centre adds centre_weight(k) times itself to it (k = 0 .. 2R).
// BEGIN SOLUTION: part 2 of 6, the ring of sums: sum_slot(j, k) gives each output in flight a slot of the ring of kSums sums. As the plane step advances by one, j grows by one (modulo kSums) and the same output's k falls by one, so the slot must depend on j and k only through what stays the same for that output. centre_weight(k) is what plane p's centre weighs in out(p - R + k), which lies R - k planes away: the z difference's weight for that distance, except in out(p)'s own sum (k = R), where the centre is the centre of the x, y and z differences at once. Invariant: an output keeps its slot from its first term (k = 2R) to its store (k = 0): out(q) is touched at the steps s = q .. q + 2R with k = q + 2R - s. Mistake to avoid: a slot that moves with every step, or the centre counted in out(p) for the z difference only (part 5's xy loop skips r = R, so the x and y centre terms are yours here).
__host__ __device__ constexpr int sum_slot(int j, int k) { return (j + k) % kSums; }
__host__ __device__ constexpr float centre_weight(int k) { return k == kRadius ? 3 * weight(0) : weight(kRadius - k); }
// STUB: __host__ __device__ constexpr int sum_slot(int j, int k) { return 0 * (j + k); }
// STUB: __host__ __device__ constexpr float centre_weight(int k) { return 0.0f * k; }
// END SOLUTION

// kStages tiles in the ring: plane p in use, p+1 .. p+kStages-1 on their way; kPlanes z-planes per
// block; kStreaming: out stored with non-temporal stores (course::store_streaming) or plain ones.
template <int kStages, int kMinBlocks, int kPlanes, bool kStreaming>
__global__ void COURSE_LAUNCH_BOUNDS(kTileX* kTileY, kMinBlocks) async_ring_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g) {
  // The tiles and start_copies(s, slot), which starts plane s's copies into tiles[slot] from this
  // thread's copy plan (part 1), are given; the pipeline and the sums are yours (parts 3-6).
  __shared__ float4 tiles[kStages][kHeight][kWidth];

  const int thread = threadIdx.x + threadIdx.y * kTileX;
  const int x_left = blockIdx.x * kTileX * 4 - kRadius;  // the tile's first float
  const int y_top = blockIdx.y * kTileY - kRadius;
  const int z_begin = blockIdx.z * kPlanes;
  const int z_end = min(g.dz, z_begin + kPlanes);

  // 1. This thread's copies, the same in every plane (part 1).
  parts::RingCopy plan[kPasses];
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) plan[pass] = ring_copy(thread + pass * kThreads, x_left, y_top, g);
  const int steps = z_end - z_begin + 2 * kRadius;  // planes z_begin - R .. z_end + R - 1
  const float* plane_source = in + g.at(x_left, y_top, z_begin - kRadius);
  auto start_copies = [&](int s, int slot) {
    const bool halo_plane = s < kRadius || s >= steps - kRadius;
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int copy = thread + pass * kThreads;
      if (copy < kCopies && (!halo_plane || plan[pass].centre))
        course::copy_async(&tiles[slot][0][0] + copy, reinterpret_cast<const float4*>(plane_source + plan[pass].offset), plan[pass].valid);
    }
    plane_source += g.plane;
  };

  const int x0 = x_left + kRadius + 4 * threadIdx.x;
  const int y = y_top + kRadius + threadIdx.y;
  const bool inside = x0 < g.dx && y < g.dy;
  float* target = out + g.at(x0, y, z_begin);  // out(p - R) from s = 2R on
  float4 sums[kSums] = {};  // at step s, sums[sum_slot(s % kSums, k)] is out(p - R + k)'s, k = 0 .. 2R

  // BEGIN SOLUTION: part 3 of 6, priming the ring: before the loop, start the first kStages - 1 planes (those that exist; plane step s, from 0 to steps - 1, is plane z_begin - R + s and goes into tile s % kStages), each into the tile of the same number, and commit a group after each one, even where there was no plane to start. Invariant: every plane step commits exactly one group, empty or not, so that "plane s has landed" always means the same number of this thread's groups still pending. Mistake to avoid: no commit in the prime: uncommitted copies belong to no group, and no wait ever lands them.
  // 2. Prime the ring; every step commits a group, empty or not, so that "plane s has landed"
  //    is always "at most kStages - 2 groups pending".
#pragma unroll
  for (int s = 0; s + 1 < kStages; ++s) {
    if (s < steps) start_copies(s, s);
    course::commit_copies();
  }
  // STUB: (void)start_copies;
  // END SOLUTION
  // The tile slot of plane s: a constant when kStages divides the unrolling, else counted.
  int counted_slot = 0;
  auto plane_step = [&](int s, auto position) {
    constexpr int j = decltype(position)::value;  // s % kSums
    const int slot = kSums % kStages == 0 ? j % kStages : counted_slot;
    counted_slot = counted_slot + 1 == kStages ? 0 : counted_slot + 1;
    // BEGIN SOLUTION: part 4 of 6, the wait, the barrier and the refill: first wait until this thread's own copies of plane s have landed. course::wait_copies<N>() waits until at most N of this thread's groups are pending; the groups committed after plane s's are the planes started ahead of it, so work out N from the ring's depth. Then one __syncthreads(): after it every thread's copies of plane s are in the tile, and every thread has finished plane s - 1, so the tile that held it (the slot before this one, cyclically) is free: start plane s + kStages - 1 there if it exists, and commit. Invariant: one barrier a plane, reached by every thread (no return before it, no branch around it); one group committed a step. Mistake to avoid: an N one too large, which lets the plane be read before it has landed; refilling the slot of plane s, which the block is about to read; or committing only when a copy started, which breaks the count of groups at the chunk's last planes.
    // 3. Plane s has landed for every thread; the slot of plane s - 1 takes plane s + kStages - 1.
    course::wait_copies<kStages - 2>();
    __syncthreads();
    if (s + kStages - 1 < steps) start_copies(s + kStages - 1, slot == 0 ? kStages - 1 : slot - 1);
    course::commit_copies();
    // END SOLUTION

    const float4 (*tile)[kWidth] = tiles[slot];
    // BEGIN SOLUTION: part 5 of 6, the partial sums: c = this thread's own float4 of plane s in the haloed tile (its row and column moved by the halo); for every k add centre_weight(k) * c to out(p - R + k)'s sum, found with sum_slot, the k = 2R term starting that slot afresh. Then, for a plane of the chunk (not a z-halo plane), add xy(p)'s 16 neighbours to out(p)'s sum: x from the tile row's left and right float4, y from the rows above and below in the thread's column, each weighted by its distance. Invariant: 25 FMAs a point, every loop over k, r and the 4 lanes unrolled, so that every index into sums is a constant. Mistake to avoid: += at an output's first term (its slot still holds the output stored nine steps earlier), or xy(p) added to another output's slot. (Adding xy on a z-halo plane is only wasted work: those outputs are never stored.)
    // 4. The centre goes into the 9 sums it weighs in; xy(p)'s 16 neighbours into out(p)'s.
    const float4 c = tile[threadIdx.y + kRadius][threadIdx.x + 1];
#pragma unroll
    for (int k = 0; k < kSums; ++k) {
      float4& sum = sums[sum_slot(j, k)];
      const float w = centre_weight(k);
#pragma unroll
      for (int i = 0; i < 4; ++i) lane(sum, i) = k == 2 * kRadius ? w * lane(c, i) : fmaf(w, lane(c, i), lane(sum, i));
    }
    if (s >= kRadius && s < steps - kRadius) {  // a plane of the chunk (the same branch in every thread)
      float4& sum = sums[sum_slot(j, kRadius)];
      const float4 left = tile[threadIdx.y + kRadius][threadIdx.x], right = tile[threadIdx.y + kRadius][threadIdx.x + 2];
      float w[2 * kRadius + 4];  // floats x0 - R .. x0 + 3 + R
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        w[i] = lane(left, i);
        w[kRadius + i] = lane(c, i);
        w[2 * kRadius + i] = lane(right, i);
      }
#pragma unroll
      for (int r = 0; r <= 2 * kRadius; ++r) {
        if (r == kRadius) continue;
        const float4 row = tile[threadIdx.y + r][threadIdx.x + 1];
#pragma unroll
        for (int i = 0; i < 4; ++i)
          lane(sum, i) = fmaf(weight(r - kRadius), w[i + r], fmaf(weight(r - kRadius), lane(row, i), lane(sum, i)));
      }
    }
    // STUB: (void)tile;
    // END SOLUTION
    // 5. out(p - R) has all its terms (from s = 2R on): its sum is the one the next step starts afresh.
    if (s >= 2 * kRadius) {
      const float4& sum = sums[sum_slot(j, 0)];
      auto store = [](auto* to, const auto& value) {
        if constexpr (kStreaming) course::store_streaming(to, value);
        else *to = value;
      };
      if (inside && x0 + 4 <= g.dx) {
        store(reinterpret_cast<float4*>(target), sum);
      } else if (inside) {
        for (int i = 0; i < 4 && x0 + i < g.dx; ++i) store(target + i, lane(sum, i));
      }
      target += g.plane;
    }
  };
  // BEGIN SOLUTION: part 6 of 6, unrolled by nine: the plane loop advances kSums steps at a time and, inside, runs plane_step once for each position j = 0 .. 8, passing j as a compile-time constant (std::integral_constant<int, j>) so that sum_slot(j, k) is a constant and the sums stay in registers. Invariant: every plane step s < steps runs exactly once, in order; nothing is shifted. Mistake to avoid: a plain loop with a run-time position (it does not compile: j must be a constant), or a call past the chunk's last plane step (the last round of nine is usually partial).
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
  static_assert(kSums == 9, "the loop above is unrolled by kSums");
  // STUB: (void)plane_step;
  // END SOLUTION
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

namespace parts {
RingCopy ring_copy(int copy, int x_left, int y_top, const Grid& g) { return ch03::ring_copy(copy, x_left, y_top, g); }
int ring_sum_slot(int j, int k) { return sum_slot(j, k); }
float ring_centre_weight(int k) { return centre_weight(k); }
}  // namespace parts

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
