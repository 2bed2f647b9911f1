// Generated from solutions/05_lattice_boltzmann/08_fma_collision.cu by exercises/generate.py (fingerprint 34543ab86a65): edit the TODOs.
// Step 08 — fewer instructions a cell, part 2: the collision rewritten for fused multiply-adds.
//
// After step 07 the 16-bit kernels still issue more instructions than their bytes allow (the
// H200's profile: issue slots busier than DRAM), and most are now the physics, written as lbm.hpp
// writes it for reading: for each k, feq = w rho (1 + 3 eu + 4.5 eu^2 - 1.5 u.u), then
// f - omega (f - feq) + 3 w e_x g: a dozen multiplies, adds and subtracts that the compiler may
// not regroup (nvcc contracts a * b + c into a multiply-add, but float rounding forbids it to
// reassociate or factor). Rearranged by hand, with what is the same for the whole cell or the
// whole grid worked out once:
//   t_k  = A + eu (B + C eu)          A = rho (1 - 1.5 u.u), B = 3 rho, C = 4.5 rho
//   f*_k = (1 - omega) f_k + (omega w_k) t_k + 3 w_k e_kx g
// two multiply-adds for t_k, two for f*_k, and eu = +-ux +-uy at most one add: five instructions
// a direction as written, where step 07's source has about twelve (the compiler's own counts: the
// instruction table in NOTES.md). The roundings of omega w_k would make sum_k f*_k differ from
// sum_k f_k by the same ~6e-8 every step, a drift of mass that the tests' 4000-step channel
// catches (a first version with every direction by the formula failed it); so the rest direction is not computed
// but takes the mass the other eight leave, f*_0 = sum_k f_k - sum_{k>0} f*_k, and mass is kept
// to round-off. The 16-bit variants store s = f - w; in that variable the same formula holds with
// A less 1 (the weights cancel), the density is 1 + sum s and the momentum sum s e (the weights
// sum to 1 and their first moments to 0), so the adds that undo and redo the shift (18 a cell) go
// too. bf16 is converted by the GPU's instruction on NVIDIA (cvt.rn.bf16.f32) instead of step
// 06's integer rounding.
// Bytes per cell and time step: 72 (float32) or 36 (16 bits), as before.
// Predicted: float32 unchanged (bound by its bytes); the 16-bit variants faster by the share
// of issue slots saved, ~80 of ~300 instructions a cell, up to the copy ceiling's 1.9x of
// float32 if issue was the limit.
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

// How a distribution is stored: its type, whether it is shifted by its weight (s = f - w), and
// the conversion of the stored value to and from float.
struct Float32 {
  using Stored = float;
  static constexpr bool kShifted = false;
  __host__ __device__ static float encode(float value) { return value; }
  __host__ __device__ static float decode(float stored) { return stored; }
};
struct Fp16 {
  using Stored = std::uint16_t;
  static constexpr bool kShifted = true;
  __host__ __device__ static std::uint16_t encode(float value) { return fp16_nearest(value); }
  __host__ __device__ static float decode(std::uint16_t bits) { return fp16_value(bits); }
};
struct Bf16 {
  using Stored = std::uint16_t;
  static constexpr bool kShifted = true;
  __host__ __device__ static std::uint16_t encode(float value) { return bf16_nearest(value); }
  __host__ __device__ static float decode(std::uint16_t bits) { return bf16_value(bits); }
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
  const unsigned column = ex == 0 ? n.here : ex > 0 ? n.west : n.east;
  wall = ey > 0 ? n.south_wall : ey < 0 ? n.north_wall : false;
  return ey > 0 ? column + n.below : ey < 0 ? column + n.above : column;
}

// Step 07's pull: the nine stored values of the upwind neighbours, converted to float.
template <class Format, int k = 0>
__device__ inline void pull(const typename Format::Stored* __restrict__ src, unsigned plane, const Neighbourhood& n,
                            float (&f)[kDirections]) {
  if constexpr (k < kDirections) {
    bool wall;
    const unsigned from = upwind<k>(n, wall);
    // At a wall the value comes back from this cell's opposite direction.
    f[k] = Format::decode(wall ? src[opposite(k) * plane + n.here] : src[k * plane + from]);
    pull<Format, k + 1>(src, plane, n, f);
  }
}

// The density, the velocity and the per-cell constants of the collision (the header's A, B, C).
struct CellCollision {
  float sum;  // of the nine stored values: the cell's mass (less 1 when shifted)
  float rho, ux, uy;
  float a, b, c;
};

template <class Format>
__device__ inline CellCollision prepare_collision(const float (&s)[kDirections]) {
  // TODO: part 1 of 2, the cell's terms: the sum of the nine stored values, rho (1 + sum when the values are shifted, Format::kShifted), ux and uy as the momentum sums times 1 / rho, then A = rho (1 - 1.5 u.u) (less 1 when shifted: the weights cancel), B = 3 rho and C = 4.5 rho of the header. Invariant: everything that does not depend on the direction is worked out once a cell. Mistake to avoid: rho = sum for shifted values (the weights sum to 1: it is 1 + sum), or A without the - 1 when shifted
  (void)s; return {};
}

