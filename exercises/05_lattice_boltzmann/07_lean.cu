// Generated from solutions/05_lattice_boltzmann/07_lean.cu by exercises/generate.py (fingerprint 675cd764d588): edit the TODOs.
// Step 07 — fewer instructions a cell: cheap neighbours, 32-bit offsets, one plane pointer each.
//
// The profile of steps 04 and 06 on the H200 (results/h200/traffic.md) says the 16-bit kernel is not waiting for
// memory: its issue slots are ~80% busy and DRAM under 50%; step 04 issues ~380 instructions per
// cell for ~150 flops of physics. Most of the rest is addressing: for each of the nine pulls a
// 64-bit index k * cells + y * nx + x, and a periodic wrap (x - e_x + nx) % nx, an integer
// division (no single instruction: a sequence of a dozen or more), where only three columns
// (west, here, east) and three rows exist. This step works them out once per cell: the west and
// east columns by a compare, and every offset (plane k, row, column) as a 32-bit number, so that
// an address is one multiply-add of the base pointer (a state of up to 2^32 values: 477 million
// cells); a pull is then an add, that multiply-add and the load. omega = 1/tau comes in
// precomputed. The kernel is written once for three ways to store a distribution: float32 (as
// step 04), and step 06's fp16 and bf16, shifted by their weights.
// Bytes per cell and time step: 72 (float32) or 36 (16 bits), as in steps 04 and 06.
// Predicted: float32 barely faster than step 04 at the large sizes (on the H200 it is already at
// 0.94-0.95 of copy, bound by its bytes), a little more at 1024^2-2048^2 where every microsecond of a
// launch shows; the 16-bit variants, issue-bound in step 06, up to the ~1.9x of step 04 that
// their bytes allow if the instructions drop by a third.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 5 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "course/device_buffer.hpp"
#include "half_bits.hpp"
#include "steps.hpp"

