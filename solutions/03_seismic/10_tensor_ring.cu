// Step 10 — step 08's ring filled by the tensor memory accelerator (sm_90 on), then taller tiles.
//
// Step 08's 101-103 registers leave 2 blocks of 256 threads per multiprocessor, 24% of the warps,
// and a warp issues an instruction every 6.6-7.4 cycles, so four warps a scheduler leave about half
// its issue slots empty; what holds it is not settled (NOTES.md's diagnosis). Part of what each
// thread carries and issues is the copy path, the copy plan: three copy offsets, their valid and
// centre flags, the source pointer, and per plane three predicated cp.async, a commit and a wait.
// Hopper's tensor memory accelerator (course/tile_copies.hpp) moves a box of the array into
// shared memory on one instruction from one thread, zero-fills what lies outside the array and
// counts the bytes on an mbarrier per slot of the ring: the threads wait on that barrier, and no
// thread computes an address or holds a flag for the copies. The arithmetic is step 08's (9
// partial sums, 25 FMAs a point, the plane loop unrolled by 9). The z-halo planes come whole.
// The taught variant, `tensor_ring_two_rows_planes128_plain_stores`: the tile's centre as a box
// of 128 floats starting on a 128-byte line and its two x-halos as 4-float boxes (three copies a
// plane on one barrier); two output rows a thread, so a 32 x 8 block covers 128 x 16 points and
// its tile is 24 rows tall instead of 16 (the y-halo 1.5x the outputs instead of 2.0x; 10 shared
// loads for two outputs instead of 18), 18 partial sums, 2 blocks; 128 planes a block; plain
// stores.
// Predicted, before it ran: the copy plan's registers (about 10) and instructions (about 15 of
// step 08's 177 a plane) gone; then, with two rows a thread, 11 -> 7 shared loads an output
// float4 and about half a cube fewer L2 reads: toward the 0.85 of the copy the chapter targets.
// Your parts: the boxes (tile_boxes, tested on its own), the barriers and the prime, a plane's
// wait and refill, and the two rows' column loaded once; the tiles and step 08's arithmetic are
// given. It needs sm_90 or later; the CPU backend keeps the protocol.
// Experiments, in the order they were tried (NOTES.md has their predictions and numbers):
// `tensor_ring_one_box`: the haloed tile as one 136 x 16 box (544-byte rows starting 16 bytes
// before a 128-byte line), 2 blocks; `tensor_ring`: the split boxes, 3 blocks (at most 80
// registers; predicted 36% of the warps instead of 24%); `tensor_ring_64x4`: the same on the
// source document's blocks of 64 x 4 threads (256 x 4 points: the y-halo 3.0x the outputs
// instead of 2.0x; predicted about a cube more read from the L2 than `tensor_ring`, so slower);
// `tensor_ring_two_rows`, `_two_rows_planes128`, `_two_rows_plain_stores`: the taught variant's
// knobs one at a time (plain stores predicted level, as in step 08's A/B); `_one_load`: the
// x-halo neighbour's address chosen and loaded once, where choosing the value compiles to two
// shared loads and a select (predicted, after that was found: 18 -> 14 shared loads a plane, a
// few percent).
// BEGIN FINDINGS
// The H200 recording (results/h200/): one box 0.66 of the copy (2.5% over step 08's 0.64: the
// accelerator alone bought little), the split boxes at 3 blocks 0.75 (predicted toward 0.85: a
// miss), 64 x 4 0.72, two rows 0.83, and with 128 planes and plain stores (the taught variant) 0.85,
// the best of nine variants, within run noise of the target, 1.30x step 08 at 128 planes. The
// registers rose to 124 (step 08: 101), not fell: 2 blocks, as step 08. One load of the x-halo no
// faster. The H100 recording predates step 10: its dated runs
// (results/h100-80gb-hbm3/tensor-ring-2026-11-24/, history) gave one box 0.73, the split boxes
// 0.80, 64 x 4 0.80, two rows 0.84, the taught variant 0.79. NOTES.md has the predictions beside
// them, the profiles and the misses.
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit c4b3610, 2026-11-27):
//     10_tensor_ring_one_box                                   laplacian8 512^3  0.4908 ms, an experiment, 2188 GB/s (0.730 of copy), 13674 GFLOP/s (0.232 of FMA)
//     10_tensor_ring                                           laplacian8 512^3  0.4462 ms, an experiment, 2406 GB/s (0.803 of copy), 15040 GFLOP/s (0.255 of FMA)
//     10_tensor_ring_64x4                                      laplacian8 512^3  0.4456 ms, an experiment, 2410 GB/s (0.804 of copy), 15060 GFLOP/s (0.255 of FMA)
//     10_tensor_ring_two_rows                                  laplacian8 512^3  0.4263 ms, an experiment, 2519 GB/s (0.841 of copy), 15743 GFLOP/s (0.267 of FMA)
//     10_tensor_ring_two_rows_planes128                        laplacian8 512^3  0.4508 ms, an experiment, 2382 GB/s (0.795 of copy), 14887 GFLOP/s (0.252 of FMA)
//     10_tensor_ring_two_rows_plain_stores                     laplacian8 512^3  0.4254 ms, an experiment, 2524 GB/s (0.842 of copy), 15775 GFLOP/s (0.267 of FMA)
//     10_tensor_ring_two_rows_planes128_plain_stores           laplacian8 512^3  0.4526 ms, 2372 GB/s (0.792 of copy), 14827 GFLOP/s (0.251 of FMA)
//     10_tensor_ring_two_rows_plain_stores_one_load            laplacian8 512^3  0.4260 ms, an experiment, 2520 GB/s (0.841 of copy), 15753 GFLOP/s (0.267 of FMA)
//     10_tensor_ring_two_rows_planes128_plain_stores_one_load  laplacian8 512^3  0.4528 ms, an experiment, 2371 GB/s (0.791 of copy), 14821 GFLOP/s (0.251 of FMA)
//   NVIDIA H200 (commit e1dce37, 2026-11-27):
//     10_tensor_ring_one_box                                   laplacian8 512^3  0.3862 ms, an experiment, 2781 GB/s (0.656 of copy), 17379 GFLOP/s (0.296 of FMA)
//     10_tensor_ring                                           laplacian8 512^3  0.3378 ms, an experiment, 3179 GB/s (0.750 of copy), 19869 GFLOP/s (0.338 of FMA)
//     10_tensor_ring_64x4                                      laplacian8 512^3  0.3530 ms, an experiment, 3042 GB/s (0.718 of copy), 19011 GFLOP/s (0.324 of FMA)
//     10_tensor_ring_two_rows                                  laplacian8 512^3  0.3054 ms, an experiment, 3516 GB/s (0.830 of copy), 21976 GFLOP/s (0.374 of FMA)
//     10_tensor_ring_two_rows_planes128                        laplacian8 512^3  0.3006 ms, an experiment, 3572 GB/s (0.843 of copy), 22328 GFLOP/s (0.380 of FMA)
//     10_tensor_ring_two_rows_plain_stores                     laplacian8 512^3  0.3019 ms, an experiment, 3556 GB/s (0.839 of copy), 22227 GFLOP/s (0.378 of FMA)
//     10_tensor_ring_two_rows_planes128_plain_stores           laplacian8 512^3  0.2968 ms, 3617 GB/s (0.853 of copy), 22608 GFLOP/s (0.385 of FMA)
//     10_tensor_ring_two_rows_plain_stores_one_load            laplacian8 512^3  0.3022 ms, an experiment, 3553 GB/s (0.838 of copy), 22204 GFLOP/s (0.378 of FMA)
//     10_tensor_ring_two_rows_planes128_plain_stores_one_load  laplacian8 512^3  0.2973 ms, an experiment, 3612 GB/s (0.852 of copy), 22574 GFLOP/s (0.384 of FMA)
// END MEASURED
#include <type_traits>