// What the collision needs from the whole grid, worked out once on the host.
struct GridCollision {
  float keep;                // 1 - omega
  float relax[kDirections];  // omega w_k (the rest direction's is not used)
  float force[kDirections];  // 3 w_k e_kx g
};

template <class Format>
__global__ void fma_kernel(const typename Format::Stored* __restrict__ src, typename Format::Stored* __restrict__ dst,
                           Fields moments, bool write_moments, Channel c, GridCollision g) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const unsigned row_start = static_cast<unsigned>(y) * c.nx;
  const int wrap = (c.ny - 1) * c.nx;  // from the first row to the last
  const Neighbourhood n{row_start + x, row_start + (x == 0 ? c.nx - 1 : x - 1), row_start + (x == c.nx - 1 ? 0 : x + 1),
                        y == 0 && !c.walls ? wrap : -c.nx, y == c.ny - 1 && !c.walls ? -wrap : c.nx,
                        c.walls && y == 0, c.walls && y == c.ny - 1};
  const unsigned plane = static_cast<unsigned>(c.cells());
  float s[kDirections];
  pull<Format>(src, plane, n, s);
  const CellCollision cell = prepare_collision<Format>(s);
  // The moving directions by the formula; the rest direction takes what mass is left, so the
  // cell's mass leaves exactly as it came, whatever the roundings of omega w_k.
  float collided_sum = 0.0f;
#pragma unroll
  for (int k = 1; k < kDirections; ++k) {
    // TODO: part 2 of 2, the direction's multiply-adds: eu = e_k . u, then t = A + eu (B + C eu) and (1 - omega) s + (omega w_k) t + 3 w_k e_x g as nested fmaf, with g's precomputed keep, relax[k] and force[k]; add the result to collided_sum. Invariant: five instructions a direction as the header counts them, and the rest direction (not computed here) takes the mass the eight leave. Mistake to avoid: omega w_k computed per cell instead of taken from g, or forgetting collided_sum (mass then drifts)
    (void)dst; (void)g;
  }
  dst[n.here] = Format::encode(cell.sum - collided_sum);
  if (write_moments) {
    moments.rho[n.here] = cell.rho;
    moments.ux[n.here] = cell.ux;
    moments.uy[n.here] = cell.uy;
  }
}

template <class Format>
__global__ void to_fma_layout(const float* __restrict__ canonical, typename Format::Stored* __restrict__ f, Channel c) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const long long cell = static_cast<long long>(y) * c.nx + x;
#pragma unroll
  for (int k = 0; k < kDirections; ++k)
    f[k * c.cells() + cell] = Format::encode(canonical[cell * kDirections + k] - (Format::kShifted ? weight(k) : 0.0f));
}
template <class Format>
__global__ void from_fma_layout(const typename Format::Stored* __restrict__ f, float* __restrict__ canonical, Channel c) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  if (x >= c.nx) return;
  const long long cell = static_cast<long long>(y) * c.nx + x;
#pragma unroll
  for (int k = 0; k < kDirections; ++k)
    canonical[cell * kDirections + k] = Format::decode(f[k * c.cells() + cell]) + (Format::kShifted ? weight(k) : 0.0f);
}

template <class Format>
class FmaLattice final : public Lattice {
 public:
  explicit FmaLattice(const Channel& channel)
      : c_(channel), grid_(course::blocks_for(channel.nx, kBlock), channel.ny),
        src_(channel.cells() * kDirections), dst_(channel.cells() * kDirections) {
    const float omega = 1.0f / channel.tau;
    g_.keep = 1.0f - omega;
    for (int k = 0; k < kDirections; ++k) {
      g_.relax[k] = omega * weight(k);
      g_.force[k] = 3.0f * weight(k) * velocity_x(k) * channel.force;
    }
    if (channel.cells() * kDirections > (1LL << 32) - 1)
      throw std::invalid_argument("step 08 offsets the state's values in 32 bits: at most 477,218,588 cells");
  }

  void load(const float* f) override { course::launch(to_fma_layout<Format>, {grid_, kBlock}, f, src_.data(), c_); }
  void store(float* f) override { course::launch(from_fma_layout<Format>, {grid_, kBlock}, src_.data(), f, c_); }

  void advance(int steps, const Fields* fields) override {
    for (int step = 0; step < steps; ++step) {
      const bool write_moments = fields && step == steps - 1;
      course::launch(fma_kernel<Format>, {grid_, kBlock}, src_.data(), dst_.data(), write_moments ? *fields : Fields{},
                     write_moments, c_, g_);
      std::swap(src_, dst_);
    }
  }

 private:
  Channel c_;
  dim3 grid_;
  DeviceBuffer<typename Format::Stored> src_, dst_;  // the state is in src_ between steps
  GridCollision g_;
};

}  // namespace

std::unique_ptr<Lattice> make_fma_f32(const Channel& channel) { return std::make_unique<FmaLattice<Float32>>(channel); }
std::unique_ptr<Lattice> make_fma_fp16(const Channel& channel) { return std::make_unique<FmaLattice<Fp16>>(channel); }
std::unique_ptr<Lattice> make_fma_bf16(const Channel& channel) { return std::make_unique<FmaLattice<Bf16>>(channel); }

}  // namespace ch05
