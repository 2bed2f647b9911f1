// Generated from solutions/05_lattice_boltzmann/06_half_storage.cu by exercises/generate.py (fingerprint aa7f04a23e69): edit the TODOs.
// Step 06 — 16-bit storage: half the bytes, the arithmetic still in float32.
//
// Step 04's kernel moves 72 bytes a cell and does ~150 flops (by lbm.hpp's formulas): at the copy
// rate's 58,603 MLUPS that is 8.8 TFLOP/s, a seventh of what the H200's FMA pipes do. So store
// each distribution in 16 bits and convert in registers: 36 bytes a cell. Two formats, one
// variant each:
//   fp16  (IEEE half)  1 sign, 5 exponent, 10 fraction bits: relative spacing 2^-11 = 4.9e-4
//   bf16  (bfloat16)   1 sign, 8 exponent,  7 fraction bits: relative spacing 2^-8  = 3.9e-3
// What is stored is not f_k but f_k - w_k, its distance from the fluid at rest (FluidX3D's
// "DDF shifting"): at the low velocities of lattice Boltzmann flows that is ~0.002-0.02 where
// f_k is ~0.03-0.44 (at u = 0.05: 0.0175 against 0.129 for direction 1, -0.0017 against 0.443
// for the rest direction), so the same bits give ~7-260 times smaller absolute rounding errors.
// Bytes per cell and time step: 36 (step 04: 72).
// Predicted: up to 2x step 04's lattice updates per second if it stays bandwidth-bound (the
// conversions add ~36 instructions a cell to ~200); accuracy: fp16 rounding ~1e-5 per value
// a step, bf16 ~1e-4, against velocities of ~0.05.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 5 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include <cstdint>
#include <utility>

#include "course/device_buffer.hpp"
#include "half_bits.hpp"
#include "parts.hpp"
#include "steps.hpp"

