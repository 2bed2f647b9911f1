// The chapter's kernels: the leapfrog update, the periodic images in x and y, and the standing
// mode. Every step launches these; what the steps change is how the slabs' halos are exchanged.
//
// The leapfrog kernel is chapter 3's step 10 (its taught variant, 0.85 of the H200's copy rate
// on the Laplacian alone), with the update folded in: a block of 32 x 8 threads, a float4 and
// two output rows each (128 x 16 points), walks its planes in z; a ring of 3 haloed tiles in
// shared memory is filled by the tensor memory accelerator two planes ahead (course/
// tile_copies.hpp: the tile's centre, 128 floats starting on a 128-byte line, and its two 4-float
// x-halos, three boxes on one barrier a tile); each point's z sum is kept as 9 partial sums in
// registers, so every value read is added where it weighs and never shifted. The update folds
// into those sums: the centre weighs 2 + 3 K w(0) in its own sum, every neighbour K w(i), and the
// store subtracts u(n-1), loaded from `next` as the plane step starts. Bytes per point at best:
// read u and u(n-1), write u(n+1): 12, where chapter 3's operator moved 8.
// Chapter 3's step 10 is an exercise whose parts are this pipeline (the barriers, the wait and
// refill, the two rows' column), so it is written here again for the update, not shared from there.
//
// Where there is no tensor memory accelerator (HIP, NVIDIA GPUs before sm_90:
// course::make_tile_map refuses), leapfrog() runs the portable kernel instead: chapter 3's step
// 08 structure, its ring filled by per-thread asynchronous copies (course::copy_async), one output
// row a thread. The CPU backend runs both (the tests check each).
#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "course/tile_copies.hpp"
#include "wave.hpp"