#include "course/tile_copies.hpp"
#include "parts.hpp"
#include "steps.hpp"

namespace ch03 {
namespace {

constexpr int kSums = 2 * kRadius + 1;

// The variants of the step, one type each, named in profiles as what they change: `stages`
// tiles in the ring; `min_blocks` blocks per multiprocessor asked of the compiler; `planes`
// z-planes per block; `rows` rows of outputs per thread (neighbours in y); `split`: the tile's
// centre (starting on a 128-byte line) and its two 4-float x-halos as three boxes, else one box;
// `streaming`: out stored with non-temporal stores (course::store_streaming) or plain ones; blocks
// of `tile_x` x `tile_y` threads, each thread a float4 wide.
struct Ring {
  static constexpr int stages = 3, min_blocks = 2, planes = 64, rows = 1, tile_x = 32, tile_y = 8;
  static constexpr bool split = true, streaming = true, one_load = false;
};
struct OneBox : Ring { static constexpr bool split = false; };
struct ThreeBlocks : Ring { static constexpr int min_blocks = 3; };
struct ThreeBlocks64x4 : ThreeBlocks { static constexpr int tile_x = 64, tile_y = 4; };
struct TwoRows : Ring { static constexpr int rows = 2; };
struct TwoRowsPlanes128 : TwoRows { static constexpr int planes = 128; };
struct TwoRowsPlainStores : TwoRows { static constexpr bool streaming = false; };
struct TwoRowsPlanes128PlainStores : TwoRowsPlanes128 { static constexpr bool streaming = false; };
struct TwoRowsPlainStoresOneLoad : TwoRowsPlainStores { static constexpr bool one_load = true; };
struct TwoRowsPlanes128PlainStoresOneLoad : TwoRowsPlanes128PlainStores { static constexpr bool one_load = true; };

// Part 1 of the exercise, tested on its own: the boxes the accelerator copies for plane step s of a
// block whose outputs start at interior column x_begin and plane z_begin and whose tile starts at
// interior row y_top (its first output row less R): the tile's centre and its two x-halos, in
// array coordinates (floats from the start of a row, rows and planes from the array's first,
// halos and padding included), with their sizes. The kernel starts them (start_copy) and the
// host describes them (launch_tensor_ring).
template <class Variant>
__host__ __device__ __forceinline__ parts::TileBoxes tile_boxes(const Grid& g, int x_begin, int y_top, int z_begin, int s) {
  // BEGIN SOLUTION: part 1 of 4, the boxes: the boxes are in array coordinates (halos and padding included), so move the interior coordinates by the array's own offsets: the row's lead in x, the halos in y and z. The tile starts at the block's first float (x_begin) and first tile row (y_top, its first output row less R); plane step s is the chunk's plane z_begin - R + s. Every box spans the tile's whole height: its output rows (tile_y * rows) and the y-halo. Split: the centre box is the block's own 4 * tile_x floats, starting on a 128-byte line (the interior's rows are aligned to 64 floats), and each x-halo box is the R floats just outside it, left and right. One box: the whole haloed tile, from R floats before the centre (the side boxes keep their places and sizes; nothing copies them). Invariant: the three boxes together are the haloed tile, once. Mistake to avoid: forgetting the z-halo's R (plane step 0 is the plane R below the chunk), or the array's own halo and lead (interior coordinates are off by them).
  const int rows = Variant::tile_y * Variant::rows + 2 * kRadius;
  const int x = g.lead + x_begin, y = g.hy + y_top, z = g.hz + z_begin - kRadius + s;
  const parts::Box left{x - kRadius, y, z, 4, rows}, right{x + 4 * Variant::tile_x, y, z, 4, rows};
  if constexpr (Variant::split) {
    return {{x, y, z, 4 * Variant::tile_x, rows}, left, right};
  } else {
    return {{x - kRadius, y, z, 4 * (Variant::tile_x + 2), rows}, left, right};
  }
  // STUB: (void)g; (void)x_begin; (void)y_top; (void)z_begin; (void)s;
  // STUB: return {};
  // END SOLUTION
}

template <class Variant>
__global__ void COURSE_LAUNCH_BOUNDS(Variant::tile_x* Variant::tile_y, Variant::min_blocks)
    tensor_ring_kernel(const __grid_constant__ course::TileMap centres, const __grid_constant__ course::TileMap sides_map,
                       float* __restrict__ out, Grid g) {
  constexpr int kStages = Variant::stages, kPlanes = Variant::planes, kRows = Variant::rows;
  constexpr int kTileX = Variant::tile_x, kTileY = Variant::tile_y;
  constexpr bool kSplit = Variant::split;
  // The tiles, aligned as the tensor memory accelerator needs, a barrier each, and which tile the
  // boxes of plane s go to: the copy plan is given, the pipeline is yours.
  constexpr int kHeight = kTileY * kRows + 2 * kRadius;  // rows per tile
  constexpr int kColumns = kSplit ? kTileX : kTileX + 2;  // float4s per tile row
  constexpr int kShift = kSplit ? 0 : 1;                 // this thread's column is threadIdx.x + kShift
  alignas(128) __shared__ float4 tiles[kStages][kHeight][kColumns];
  // The x-halos, left and right, each padded to whole 128-byte lines: the accelerator writes only
  // to 128-byte boundaries (a GPU stops with "misaligned address" otherwise).
  constexpr int kSideRows = (kHeight + 7) / 8 * 8;
  alignas(128) __shared__ float4 sides[kSplit ? kStages : 1][2][kSideRows];
  __shared__ course::TileBarrier landed[kStages];
  const bool issuer = threadIdx.x == 0 && threadIdx.y == 0;
  const int x_begin = blockIdx.x * kTileX * 4;  // the tile's first interior float
  const int y_top = blockIdx.y * kTileY * kRows - kRadius;
  const int z_begin = blockIdx.z * kPlanes;
  const int z_end = min(g.dz, z_begin + kPlanes);
  const int steps = z_end - z_begin + 2 * kRadius;  // planes z_begin - R .. z_end + R - 1
  auto start_copy = [&](int s, int slot) {  // plane s of the chunk into tiles[slot]; the issuer only
    const parts::TileBoxes box = tile_boxes<Variant>(g, x_begin, y_top, z_begin, s);
    if constexpr (kSplit) {
      course::load_tile_async(reinterpret_cast<float*>(tiles[slot]), sizeof tiles[slot], centres, box.centre.x, box.centre.y,
                              box.centre.z, landed[slot]);
      constexpr unsigned kSideBytes = kHeight * sizeof(float4);
      course::load_tile_async(reinterpret_cast<float*>(sides[slot][0]), kSideBytes, sides_map, box.left.x, box.left.y, box.left.z,
                              landed[slot]);
      course::load_tile_async(reinterpret_cast<float*>(sides[slot][1]), kSideBytes, sides_map, box.right.x, box.right.y,
                              box.right.z, landed[slot]);
    } else {
      course::load_tile_async(reinterpret_cast<float*>(tiles[slot]), sizeof tiles[slot], centres, box.centre.x, box.centre.y,
                              box.centre.z, landed[slot]);
    }
  };

  const int x0 = x_begin + 4 * threadIdx.x;
  const int y0 = y_top + kRadius + kRows * threadIdx.y;
  const int row0 = kRows * threadIdx.y;  // the tile row of this thread's first output, less R
  float* target = out + g.at(x0, y0, z_begin);  // out(p - R) from s = 2R on
  float4 sums[kRows][kSums] = {};  // at step s, sums[q][(s + k) % kSums] is out(p - R + k)'s in row y0 + q

  // BEGIN SOLUTION: part 2 of 4, the barriers and the prime: the issuer (one thread) initialises the kStages barriers, each to count the copies of one plane (kSplit: 3 boxes, else 1), and starts planes 0 .. kStages - 2 into tiles 0 .. kStages - 2 (start_copy, only for s < steps); then every thread passes a __syncthreads(), so that no thread waits on a barrier before it is initialised. Keep a phase bit per tile for part 3, all 0. Invariant: a barrier is initialised once, before any copy or wait uses it. Mistake to avoid: every thread initialising the barriers, or the other threads skipping the __syncthreads().
  if (issuer) {
    for (int slot = 0; slot < kStages; ++slot) course::init_tile_barrier(landed[slot], kSplit ? 3 : 1);
    for (int s = 0; s + 1 < kStages && s < steps; ++s) start_copy(s, s);
  }
  __syncthreads();
  unsigned phases = 0;  // bit `slot`: the phase of that slot's next wait
  // STUB: unsigned phases = 0;  // bit `slot`: the phase of that slot's next wait
  // END SOLUTION
  static_assert(kSums % kStages == 0, "the ring's tiles cycle whole within the loop unrolled by kSums");
  auto plane_step = [&](int s, auto position) {
    constexpr int j = decltype(position)::value;  // s % kSums
    constexpr int slot = j % kStages;             // the tile of plane s
    // BEGIN SOLUTION: part 3 of 4, a plane's wait and refill: a __syncthreads() first (after it every thread has finished plane s - 1, so its tile is free); the issuer then starts plane s + kStages - 1 (if < steps) into that tile (slot - 1, or kStages - 1 for slot 0); then every thread waits for plane s's tile, course::wait_tile(landed[slot], phase), with the tile's phase bit, and flips that bit. Invariant: a tile's waits alternate phases 0, 1, 0, ...; one block barrier a plane. Mistake to avoid: refilling before the barrier (another thread may still read the tile), or waiting with a phase that does not flip (the second wait returns at once, before its copy landed).
    __syncthreads();
    if (issuer && s + kStages - 1 < steps) start_copy(s + kStages - 1, slot == 0 ? kStages - 1 : slot - 1);
    course::wait_tile(landed[slot], (phases >> slot) & 1u);
    phases ^= 1u << slot;
    // STUB: (void)start_copy; (void)issuer; (void)phases;
    // END SOLUTION

    // Step 08's arithmetic, for kRows rows: each centre goes into the 9 sums it weighs in; the
    // 16 xy neighbours into out(p)'s; out(p - R) has all its terms.
    const float4 (*tile)[kColumns] = tiles[slot];
    // BEGIN SOLUTION: part 4 of 4, two rows a thread: column(r) is row r of this thread's column of the tile, counted from the first tile row its outputs use (row0), at its own float4 column (moved by the halo in the one-box layout). With kRows > 1 load the kRows + 2R rows into a register array of your own, once, and return from it: the rows share 2R rows, so 10 loads serve two outputs where 18 would serve them one by one. With one row return the tile's element itself, read where it is used (fewer registers live). Invariant: column(q + R) is output row q's centre, column(q + r) its y neighbour r - R. Mistake to avoid: starting at each output's own window and loading 9 rows per output again.
    // This thread's column of the tile, rows y0 - R .. y0 + kRows - 1 + R: with one row, each
    // loaded where it is used (fewer registers live: 80 fit, for 3 blocks); with more, loaded once
    // up front, since the rows share 2R of them (ptxas then needs no spills at 2 blocks).
    [[maybe_unused]] float4 loaded_rows[kRows > 1 ? kRows + 2 * kRadius : 1];
    if constexpr (kRows > 1) {
#pragma unroll
      for (int r = 0; r < kRows + 2 * kRadius; ++r) loaded_rows[r] = tile[row0 + r][threadIdx.x + kShift];
    }
    auto column = [&](int r) {
      if constexpr (kRows > 1) return loaded_rows[r];
      else return tile[row0 + r][threadIdx.x + kShift];
    };
    // STUB: auto column = [&](int r) { (void)r; (void)tile; return zero<float4>(); };
    // END SOLUTION
#pragma unroll
    for (int q = 0; q < kRows; ++q) {
      const float4 c = column(q + kRadius);
#pragma unroll
      for (int k = 0; k < kSums; ++k) {
        float4& sum = sums[q][(j + k) % kSums];
        const float w = k == kRadius ? 3 * weight(0) : weight(kRadius - k);
#pragma unroll
        for (int i = 0; i < 4; ++i) lane(sum, i) = k == 2 * kRadius ? w * lane(c, i) : fmaf(w, lane(c, i), lane(sum, i));
      }
      if (s >= kRadius && s < steps - kRadius) {  // a plane of the chunk (the same branch in every thread)
        float4& sum = sums[q][(j + kRadius) % kSums];
        const int centre_row = row0 + q + kRadius;
        float4 left, right;
        if constexpr (kSplit) {
          if constexpr (Variant::one_load) {  // the address chosen, one load
            left = *(threadIdx.x == 0 ? &sides[slot][0][centre_row] : &tile[centre_row][threadIdx.x - 1]);
            right = *(threadIdx.x == kTileX - 1 ? &sides[slot][1][centre_row] : &tile[centre_row][threadIdx.x + 1]);
          } else {  // the value chosen: compiled to both loads and a select
            left = threadIdx.x == 0 ? sides[slot][0][centre_row] : tile[centre_row][threadIdx.x - 1];
            right = threadIdx.x == kTileX - 1 ? sides[slot][1][centre_row] : tile[centre_row][threadIdx.x + 1];
          }
        } else {
          left = tile[centre_row][threadIdx.x];
          right = tile[centre_row][threadIdx.x + 2];
        }
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
#pragma unroll
          for (int i = 0; i < 4; ++i)
            lane(sum, i) = fmaf(weight(r - kRadius), w[i + r], fmaf(weight(r - kRadius), lane(column(q + r), i), lane(sum, i)));
        }
      }
    }
    if (s >= 2 * kRadius) {
      auto store = [](auto* to, const auto& value) {
        if constexpr (Variant::streaming) course::store_streaming(to, value);
        else *to = value;
      };
#pragma unroll
      for (int q = 0; q < kRows; ++q) {
        const float4& sum = sums[q][j];
        float* to = target + q * g.pitch;
        if (x0 + 4 <= g.dx && y0 + q < g.dy) {
          store(reinterpret_cast<float4*>(to), sum);
        } else if (y0 + q < g.dy) {
          for (int i = 0; i < 4 && x0 + i < g.dx; ++i) store(to + i, lane(sum, i));
        }
      }
      target += g.plane;
    }
  };
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
}

template <class Variant>
void launch_tensor_ring(const float* in, float* out, const Grid& grid) {
  require_aligned_rows(grid, 64, "step 10");
  // The whole array, halos and padding included, x fastest; a box is one plane of a tile (or of
  // its x-halo), tile_y * rows rows and the y-halo tall.
  const std::array<long long, 3> extent{grid.pitch, grid.dy + 2LL * grid.hy, grid.dz + 2LL * grid.hz};
  const std::array<long long, 2> stride{grid.pitch, grid.plane};
  const int rows = Variant::tile_y * Variant::rows;
  const parts::TileBoxes box = tile_boxes<Variant>(grid, 0, -kRadius, 0, 0);  // every block's and plane's have these sizes
  const course::TileMap centres = course::make_tile_map(in, extent, stride, {box.centre.width, box.centre.height, 1}, "step 10");
  const course::TileMap sides = course::make_tile_map(in, extent, stride, {box.left.width, box.left.height, 1}, "step 10");
  course::launch(tensor_ring_kernel<Variant>,
                 {dim3(course::blocks_for(grid.dx, 4 * Variant::tile_x), course::blocks_for(grid.dy, rows),
                       course::blocks_for(grid.dz, Variant::planes)),
                  dim3(Variant::tile_x, Variant::tile_y)},
                 centres, sides, out, grid);
}

static_assert(TwoRowsPlanes128PlainStores::tile_x * 4 == parts::kTensorTileFloats &&
                  TwoRowsPlanes128PlainStores::tile_y * TwoRowsPlanes128PlainStores::rows == parts::kTensorTileRows &&
                  TwoRowsPlanes128PlainStores::planes == parts::kTensorPlanes,
              "parts.hpp describes the taught variant's tile");
static_assert(OneBox::tile_x * 4 == parts::kTensorTileFloats && OneBox::tile_y * OneBox::rows == parts::kOneBoxTileRows &&
                  OneBox::planes == parts::kOneBoxPlanes,
              "parts.hpp describes the one-box variant's tile");

}  // namespace