namespace ch05 {
namespace {

using course::DeviceBuffer;

constexpr int kBlock = 128;  // cells of a row

// The two formats, as 16-bit patterns rounded to nearest even (half_bits.hpp): fp16 by the GPU's
// conversion instructions (the host compiler's _Float16 on the CPU backend), bf16, the top half
// of a float32, by adding just under half of the dropped part.
struct Fp16 {
  __host__ __device__ static std::uint16_t encode(float value) { return fp16_nearest(value); }
  __host__ __device__ static float decode(std::uint16_t bits) { return fp16_value(bits); }
};
struct Bf16 {
  __host__ __device__ static std::uint16_t encode(float value) { return bf16_nearest_by_integers(value); }
  __host__ __device__ static float decode(std::uint16_t bits) { return bf16_value(bits); }
};

// Parts 1 and 2 of the exercise, each tested on its own: the distribution f_k that 16 stored bits
// stand for, and the 16 bits that store f_k.
template <class Format>
__host__ __device__ inline float load_value(std::uint16_t bits, int k) {
  // TODO: part 1 of 2, the load: the bits hold f_k - w_k, not f_k: decode them (Format::decode, to float32) and add back direction k's weight (weight(k)). Invariant: the arithmetic stays in float32; 16 bits are only how a value waits in memory. Mistake to avoid: returning the decoded difference without the weight (the moments then see a fluid of density near 0), or subtracting the weight twice.
  (void)k;
  return bits;
}
template <class Format>
__host__ __device__ inline std::uint16_t store_value(float f, int k) {
  // TODO: part 2 of 2, the store: shift first, f_k - w_k in float32, then round that to the nearest 16-bit number (Format::encode). Invariant: what is stored is the difference from the fluid at rest, a small number whose 16-bit rounding error is small in absolute terms; load_value(store_value(f, k), k) is within half a 16-bit step of f - w_k from f. Mistake to avoid: encoding f itself (near 0.44 for the rest direction, its rounding error is some hundred times larger) or adding the weight instead of subtracting it.
  (void)f; (void)k;
  return 0;
}

__host__ __device__ inline long long soa_index(int x, int y, int k, const Channel& c) {
  return static_cast<long long>(k) * c.cells() + static_cast<long long>(y) * c.nx + x;
}

struct Cell {
  int x, y;
  long long at;
  bool inside;
};
__device__ inline Cell this_cell(const Channel& c) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y;
  return {x, y, static_cast<long long>(y) * c.nx + x, x < c.nx};
}

// Step 04's kernel, reading and writing shifted 16-bit values.
template <class Format>
__global__ void fused_16bit_kernel(const std::uint16_t* __restrict__ src, std::uint16_t* __restrict__ dst, Fields moments,
                             bool write_moments, Channel c) {
  const Cell cell = this_cell(c);
  if (!cell.inside) return;
  float f[kDirections];
#pragma unroll
  for (int k = 0; k < kDirections; ++k) {
    const int from_x = (cell.x - velocity_x(k) + c.nx) % c.nx, from_y = upwind_row(c, cell.y, velocity_y(k));
    const bool from_wall = from_y < 0 || from_y >= c.ny;
    const std::uint16_t stored = from_wall ? src[soa_index(cell.x, cell.y, opposite(k), c)] : src[soa_index(from_x, from_y, k, c)];
    f[k] = load_value<Format>(stored, k);
  }
  const Moments m = moments_of(f);
#pragma unroll
  for (int k = 0; k < kDirections; ++k) {
    dst[soa_index(cell.x, cell.y, k, c)] = store_value<Format>(collide(k, f[k], m, 1.0f / c.tau, c.force), k);
  }
  if (write_moments) {
    moments.rho[cell.at] = m.rho;
    moments.ux[cell.at] = m.ux;
    moments.uy[cell.at] = m.uy;
  }
}

template <class Format>
__global__ void to_16bit_layout(const float* __restrict__ canonical, std::uint16_t* __restrict__ f, Channel c) {
  const Cell cell = this_cell(c);
  if (!cell.inside) return;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) f[soa_index(cell.x, cell.y, k, c)] = store_value<Format>(canonical[cell.at * kDirections + k], k);
}
template <class Format>
__global__ void from_16bit_layout(const std::uint16_t* __restrict__ f, float* __restrict__ canonical, Channel c) {
  const Cell cell = this_cell(c);
  if (!cell.inside) return;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) canonical[cell.at * kDirections + k] = load_value<Format>(f[soa_index(cell.x, cell.y, k, c)], k);
}

template <class Format>
class HalfLattice final : public Lattice {
 public:
  explicit HalfLattice(const Channel& channel)
      : c_(channel), grid_(course::blocks_for(channel.nx, kBlock), channel.ny),
        src_(channel.cells() * kDirections), dst_(channel.cells() * kDirections) {}

  void load(const float* f) override { course::launch(to_16bit_layout<Format>, {grid_, kBlock}, f, src_.data(), c_); }
  void store(float* f) override { course::launch(from_16bit_layout<Format>, {grid_, kBlock}, src_.data(), f, c_); }

  void advance(int steps, const Fields* fields) override {
    for (int step = 0; step < steps; ++step) {
      const bool write_moments = fields && step == steps - 1;
      course::launch(fused_16bit_kernel<Format>, {grid_, kBlock}, src_.data(), dst_.data(),
                     write_moments ? *fields : Fields{}, write_moments, c_);
      std::swap(src_, dst_);
    }
  }

 private:
  Channel c_;
  dim3 grid_;
  DeviceBuffer<std::uint16_t> src_, dst_;  // the state is in src_ between steps
};

}  // namespace

namespace parts {
std::uint16_t fp16_stored(float f, int k) { return store_value<Fp16>(f, k); }
float fp16_loaded(std::uint16_t bits, int k) { return load_value<Fp16>(bits, k); }
}  // namespace parts

std::unique_ptr<Lattice> make_fp16_storage(const Channel& channel) { return std::make_unique<HalfLattice<Fp16>>(channel); }
std::unique_ptr<Lattice> make_bf16_storage(const Channel& channel) { return std::make_unique<HalfLattice<Bf16>>(channel); }

}  // namespace ch05