namespace ch06 {
namespace {

constexpr int kTileX = 32, kTileY = 8;  // threads: 128 floats wide (a float4 each), 8 rows
constexpr int kStages = 3;              // tiles in the ring: one in use, two on their way
constexpr int kSums = 2 * kRadius + 1;  // the z sums a thread carries: outputs p - R .. p + R
static_assert(kSums % kStages == 0, "the ring's slots repeat within the loop unrolled by kSums");

// The weights of K L (u) + 2u: `axis[d]` = K w(d) for the neighbours at distance d = 1..R along
// each axis, `centre` = 2 + 3 K w(0). Passed by value: on a GPU they sit in the constant bank,
// and FMAs read them from there.
struct Weights {
  float axis[kRadius + 1];
  float centre;
};

Weights weights_for(double courant2) {
  Weights w{};
  for (int d = 1; d <= kRadius; ++d) w.axis[d] = static_cast<float>(courant2 * course::second_derivative(kRadius, d));
  w.centre = static_cast<float>(2.0 + 3.0 * courant2 * course::second_derivative(kRadius, 0));
  return w;
}

// The planes of a launch: one range, or two (a slab's two ends in one launch, step 04), each cut
// into chunks of `per_block` planes, a block's z walk; block z takes chunk z, the first range's
// chunks first.
struct Chunks {
  Planes first, second;
  int per_block;
  __host__ __device__ static int count(Planes planes, int per_block) {
    return planes.end > planes.begin ? (planes.end - planes.begin + per_block - 1) / per_block : 0;
  }
  int blocks() const { return count(first, per_block) + count(second, per_block); }
  __host__ __device__ Planes of_block(int block) const {
    const int first_blocks = count(first, per_block);
    const Planes range = block < first_blocks ? first : second;
    const int begin = range.begin + (block < first_blocks ? block : block - first_blocks) * per_block;
    return {begin, begin + per_block < range.end ? begin + per_block : range.end};
  }
};

__device__ inline float& lane(float4& v, int i) { return reinterpret_cast<float*>(&v)[i]; }
__device__ inline float lane(const float4& v, int i) { return reinterpret_cast<const float*>(&v)[i]; }
// sum += a v, lane by lane, in FMAs.
__device__ inline void add_scaled(float4& sum, float a, const float4& v) {
  sum = make_float4(fmaf(a, v.x, sum.x), fmaf(a, v.y, sum.y), fmaf(a, v.z, sum.z), fmaf(a, v.w, sum.w));
}

// ---- The tensor-copy ring (sm_90 on, and the CPU backend) ----

constexpr int kRows = 2;                             // output rows a thread
constexpr int kOutputRows = kTileY * kRows;          // a block's: 16
constexpr int kHeight = kOutputRows + 2 * kRadius;   // a tile's rows: 24
constexpr int kSideRows = (kHeight + 7) / 8 * 8;     // an x-halo's float4s, padded to whole 128-byte lines
constexpr int kLargestChunk = 128;                   // planes a block at most: chapter 3's taught variant's

// The boxes of plane step s of the chunk starting at plane z_begin (plane z_begin - R + s), for
// the block whose outputs start at interior column x_begin and row y_top + R: in array coordinates.
struct RingBoxes {
  int x, y, z;  // the centre's corner; the x-halos are R floats left of it and 128 floats right
};
__host__ __device__ inline RingBoxes ring_boxes(const Grid& g, int x_begin, int y_top, int z_begin, int s) {
  return {g.lead + x_begin, g.hy + y_top, g.hz + z_begin - kRadius + s};
}

__global__ void COURSE_LAUNCH_BOUNDS(kTileX* kTileY, 2)
    ring_kernel(const __grid_constant__ course::TileMap centres, const __grid_constant__ course::TileMap sides_map,
                float* __restrict__ next, Grid g, Weights w, Chunks chunks) {
  alignas(128) __shared__ float4 tiles[kStages][kHeight][kTileX];
  // The x-halos, left and right, each whole 128-byte lines: the accelerator writes only from such a boundary.
  alignas(128) __shared__ float4 sides[kStages][2][kSideRows];
  __shared__ course::TileBarrier landed[kStages];
  const bool issuer = threadIdx.x == 0 && threadIdx.y == 0;
  const int x_begin = blockIdx.x * kTileX * 4;  // the tile's first interior float
  const int y_top = blockIdx.y * kOutputRows - kRadius;
  const Planes chunk = chunks.of_block(blockIdx.z);
  const int z_begin = chunk.begin;
  const int steps = chunk.end - z_begin + 2 * kRadius;  // planes z_begin - R .. z_end + R - 1
  auto start_copy = [&](int s, int slot) {  // plane s of the chunk into tiles[slot]; the issuer only
    constexpr unsigned kSideBytes = kHeight * sizeof(float4);
    const RingBoxes box = ring_boxes(g, x_begin, y_top, z_begin, s);
    course::load_tile_async(reinterpret_cast<float*>(tiles[slot]), sizeof tiles[slot], centres, box.x, box.y, box.z, landed[slot]);
    course::load_tile_async(reinterpret_cast<float*>(sides[slot][0]), kSideBytes, sides_map, box.x - kRadius, box.y, box.z,
                            landed[slot]);
    course::load_tile_async(reinterpret_cast<float*>(sides[slot][1]), kSideBytes, sides_map, box.x + 4 * kTileX, box.y, box.z,
                            landed[slot]);
  };

  const int x0 = x_begin + 4 * threadIdx.x;
  const int y0 = y_top + kRadius + kRows * threadIdx.y;
  const int row0 = kRows * threadIdx.y;  // the tile row of this thread's first output, less R
  const bool inside = x0 < g.dx;
  float* target = next + g.at(x0, y0, z_begin);  // the output plane p - R, from s = 2R on
  const float* starting = target;                 // the output plane p + R, while in the chunk
  float4 sums[kRows][kSums];  // at step s, sums[q][(s + k) % kSums] is output p - R + k's in row y0 + q
#pragma unroll
  for (int q = 0; q < kRows; ++q)
#pragma unroll
    for (int k = 0; k < kSums; ++k) sums[q][k] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

  if (issuer) {
    for (int slot = 0; slot < kStages; ++slot) course::init_tile_barrier(landed[slot], 3);
    for (int s = 0; s + 1 < kStages && s < steps; ++s) start_copy(s, s);
  }
  __syncthreads();
  unsigned phases = 0;  // bit `slot`: the phase of that slot's next wait

  auto plane_step = [&](int s, auto position) {
    constexpr int j = decltype(position)::value;  // s % kSums: every index below is a constant
    constexpr int slot = j % kStages;
    // The sum this step starts is output p + R's: u(n-1) there, loaded now, starts it (subtracted).
    const bool starts = s < steps - 2 * kRadius;
    float4 older[kRows] = {};
    if (starts && inside) {
#pragma unroll
      for (int q = 0; q < kRows; ++q)
        if (y0 + q < g.dy) older[q] = *reinterpret_cast<const float4*>(starting + q * g.pitch);
    }
    starting += g.plane;
    // Every thread has finished plane s - 1: its tile takes plane s + 2; then wait for plane s.
    __syncthreads();
    if (issuer && s + kStages - 1 < steps) start_copy(s + kStages - 1, slot == 0 ? kStages - 1 : slot - 1);
    course::wait_tile(landed[slot], (phases >> slot) & 1u);
    phases ^= 1u << slot;

    // This thread's column of the tile, rows y0 - R .. y0 + kRows - 1 + R, loaded once: the two
    // rows share 2R of them.
    const float4(*tile)[kTileX] = tiles[slot];
    float4 column[kRows + 2 * kRadius];
#pragma unroll
    for (int r = 0; r < kRows + 2 * kRadius; ++r) column[r] = tile[row0 + r][threadIdx.x];
    // This point's value weighs in the sums of the outputs up to R planes away: w.centre in its
    // own, K w(d) at distance d; the one R planes above starts here, from -u(n-1). Both rows' z
    // terms first, so that `older` is dead before the x and y terms need the registers.
#pragma unroll
    for (int q = 0; q < kRows; ++q) {
      const float4 c = column[q + kRadius];
#pragma unroll
      for (int k = 0; k < kSums; ++k) {
        float4& sum = sums[q][(j + k) % kSums];
        const float weight = k == kRadius ? w.centre : w.axis[k < kRadius ? kRadius - k : k - kRadius];
#pragma unroll
        for (int i = 0; i < 4; ++i)
          lane(sum, i) = fmaf(weight, lane(c, i), k == 2 * kRadius ? -lane(older[q], i) : lane(sum, i));
      }
      if (s >= kRadius && s < steps - kRadius) {  // a plane of the chunk: its x and y neighbours into its own sum
        float4& sum = sums[q][(j + kRadius) % kSums];
        const int centre_row = row0 + q + kRadius;
        const float4 left = threadIdx.x == 0 ? sides[slot][0][centre_row] : tile[centre_row][threadIdx.x - 1];
        const float4 right = threadIdx.x == kTileX - 1 ? sides[slot][1][centre_row] : tile[centre_row][threadIdx.x + 1];
        float row[2 * kRadius + 4];  // floats x0 - R .. x0 + 3 + R
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          row[i] = lane(left, i);
          row[kRadius + i] = lane(c, i);
          row[2 * kRadius + i] = lane(right, i);
        }
#pragma unroll
        for (int r = 0; r <= 2 * kRadius; ++r) {
          if (r == kRadius) continue;
          const float weight = w.axis[r < kRadius ? kRadius - r : r - kRadius];
#pragma unroll
          for (int i = 0; i < 4; ++i) lane(sum, i) = fmaf(weight, row[i + r], fmaf(weight, lane(column[q + r], i), lane(sum, i)));
        }
      }
    }
    // Output p - R is complete: u(n+1), its u(n-1) subtracted when it started.
    if (s >= 2 * kRadius) {
#pragma unroll
      for (int q = 0; q < kRows; ++q) {
        const float4 result = sums[q][j];
        float* to = target + q * g.pitch;
        if (inside && x0 + 4 <= g.dx && y0 + q < g.dy) {
          *reinterpret_cast<float4*>(to) = result;
        } else if (inside && y0 + q < g.dy) {
#pragma unroll
          for (int i = 0; i < 4; ++i)
            if (x0 + i < g.dx) to[i] = lane(result, i);
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

// ---- The portable kernel (HIP, NVIDIA before sm_90) ----
//
// A block of 32 x 8 threads, a float4 and one output row each (128 x 8 points), walks up to 32
// planes; its ring's tiles are 34 float4s wide (one of x-halo each side) and 16 rows tall, each
// thread copying its own column of them with course::copy_async.

constexpr int kPortableChunk = 32;
constexpr int kWidth = kTileX + 2;  // float4s per tile row: one of x-halo each side
constexpr int kPortableHeight = kTileY + 2 * kRadius;

__global__ void COURSE_LAUNCH_BOUNDS(kTileX* kTileY, 2)
    portable_kernel(const float* __restrict__ u, float* __restrict__ next, Grid g, Weights w, Chunks chunks) {
  __shared__ float4 ring[kStages][kPortableHeight][kWidth];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x_left = blockIdx.x * kTileX * 4 - kRadius;  // the tile's first float, in the x-halo
  const int y_top = blockIdx.y * kTileY - kRadius;
  const Planes chunk = chunks.of_block(blockIdx.z);
  const int z_begin = chunk.begin, z_end = chunk.end;
  const int plane_count = z_end - z_begin + 2 * kRadius;  // planes z_begin - R .. z_end + R - 1

  // 1. What this thread copies of a plane: its own column of the tile (tx + 1) in tile rows ty
  //    and ty + 8 (8 + 2R = 16 rows), and, for tx = 0 and 1, the float4 left of the tile and the
  //    one right of it in the same rows. Of a plane outside the chunk only its own point (row
  //    ty + R) is needed: its z neighbours' centres. Outside the array (rows past the last halo
  //    row, columns past the row's end) a copy lands as zeros, reading nothing.
  auto copy = [&](int slot, const float* plane_corner, int row, int column) {
    const bool inside_array = y_top + row < g.dy + kRadius && x_left + 4 * column + 4 <= g.pitch - g.lead;
    const float* source = plane_corner + (inside_array ? row * g.pitch + 4 * column : 0);
    course::copy_async(&ring[slot][row][column], reinterpret_cast<const float4*>(source), inside_array);
  };
  auto start_plane = [&](int s, int slot) {
    const float* corner = u + g.at(x_left, y_top, z_begin - kRadius + s);
    if (s < kRadius || s >= plane_count - kRadius) {
      copy(slot, corner, ty + kRadius, tx + 1);
      return;
    }
    for (int half = 0; half < 2; ++half) {
      const int row = ty + half * kTileY;
      copy(slot, corner, row, tx + 1);
      if (tx < 2) copy(slot, corner, row, tx * (kWidth - 1));
    }
  };

  const int x0 = x_left + kRadius + 4 * tx;
  const int y = y_top + kRadius + ty;
  const bool inside = x0 < g.dx && y < g.dy;
  float* out = next + g.at(x0, y, z_begin);  // the output plane, from the 2R-th plane on
  float4 sums[kSums] = {};                    // on plane s, sums[(s + R + d) % kSums] is output p + d's

  // 2. The first kStages - 1 planes are started before the loop, and every plane of the loop
  //    commits exactly one group of copies (it may be empty), so that "at most kStages - 2
  //    groups pending" always means "plane s has landed".
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < plane_count) start_plane(s, s);
    course::commit_copies();
  }

  auto plane = [&](int s, auto position) {
    constexpr int j = decltype(position)::value;  // s % kSums: every index below is a constant
    constexpr int slot = j % kStages;
    const bool completes = s >= 2 * kRadius;       // output p - R has had its last term
    float4 older{};
    if (completes && inside) older = *reinterpret_cast<const float4*>(out);  // u(n-1): loads while we add

    // 3. Wait for plane s; then the slot that plane s - 1 used is free for plane s + kStages - 1.
    course::wait_copies<kStages - 2>();
    __syncthreads();
    if (s + kStages - 1 < plane_count) start_plane(s + kStages - 1, (slot + kStages - 1) % kStages);
    course::commit_copies();

    // 4. This point's value weighs in the sums of the outputs up to R planes away: w.centre in
    //    its own, K w(d) at distance d; the one R planes above starts here.
    const float4(*tile)[kWidth] = ring[slot];
    const float4 c = tile[ty + kRadius][tx + 1];
    add_scaled(sums[(j + kRadius) % kSums], w.centre, c);
#pragma unroll
    for (int d = 1; d < kRadius; ++d) {
      add_scaled(sums[(j + kRadius - d) % kSums], w.axis[d], c);
      add_scaled(sums[(j + kRadius + d) % kSums], w.axis[d], c);
    }
    add_scaled(sums[j], w.axis[kRadius], c);
    sums[(j + 2 * kRadius) % kSums] = make_float4(w.axis[kRadius] * c.x, w.axis[kRadius] * c.y, w.axis[kRadius] * c.z,
                                                  w.axis[kRadius] * c.w);
    // 5. On a plane of the chunk, its x and y neighbours into its own sum.
    if (s >= kRadius && s < plane_count - kRadius) {
      float4& sum = sums[(j + kRadius) % kSums];
      const float4 left = tile[ty + kRadius][tx], right = tile[ty + kRadius][tx + 2];
#pragma unroll
      for (int d = 1; d <= kRadius; ++d) {
        add_scaled(sum, w.axis[d], tile[ty + kRadius - d][tx + 1]);
        add_scaled(sum, w.axis[d], tile[ty + kRadius + d][tx + 1]);
#pragma unroll
        for (int i = 0; i < 4; ++i) {  // x: lane i's neighbours at -d and +d, in this float4 or the next
          const float west = i - d >= 0 ? lane(c, i - d) : lane(left, i - d + 4);
          const float east = i + d < 4 ? lane(c, i + d) : lane(right, i + d - 4);
          lane(sum, i) = fmaf(w.axis[d], east, fmaf(w.axis[d], west, lane(sum, i)));
        }
      }
    }
    // 6. Output p - R is complete: u(n+1) = its sum - u(n-1).
    if (completes) {
      const float4& sum = sums[j];
      const float4 result = make_float4(sum.x - older.x, sum.y - older.y, sum.z - older.z, sum.w - older.w);
      if (inside && x0 + 4 <= g.dx) {
        *reinterpret_cast<float4*>(out) = result;
      } else if (inside) {
#pragma unroll
        for (int i = 0; i < 4; ++i)
          if (x0 + i < g.dx) out[i] = lane(result, i);
      }
      out += g.plane;
    }
  };
  auto nine_planes = [&]<int... J>(int s0, std::integer_sequence<int, J...>) {
    ((s0 + J < plane_count ? plane(s0 + J, std::integral_constant<int, J>{}) : void()), ...);
  };
  for (int s0 = 0; s0 < plane_count; s0 += kSums) nine_planes(s0, std::make_integer_sequence<int, kSums>{});
}

// u(x, y) outside [0, dx) x [0, dy) from its periodic image, on every plane of the launch (the
// first range's, then the second's): a thread per halo point, first the 2R columns of every row,
// then the 2R rows (corners stay: the star never reads them).
__global__ void wrap_xy_kernel(float* __restrict__ u, Grid g, Planes first, Planes second) {
  const int first_planes = first.end - first.begin;
  const int z = int(blockIdx.y) < first_planes ? first.begin + int(blockIdx.y) : second.begin + int(blockIdx.y) - first_planes;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int columns = 2 * kRadius * g.dy;
  if (t < columns) {
    const int y = t / (2 * kRadius), i = t % (2 * kRadius);
    const int x = i < kRadius ? i - kRadius : g.dx + i - kRadius;
    u[g.at(x, y, z)] = u[g.at(i < kRadius ? x + g.dx : x - g.dx, y, z)];
  } else if (t < columns + 2 * kRadius * g.dx) {
    const int x = (t - columns) % g.dx, i = (t - columns) / g.dx;
    const int y = i < kRadius ? i - kRadius : g.dy + i - kRadius;
    u[g.at(x, y, z)] = u[g.at(x, i < kRadius ? y + g.dy : y - g.dy, z)];
  }
}

__global__ void fill_standing_mode(float* __restrict__ u, Grid g, Problem problem, int z0, StandingMode mode, double scale) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x < g.dx) u[g.at(x, y, z)] = static_cast<float>(scale * mode.value(problem, x, y, z0 + z));
}

// What a device offers the leapfrog: its multiprocessors, and whether it has the tensor memory
// accelerator (course::make_tile_map's answer, asked once per device).
struct DeviceTraits {
  int multiprocessors;
  bool tile_copies;
};
const DeviceTraits& device_traits(const float* array, const Grid& g) {
  static std::mutex mutex;
  static std::map<int, DeviceTraits> known;
  int device = 0;
  GPU_CHECK(gpuGetDevice(&device));
  const std::lock_guard lock(mutex);
  if (const auto found = known.find(device); found != known.end()) return found->second;
  gpuDeviceProp properties{};
  GPU_CHECK(gpuGetDeviceProperties(&properties, device));
  bool tile_copies = true;
  try {
    course::make_tile_map(array, {g.pitch, g.dy + 2LL * g.hy, g.dz + 2LL * g.hz}, {g.pitch, g.plane}, {4, 1, 1}, "the leapfrog");
  } catch (const course::Unsupported&) {
    tile_copies = false;
  }
  return known.emplace(device, DeviceTraits{properties.multiProcessorCount, tile_copies}).first->second;
}

// Planes a block for the ring kernel: a launch takes about its waves (blocks over the 2 a
// multiprocessor holds) times the planes each block walks (its chunk and the 2R of z-halo), so
// the chunk with the fewest of those, the larger on a tie (less z-halo read twice). 128 planes on
// a 512^3 grid or slabs of 256 planes of 1024^3; 64 on slabs of 128 planes of 512^3, where 128
// would leave half the multiprocessors idle.
int ring_chunk(long long xy_blocks, Planes first, Planes second, int multiprocessors) {
  const long long resident = 2LL * multiprocessors;
  int best = kLargestChunk;
  long long best_cost = -1;
  for (int chunk = kLargestChunk; chunk >= 2 * kRadius; chunk /= 2) {
    const Chunks chunks{first, second, chunk};
    const long long waves = (xy_blocks * chunks.blocks() + resident - 1) / resident;
    const int longest = std::min(chunk, std::max(first.end - first.begin, second.end - second.begin));
    const long long cost = waves * (longest + 2 * kRadius);
    if (best_cost < 0 || cost < best_cost) best_cost = cost, best = chunk;
  }
  return best;
}

void launch_ring(const float* u, float* next, const Grid& g, const Weights& w, Planes first, Planes second, int multiprocessors,
                 gpuStream_t stream) {
  // The whole array, halos and padding included, x fastest; a box is one plane of a tile's centre
  // or of an x-halo, 16 rows and the y-halo tall.
  const std::array<long long, 3> extent{g.pitch, g.dy + 2LL * g.hy, g.dz + 2LL * g.hz};
  const std::array<long long, 2> stride{g.pitch, g.plane};
  const course::TileMap centres = course::make_tile_map(u, extent, stride, {4 * kTileX, kHeight, 1}, "the leapfrog kernel");
  const course::TileMap sides = course::make_tile_map(u, extent, stride, {kRadius, kHeight, 1}, "the leapfrog kernel");
  const long long x_blocks = course::blocks_for(g.dx, 4 * kTileX), y_blocks = course::blocks_for(g.dy, kOutputRows);
  const Chunks chunks{first, second, ring_chunk(x_blocks * y_blocks, first, second, multiprocessors)};
  course::launch(ring_kernel, {dim3(unsigned(x_blocks), unsigned(y_blocks), unsigned(chunks.blocks())), dim3(kTileX, kTileY), 0, stream},
                 centres, sides, next, g, w, chunks);
}

void launch_portable(const float* u, float* next, const Grid& g, const Weights& w, Planes first, Planes second, gpuStream_t stream) {
  const Chunks chunks{first, second, kPortableChunk};
  course::launch(portable_kernel,
                 {dim3(course::blocks_for(g.dx, kTileX * 4), course::blocks_for(g.dy, kTileY), unsigned(chunks.blocks())),
                  dim3(kTileX, kTileY), 0, stream},
                 u, next, g, w, chunks);
}

void require_leapfrog_layout(const float* u, const float* next, const Grid& grid) {
  if (grid.hx < kRadius || grid.hy < kRadius || grid.hz < kRadius || grid.lead % 4 != 0 || grid.pitch % 4 != 0)
    throw std::invalid_argument("the leapfrog kernel needs halos of 4 and rows aligned to float4s (ch06::slab_grid)");
  course::require_aligned(u, 16, "the leapfrog kernel loads float4s");
  course::require_aligned(next, 16, "the leapfrog kernel loads float4s");
}

Planes nothing() { return {0, 0}; }

}  // namespace

void leapfrog(const float* u, float* next, const Grid& grid, double courant2, Planes first, Planes second, gpuStream_t stream) {
  if (first.empty()) std::swap(first, second);
  if (first.empty()) return;
  if (second.empty()) second = nothing();
  require_leapfrog_layout(u, next, grid);
  const DeviceTraits& device = device_traits(u, grid);
  if (device.tile_copies) {
    launch_ring(u, next, grid, weights_for(courant2), first, second, device.multiprocessors, stream);
  } else {
    launch_portable(u, next, grid, weights_for(courant2), first, second, stream);
  }
}

void leapfrog(const float* u, float* next, const Grid& grid, double courant2, Planes planes, gpuStream_t stream) {
  leapfrog(u, next, grid, courant2, planes, nothing(), stream);
}

void leapfrog_portable(const float* u, float* next, const Grid& grid, double courant2, Planes planes, gpuStream_t stream) {
  if (planes.empty()) return;
  require_leapfrog_layout(u, next, grid);
  launch_portable(u, next, grid, weights_for(courant2), planes, nothing(), stream);
}

void wrap_xy(float* u, const Grid& grid, Planes first, Planes second, gpuStream_t stream) {
  if (first.empty()) std::swap(first, second);
  if (first.empty()) return;
  if (second.empty()) second = nothing();
  constexpr int kThreads = 256;
  course::launch(wrap_xy_kernel,
                 {dim3(course::blocks_for(2LL * kRadius * (grid.dx + grid.dy), kThreads),
                       unsigned(first.end - first.begin + second.end - second.begin)),
                  dim3(kThreads), 0, stream},
                 u, grid, first, second);
}

void wrap_xy(float* u, const Grid& grid, Planes planes, gpuStream_t stream) { wrap_xy(u, grid, planes, nothing(), stream); }

void set_standing_mode(float* u, const Grid& grid, const Problem& problem, int z0, StandingMode mode, double phase,
                       gpuStream_t stream) {
  constexpr int kThreads = 128;
  course::launch(fill_standing_mode,
                 {dim3(course::blocks_for(grid.dx, kThreads), grid.dy, grid.dz), dim3(kThreads), 0, stream},
                 u, grid, problem, z0, mode, std::cos(phase));
}

}  // namespace ch06