namespace parts {
TileBoxes tensor_ring_boxes(const Grid& g, int block_x, int block_y, int block_z, int s) {
  using Taught = TwoRowsPlanes128PlainStores;
  return tile_boxes<Taught>(g, block_x * Taught::tile_x * 4, block_y * Taught::tile_y * Taught::rows - kRadius, block_z * Taught::planes, s);
}
TileBoxes tensor_ring_one_box_boxes(const Grid& g, int block_x, int block_y, int block_z, int s) {
  return tile_boxes<OneBox>(g, block_x * OneBox::tile_x * 4, block_y * OneBox::tile_y * OneBox::rows - kRadius, block_z * OneBox::planes, s);
}
}  // namespace parts

void laplacian_tensor_ring_one_box(const float* in, float* out, const Grid& grid) { launch_tensor_ring<OneBox>(in, out, grid); }
void laplacian_tensor_ring(const float* in, float* out, const Grid& grid) { launch_tensor_ring<ThreeBlocks>(in, out, grid); }
void laplacian_tensor_ring_64x4(const float* in, float* out, const Grid& grid) { launch_tensor_ring<ThreeBlocks64x4>(in, out, grid); }
void laplacian_tensor_ring_two_rows(const float* in, float* out, const Grid& grid) { launch_tensor_ring<TwoRows>(in, out, grid); }
void laplacian_tensor_ring_two_rows_planes128(const float* in, float* out, const Grid& grid) {
  launch_tensor_ring<TwoRowsPlanes128>(in, out, grid);
}
void laplacian_tensor_ring_two_rows_plain_stores(const float* in, float* out, const Grid& grid) {
  launch_tensor_ring<TwoRowsPlainStores>(in, out, grid);
}
void laplacian_tensor_ring_two_rows_planes128_plain_stores(const float* in, float* out, const Grid& grid) {
  launch_tensor_ring<TwoRowsPlanes128PlainStores>(in, out, grid);
}
void laplacian_tensor_ring_two_rows_plain_stores_one_load(const float* in, float* out, const Grid& grid) {
  launch_tensor_ring<TwoRowsPlainStoresOneLoad>(in, out, grid);
}
void laplacian_tensor_ring_two_rows_planes128_plain_stores_one_load(const float* in, float* out, const Grid& grid) {
  launch_tensor_ring<TwoRowsPlanes128PlainStoresOneLoad>(in, out, grid);
}

}  // namespace ch03
