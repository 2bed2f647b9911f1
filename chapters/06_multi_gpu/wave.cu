// The chapter's kernels: the leapfrog update, the periodic images in x and y, and the standing
// mode. Every step launches these; what the steps change is how the slabs' halos are exchanged.
//
// The leapfrog kernel is chapter 3's fastest structure (its step 08, 0.65 of the H200's copy
// rate on the Laplacian alone), written anew for the update: a block of 32 x 8 threads, a
// float4 each (128 x 8 points), walks its planes in z; a ring of 3 haloed tiles in shared
// memory is filled by asynchronous copies two planes ahead; each point's z sum is kept as 9
// partial sums in registers, so every value read is added where it weighs and never shifted.
// The update folds into those sums: the centre weighs 2 + 3 K w(0) in its own sum, every
// neighbour K w(i), and the store subtracts u(n-1), read from `next` as the plane is started.
// Bytes per point at best: read u and u(n-1), write u(n+1): 12, where chapter 3's operator moved 8.
#include <stdexcept>
#include <utility>

#include "wave.hpp"

namespace ch06 {
namespace {

constexpr int kTileX = 32, kTileY = 8;  // threads: 128 x 8 points
constexpr int kChunk = 32;              // planes per block in z, when a launch covers more
constexpr int kStages = 3;              // tiles in the ring: one in use, two on their way
constexpr int kSums = 2 * kRadius + 1;  // the z sums a thread carries: outputs p - R .. p + R
constexpr int kWidth = kTileX + 2;      // float4s per tile row: one of x-halo each side
constexpr int kHeight = kTileY + 2 * kRadius;
static_assert(kSums % kStages == 0, "the ring's slots repeat within the unrolled loop");

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

__device__ inline float& lane(float4& v, int i) { return reinterpret_cast<float*>(&v)[i]; }
__device__ inline float lane(const float4& v, int i) { return reinterpret_cast<const float*>(&v)[i]; }
// sum += a v, lane by lane, in FMAs.
__device__ inline void add_scaled(float4& sum, float a, const float4& v) {
  sum = make_float4(fmaf(a, v.x, sum.x), fmaf(a, v.y, sum.y), fmaf(a, v.z, sum.z), fmaf(a, v.w, sum.w));
}

__global__ void COURSE_LAUNCH_BOUNDS(kTileX* kTileY, 2)
    leapfrog_kernel(const float* __restrict__ u, float* __restrict__ next, Grid g, Weights w, int z_first, int z_last) {
  __shared__ float4 ring[kStages][kHeight][kWidth];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x_left = blockIdx.x * kTileX * 4 - kRadius;  // the tile's first float, in the x-halo
  const int y_top = blockIdx.y * kTileY - kRadius;
  const int z_begin = z_first + blockIdx.z * kChunk;
  const int z_end = min(z_last, z_begin + kChunk);
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
        for (int i = 0; x0 + i < g.dx; ++i) out[i] = lane(result, i);
      }
      out += g.plane;
    }
  };
  auto nine_planes = [&]<int... J>(int s0, std::integer_sequence<int, J...>) {
    ((s0 + J < plane_count ? plane(s0 + J, std::integral_constant<int, J>{}) : void()), ...);
  };
  for (int s0 = 0; s0 < plane_count; s0 += kSums) nine_planes(s0, std::make_integer_sequence<int, kSums>{});
}

// u(x, y) outside [0, dx) x [0, dy) from its periodic image, on every plane of the launch: a
// thread per halo point, first the 2R columns of every row, then the 2R rows (corners stay:
// the star never reads them).
__global__ void wrap_xy_kernel(float* __restrict__ u, Grid g, int z_first) {
  const int z = z_first + blockIdx.y;
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

}  // namespace

void leapfrog(const float* u, float* next, const Grid& grid, double courant2, Planes planes, gpuStream_t stream) {
  if (planes.empty()) return;
  if (grid.hx < kRadius || grid.hy < kRadius || grid.hz < kRadius || grid.lead % 4 != 0 || grid.pitch % 4 != 0)
    throw std::invalid_argument("the leapfrog kernel needs halos of 4 and rows aligned to float4s (ch06::slab_grid)");
  course::require_aligned(u, 16, "the leapfrog kernel loads float4s");
  course::require_aligned(next, 16, "the leapfrog kernel loads float4s");
  course::launch(leapfrog_kernel,
                 {dim3(course::blocks_for(grid.dx, kTileX * 4), course::blocks_for(grid.dy, kTileY),
                       course::blocks_for(planes.end - planes.begin, kChunk)),
                  dim3(kTileX, kTileY), 0, stream},
                 u, next, grid, weights_for(courant2), planes.begin, planes.end);
}

void wrap_xy(float* u, const Grid& grid, Planes planes, gpuStream_t stream) {
  if (planes.empty()) return;
  constexpr int kThreads = 256;
  course::launch(wrap_xy_kernel,
                 {dim3(course::blocks_for(2LL * kRadius * (grid.dx + grid.dy), kThreads), planes.end - planes.begin),
                  dim3(kThreads), 0, stream},
                 u, grid, planes.begin);
}

void set_standing_mode(float* u, const Grid& grid, const Problem& problem, int z0, StandingMode mode, double phase,
                       gpuStream_t stream) {
  constexpr int kThreads = 128;
  course::launch(fill_standing_mode,
                 {dim3(course::blocks_for(grid.dx, kThreads), grid.dy, grid.dz), dim3(kThreads), 0, stream},
                 u, grid, problem, z0, mode, std::cos(phase));
}

}  // namespace ch06
