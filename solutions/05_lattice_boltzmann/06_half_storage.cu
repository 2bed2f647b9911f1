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
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit 9b4b1b155445, 2026-11-24):
//     06_fp16_storage  256x256    0.0892 ms (20 time steps), 529 GB/s (0.177 of copy), 14699 MLUP/s
//     06_bf16_storage  256x256    0.0880 ms (20 time steps), 536 GB/s (0.179 of copy), 14903 MLUP/s
//     06_fp16_storage  1024x1024  0.3777 ms (20 time steps), 1999 GB/s (0.667 of copy), 55518 MLUP/s
//     06_bf16_storage  1024x1024  0.3961 ms (20 time steps), 1906 GB/s (0.636 of copy), 52943 MLUP/s
//     06_fp16_storage  2048x2048  1.3226 ms (20 time steps), 2283 GB/s (0.762 of copy), 63423 MLUP/s
//     06_bf16_storage  2048x2048  1.3898 ms (20 time steps), 2173 GB/s (0.726 of copy), 60358 MLUP/s
//     06_fp16_storage  4096x4096  5.0638 ms (20 time steps), 2385 GB/s (0.797 of copy), 66264 MLUP/s
//     06_bf16_storage  4096x4096  5.3405 ms (20 time steps), 2262 GB/s (0.755 of copy), 62830 MLUP/s
//     06_fp16_storage  8192x8192  20.0782 ms (20 time steps), 2407 GB/s (0.804 of copy), 66848 MLUP/s
//     06_bf16_storage  8192x8192  21.1506 ms (20 time steps), 2284 GB/s (0.763 of copy), 63458 MLUP/s
//   NVIDIA H200 (commit 9913fa2c7daf, 2026-11-22):
//     06_fp16_storage  256x256    0.0644 ms (20 time steps), 732 GB/s (0.174 of copy), 20343 MLUP/s
//     06_bf16_storage  256x256    0.0649 ms (20 time steps), 727 GB/s (0.172 of copy), 20202 MLUP/s
//     06_fp16_storage  1024x1024  0.3740 ms (20 time steps), 2019 GB/s (0.478 of copy), 56071 MLUP/s
//     06_bf16_storage  1024x1024  0.3931 ms (20 time steps), 1920 GB/s (0.455 of copy), 53344 MLUP/s
//     06_fp16_storage  2048x2048  1.3159 ms (20 time steps), 2295 GB/s (0.544 of copy), 63748 MLUP/s
//     06_bf16_storage  2048x2048  1.3867 ms (20 time steps), 2178 GB/s (0.516 of copy), 60493 MLUP/s
//     06_fp16_storage  4096x4096  5.0525 ms (20 time steps), 2391 GB/s (0.567 of copy), 66411 MLUP/s
//     06_bf16_storage  4096x4096  5.3401 ms (20 time steps), 2262 GB/s (0.536 of copy), 62834 MLUP/s
//     06_fp16_storage  8192x8192  20.0068 ms (20 time steps), 2415 GB/s (0.572 of copy), 67086 MLUP/s
//     06_bf16_storage  8192x8192  21.1543 ms (20 time steps), 2284 GB/s (0.541 of copy), 63447 MLUP/s
// END MEASURED
#include <cstdint>
#include <utility>

#include "course/device_buffer.hpp"
#include "half_bits.hpp"
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
    // BEGIN SOLUTION: decode the stored value and add back the weight it was shifted by
    f[k] = Format::decode(stored) + weight(k);
    // STUB: f[k] = stored;
    // END SOLUTION
  }
  const Moments m = moments_of(f);
#pragma unroll
  for (int k = 0; k < kDirections; ++k) {
    // BEGIN SOLUTION: store the collided value shifted by its weight, encoded
    dst[soa_index(cell.x, cell.y, k, c)] = Format::encode(collide(k, f[k], m, 1.0f / c.tau, c.force) - weight(k));
    // STUB: (void)dst;
    // END SOLUTION
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
  for (int k = 0; k < kDirections; ++k) f[soa_index(cell.x, cell.y, k, c)] = Format::encode(canonical[cell.at * kDirections + k] - weight(k));
}
template <class Format>
__global__ void from_16bit_layout(const std::uint16_t* __restrict__ f, float* __restrict__ canonical, Channel c) {
  const Cell cell = this_cell(c);
  if (!cell.inside) return;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) canonical[cell.at * kDirections + k] = Format::decode(f[soa_index(cell.x, cell.y, k, c)]) + weight(k);
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

std::unique_ptr<Lattice> make_fp16_storage(const Channel& channel) { return std::make_unique<HalfLattice<Fp16>>(channel); }
std::unique_ptr<Lattice> make_bf16_storage(const Channel& channel) { return std::make_unique<HalfLattice<Bf16>>(channel); }

}  // namespace ch05
