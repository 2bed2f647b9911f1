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

__global__ void COURSE_LAUNCH_BOUNDS(kTileX* kTileY, 2)
    leapfrog_kernel(const float* __restrict__ u, float* __restrict__ next, Grid g, Weights w, int z_first, int z_last) {
  constexpr int kThreads = kTileX * kTileY;
  constexpr int kCopies = kHeight * kWidth;
  constexpr int kPasses = (kCopies + kThreads - 1) / kThreads;
  __shared__ float4 ring[kStages][kHeight][kWidth];

  const int thread = threadIdx.x + threadIdx.y * kTileX;
  const int x_left = blockIdx.x * kTileX * 4 - kRadius;  // the tile's first float, in the x-halo
  const int y_top = blockIdx.y * kTileY - kRadius;
  const int z_begin = z_first + blockIdx.z * kChunk;
  const int z_end = min(z_last, z_begin + kChunk);
  const int plane_count = z_end - z_begin + 2 * kRadius;  // planes z_begin - R .. z_end + R - 1

  // 1. This thread's share of a tile, the same on every plane: an offset from the tile's corner,
  //    whether it lies in the array (x may pass the row's end, y the last halo row), and whether
  //    it is one of the tile's centres, all that a plane outside the chunk contributes.
  int offset[kPasses];
  bool valid[kPasses], centre[kPasses];
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int copy = thread + pass * kThreads;
    const int row = copy / kWidth, column = copy % kWidth;
    valid[pass] = copy < kCopies && y_top + row < g.dy + kRadius && x_left + 4 * column + 4 <= g.pitch - g.lead;
    centre[pass] = row >= kRadius && row < kRadius + kTileY && column >= 1 && column <= kTileX;
    offset[pass] = valid[pass] ? row * g.pitch + 4 * column : 0;
  }
  const float* source = u + g.at(x_left, y_top, z_begin - kRadius);
  auto start_plane = [&](int s, int slot) {  // planes are started in order: `source` follows them
    const bool centres_only = s < kRadius || s >= plane_count - kRadius;
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int copy = thread + pass * kThreads;
      if (copy < kCopies && (!centres_only || centre[pass]))
        course::copy_async(&ring[slot][0][0] + copy, reinterpret_cast<const float4*>(source + offset[pass]), valid[pass]);
    }
    source += g.plane;
  };

  const int x0 = x_left + kRadius + 4 * threadIdx.x;
  const int y = y_top + kRadius + threadIdx.y;
  const bool inside = x0 < g.dx && y < g.dy;
  float* out = next + g.at(x0, y, z_begin);  // the output plane, from the 2R-th plane on
  float4 sums[kSums] = {};                    // on plane s, sums[(s + k) % kSums] is output p - R + k's

  // 2. Prime the ring. Every plane commits one group, empty or not, so "plane s has landed" is
  //    always "at most kStages - 2 groups still pending".
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < plane_count) start_plane(s, s);
    course::commit_copies();
  }

  auto plane = [&](int s, auto position) {
    constexpr int j = decltype(position)::value;  // s % kSums, so every index below is a constant
    constexpr int slot = j % kStages;
    const bool stores = s >= 2 * kRadius;  // output p - R is in the chunk
    float4 previous{};
    if (stores && inside) previous = *reinterpret_cast<const float4*>(out);  // u(n-1), in flight while we add

    // 3. Plane s has landed for every thread; the slot plane s - 1 used takes plane s + 2.
    course::wait_copies<kStages - 2>();
    __syncthreads();
    if (s + kStages - 1 < plane_count) start_plane(s + kStages - 1, (slot + kStages - 1) % kStages);
    course::commit_copies();

    // 4. The centre into the 9 sums it weighs in; the newest sum starts here.
    const float4(*tile)[kWidth] = ring[slot];
    const float4 c = tile[threadIdx.y + kRadius][threadIdx.x + 1];
#pragma unroll
    for (int k = 0; k < kSums; ++k) {
      float4& sum = sums[(j + k) % kSums];
      const float weight = k == kRadius ? w.centre : w.axis[k < kRadius ? kRadius - k : k - kRadius];
#pragma unroll
      for (int i = 0; i < 4; ++i) lane(sum, i) = k == 2 * kRadius ? weight * lane(c, i) : fmaf(weight, lane(c, i), lane(sum, i));
    }
    // 5. A plane of the chunk: its x and y neighbours into its own sum.
    if (s >= kRadius && s < plane_count - kRadius) {
      float4& sum = sums[(j + kRadius) % kSums];
      float row[2 * kRadius + 4];  // floats x0 - R .. x0 + 3 + R
      const float4 left = tile[threadIdx.y + kRadius][threadIdx.x], right = tile[threadIdx.y + kRadius][threadIdx.x + 2];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        row[i] = lane(left, i);
        row[kRadius + i] = lane(c, i);
        row[2 * kRadius + i] = lane(right, i);
      }
#pragma unroll
      for (int d = 1; d <= kRadius; ++d) {
        const float4 below = tile[threadIdx.y + kRadius - d][threadIdx.x + 1];
        const float4 above = tile[threadIdx.y + kRadius + d][threadIdx.x + 1];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          float& s_i = lane(sum, i);
          s_i = fmaf(w.axis[d], row[kRadius + i - d], s_i);
          s_i = fmaf(w.axis[d], row[kRadius + i + d], s_i);
          s_i = fmaf(w.axis[d], lane(below, i), s_i);
          s_i = fmaf(w.axis[d], lane(above, i), s_i);
        }
      }
    }
    // 6. Output p - R has all its terms: u(n+1) = sum - u(n-1).
    if (stores) {
      const float4& sum = sums[j];
      if (inside) {
        const float4 result = make_float4(sum.x - previous.x, sum.y - previous.y, sum.z - previous.z, sum.w - previous.w);
        if (x0 + 4 <= g.dx) {
          *reinterpret_cast<float4*>(out) = result;
        } else {
          for (int i = 0; i < 4 && x0 + i < g.dx; ++i) out[i] = lane(result, i);
        }
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