namespace ch05 {
namespace {

using course::DeviceBuffer;

constexpr int kBlock = 128;  // cells of a row

// How a distribution is stored: its type, and the conversion to and from float (step 06's).
struct Float32 {
  using Stored = float;
  __host__ __device__ static float encode(float value, int) { return value; }
  __host__ __device__ static float decode(float stored, int) { return stored; }
};
struct Fp16 {
  using Stored = std::uint16_t;
  __host__ __device__ static std::uint16_t encode(float value, int k) { return fp16_nearest(value - weight(k)); }
  __host__ __device__ static float decode(std::uint16_t bits, int k) { return fp16_value(bits) + weight(k); }
};
struct Bf16 {
  using Stored = std::uint16_t;
  __host__ __device__ static std::uint16_t encode(float value, int k) { return bf16_nearest_by_integers(value - weight(k)); }
  __host__ __device__ static float decode(std::uint16_t bits, int k) { return bf16_value(bits) + weight(k); }
};

// Everything a cell needs to find its neighbours, worked out once.
struct Neighbourhood {
  unsigned here, west, east;  // offsets in a plane of this cell and of its row's neighbours
  int below, above;           // added to step a row down (y - 1) or up: -nx and nx, or across the grid where rows wrap
  bool south_wall, north_wall;
};

// The offset, within direction k's plane, that cell (x, y) pulls f_k from: its upwind neighbour
// (x - e_kx, y - e_ky). `wall` says that the neighbour is behind a wall.
template <int k>
__device__ inline unsigned upwind(const Neighbourhood& n, bool& wall) {
  constexpr int ex = velocity_x(k), ey = velocity_y(k);
  // TODO: part 1 of 1, the lean neighbour: the column from e_x (0: n.here, +1: n.west, the upwind side, -1: n.east), then the row by adding n.below for e_y = 1 (the upwind row is y - 1) or n.above for e_y = -1; `wall` from n.south_wall (e_y = 1) or n.north_wall (e_y = -1). Invariant: everything is a 32-bit offset within a plane, with no division and no % (the neighbourhood already holds the wrapped columns and rows). Mistake to avoid: west and east exchanged (a pull from downwind), or n.above for e_y = 1
  (void)ex; (void)ey; wall = false; return n.here;
}

template <class Format, int k = 0>
__device__ inline void pull(const typename Format::Stored* __restrict__ src, unsigned plane, const Neighbourhood& n,
                            float (&f)[kDirections]) {
  if constexpr (k < kDirections) {
    bool wall;
    const unsigned from = upwind<k>(n, wall);
    // At a wall the value comes back from this cell's opposite direction.
    f[k] = wall ? Format::decode(src[opposite(k) * plane + n.here], opposite(k)) : Format::decode(src[k * plane + from], k);
    pull<Format, k + 1>(src, plane, n, f);
  }
}

template <class Format>
__global__ void lean_kernel(const typename Format::Stored* __restrict__ src, typename Format::Stored* __restrict__ dst,
                            Fields moments, bool write_moments, Channel c, float omega) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const unsigned row_start = static_cast<unsigned>(y) * c.nx;
  const int wrap = (c.ny - 1) * c.nx;  // from the first row to the last
  const Neighbourhood n{row_start + x, row_start + (x == 0 ? c.nx - 1 : x - 1), row_start + (x == c.nx - 1 ? 0 : x + 1),
                        y == 0 && !c.walls ? wrap : -c.nx, y == c.ny - 1 && !c.walls ? -wrap : c.nx,
                        c.walls && y == 0, c.walls && y == c.ny - 1};
  const unsigned plane = static_cast<unsigned>(c.cells());
  float f[kDirections];
  pull<Format>(src, plane, n, f);
  const Moments m = moments_of(f);
#pragma unroll
  for (int k = 0; k < kDirections; ++k) dst[k * plane + n.here] = Format::encode(collide(k, f[k], m, omega, c.force), k);
  if (write_moments) {
    moments.rho[n.here] = m.rho;
    moments.ux[n.here] = m.ux;
    moments.uy[n.here] = m.uy;
  }
}

template <class Format>
__global__ void to_lean_layout(const float* __restrict__ canonical, typename Format::Stored* __restrict__ f, Channel c) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const long long cell = static_cast<long long>(y) * c.nx + x;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) f[k * c.cells() + cell] = Format::encode(canonical[cell * kDirections + k], k);
}
template <class Format>
__global__ void from_lean_layout(const typename Format::Stored* __restrict__ f, float* __restrict__ canonical, Channel c) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const long long cell = static_cast<long long>(y) * c.nx + x;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) canonical[cell * kDirections + k] = Format::decode(f[k * c.cells() + cell], k);
}

template <class Format>
class LeanLattice final : public Lattice {
 public:
  explicit LeanLattice(const Channel& channel)
      : c_(channel), grid_(course::blocks_for(channel.nx, kBlock), channel.ny),
        src_(channel.cells() * kDirections), dst_(channel.cells() * kDirections) {
    if (channel.cells() * kDirections > (1LL << 32) - 1)
      throw std::invalid_argument("step 07 offsets the state's values in 32 bits: at most 477,218,588 cells");
  }

  void load(const float* f) override { course::launch(to_lean_layout<Format>, {grid_, kBlock}, f, src_.data(), c_); }
  void store(float* f) override { course::launch(from_lean_layout<Format>, {grid_, kBlock}, src_.data(), f, c_); }

  void advance(int steps, const Fields* fields) override {
    for (int step = 0; step < steps; ++step) {
      const bool write_moments = fields && step == steps - 1;
      course::launch(lean_kernel<Format>, {grid_, kBlock}, src_.data(), dst_.data(), write_moments ? *fields : Fields{},
                     write_moments, c_, 1.0f / c_.tau);
      std::swap(src_, dst_);
    }
  }

 private:
  Channel c_;
  dim3 grid_;
  DeviceBuffer<typename Format::Stored> src_, dst_;  // the state is in src_ between steps
};

}  // namespace

std::unique_ptr<Lattice> make_lean_f32(const Channel& channel) { return std::make_unique<LeanLattice<Float32>>(channel); }
std::unique_ptr<Lattice> make_lean_fp16(const Channel& channel) { return std::make_unique<LeanLattice<Fp16>>(channel); }
std::unique_ptr<Lattice> make_lean_bf16(const Channel& channel) { return std::make_unique<LeanLattice<Bf16>>(channel); }

}  // namespace ch05
