// Step 09 — two cells a thread: 16-bit values moved as 4-byte words.
//
// Step 08's 16-bit kernels load and store 2 bytes per instruction: a warp's request is 64 bytes,
// half of what the memory system serves best. The benchmark's copy of the same structure says
// what that costs by itself: on the H200 at 8192^2 the one-cell-a-thread copy of 2-byte values reaches 0.90
// of the device copy, the same copy two cells a thread, in 4-byte words, 0.96 (results/,
// "stream copy" rows). So here a thread takes two neighbouring cells of a row, x0 = 2t and
// x0 + 1, and every global load and store is a word holding both:
//   - rows are padded to an even number of cells, so a pair never straddles two rows;
//   - the directions that do not move along x (0, 2, 4) pull the word straight above, below or
//     here: both cells' values at once;
//   - the six that move along x pull values one cell to the side, which straddle two threads'
//     words: the block first stages those rows' words in shared memory (its 256 cells and one
//     more cell either side), waits once, and each thread picks its two values from there;
//   - the pair's two results of a direction are converted together (one cvt.rn.f16x2.f32 for
//     fp16) and stored as one word.
// Collision as in step 08. Bytes per cell and time step: 36.
// Predicted: towards the 4-byte copy structure's ceiling, 0.96 of copy at 8192^2, from step
// 08's 0.82; fewer instructions a cell as well (half the stores and conversions, the addressing
// shared by two cells), so 1.8-1.9x the float32 steps.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit a61db01af046, 2026-11-24):
//     09_pairs_fp16  256x256    0.0916 ms (20 time steps), 515 GB/s (0.173 of copy), 14307 MLUP/s
//     09_pairs_bf16  256x256    0.0914 ms (20 time steps), an experiment, 516 GB/s (0.173 of copy), 14334 MLUP/s
//     09_pairs_fp16  1024x1024  0.3680 ms (20 time steps), 2051 GB/s (0.687 of copy), 56983 MLUP/s
//     09_pairs_bf16  1024x1024  0.3686 ms (20 time steps), an experiment, 2048 GB/s (0.686 of copy), 56891 MLUP/s
//     09_pairs_fp16  2048x2048  1.5722 ms (20 time steps), 1921 GB/s (0.644 of copy), 53355 MLUP/s
//     09_pairs_bf16  2048x2048  1.5832 ms (20 time steps), an experiment, 1907 GB/s (0.639 of copy), 52985 MLUP/s
//     09_pairs_fp16  4096x4096  5.7081 ms (20 time steps), 2116 GB/s (0.709 of copy), 58784 MLUP/s
//     09_pairs_bf16  4096x4096  5.7087 ms (20 time steps), an experiment, 2116 GB/s (0.709 of copy), 58778 MLUP/s
//     09_pairs_fp16  8192x8192  22.0915 ms (20 time steps), 2187 GB/s (0.733 of copy), 60755 MLUP/s
//     09_pairs_bf16  8192x8192  22.0922 ms (20 time steps), an experiment, 2187 GB/s (0.733 of copy), 60753 MLUP/s
//   NVIDIA H200 (commit a61db01af046, 2026-11-24):
//     09_pairs_fp16  256x256    0.0879 ms (20 time steps), 537 GB/s (0.127 of copy), 14908 MLUP/s
//     09_pairs_bf16  256x256    0.0872 ms (20 time steps), an experiment, 541 GB/s (0.128 of copy), 15039 MLUP/s
//     09_pairs_fp16  1024x1024  0.3430 ms (20 time steps), 2201 GB/s (0.520 of copy), 61143 MLUP/s
//     09_pairs_bf16  1024x1024  0.3422 ms (20 time steps), an experiment, 2206 GB/s (0.521 of copy), 61283 MLUP/s
//     09_pairs_fp16  2048x2048  1.4314 ms (20 time steps), 2110 GB/s (0.498 of copy), 58603 MLUP/s
//     09_pairs_bf16  2048x2048  1.4386 ms (20 time steps), an experiment, 2099 GB/s (0.496 of copy), 58312 MLUP/s
//     09_pairs_fp16  4096x4096  5.1564 ms (20 time steps), 2343 GB/s (0.553 of copy), 65073 MLUP/s
//     09_pairs_bf16  4096x4096  5.1870 ms (20 time steps), an experiment, 2329 GB/s (0.550 of copy), 64690 MLUP/s
//     09_pairs_fp16  8192x8192  20.1558 ms (20 time steps), 2397 GB/s (0.566 of copy), 66590 MLUP/s
//     09_pairs_bf16  8192x8192  20.1369 ms (20 time steps), an experiment, 2399 GB/s (0.567 of copy), 66653 MLUP/s
// END MEASURED
#include <cstdint>
#include <utility>

#include "course/device_buffer.hpp"
#include "pairs.hpp"
#include "parts.hpp"
#include "steps.hpp"

namespace ch05 {
namespace {

using course::DeviceBuffer;

constexpr int kBlock = 128;           // threads, each two cells of one row
constexpr int kCells = 2 * kBlock;    // cells of a row a block covers
// The directions that move along x, j = 0..5.
__host__ __device__ constexpr int shifted_direction(int j) {
  constexpr int k[6] = {1, 3, 5, 6, 7, 8};
  return k[j];
}

// Step 08's collision of one cell, from its nine stored (shifted) values; writes the nine
// results, the rest direction taking the mass the others leave.
struct GridCollision {
  float keep;                // 1 - omega
  float relax[kDirections];  // omega w_k
  float force[kDirections];  // 3 w_k e_kx g
};

__device__ inline Moments collide_cell(const float (&s)[kDirections], const GridCollision& g, float (&out)[kDirections]) {
  const float sum = s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7] + s[8];
  const float rho = 1.0f + sum;
  const float inverse = 1.0f / rho;
  const float ux = (s[1] - s[3] + s[5] - s[6] - s[7] + s[8]) * inverse;
  const float uy = (s[2] - s[4] + s[5] + s[6] - s[7] - s[8]) * inverse;
  const float a = rho * (1.0f - 1.5f * (ux * ux + uy * uy)) - 1.0f, b = 3.0f * rho, c = 4.5f * rho;
  float collided_sum = 0.0f;
#pragma unroll
  for (int k = 1; k < kDirections; ++k) {
    const float eu = velocity_x(k) * ux + velocity_y(k) * uy;
    out[k] = fmaf(g.relax[k], fmaf(fmaf(c, eu, b), eu, a), fmaf(g.keep, s[k], g.force[k]));
    collided_sum += out[k];
  }
  out[0] = sum - collided_sum;
  return {rho, ux, uy};
}

// Part 1 of the exercise, tested on its own: cell p's value out of the word that holds it (word
// p / 2 of a row of pairs).
__host__ __device__ inline std::uint16_t half_of(std::uint32_t word, int p) {
  // BEGIN SOLUTION: part 1 of 3, unpacking a pair: two cells share a word, the even one in the low half (low()), the odd one in the high half (high()): cell p is the half that p's parity says. Invariant: pack(even, odd) puts `even` in bits 0-15, so half_of(pack(a, b), 2i) is a and half_of(pack(a, b), 2i + 1) is b. Mistake to avoid: the halves swapped (high for an even p), which moves every x-moving value by a cell.
  return p % 2 ? high(word) : low(word);
  // STUB: (void)word; (void)p;
  // STUB: return 0;
  // END SOLUTION
}

template <class Format>
__global__ void pairs_kernel(const std::uint32_t* __restrict__ src, std::uint32_t* __restrict__ dst, Fields moments,
                             bool write_moments, Channel c, PairLayout layout, GridCollision g) {
  // Row `y - e_y` of each x-moving direction, cells bx0 - 2 .. bx0 + 257 as words 0 .. kBlock + 1:
  // this thread's pair is word 1 + t; word 0's high half is the cell west of the block, word
  // kBlock + 1's low half the cell east of it (wrapping around the periodic row).
  __shared__ std::uint32_t tile[6][kBlock + 2];
  const int t = threadIdx.x, y = blockIdx.y;
  const int bx0 = blockIdx.x * kCells, x0 = bx0 + 2 * t;
  const bool active = x0 < c.nx, second = x0 + 1 < c.nx;
  const int last = (bx0 + kCells < c.nx ? bx0 + kCells : c.nx) - 1;  // the block's last cell
  const int after_last = last + 1 == c.nx ? 0 : last + 1;
  const bool south_wall = c.walls && y == 0, north_wall = c.walls && y == c.ny - 1;
  const int below = upwind_row(c, y, 1), above = upwind_row(c, y, -1);  // rows y - 1 and y + 1

  // 1. The words this pair reads straight from memory: the three directions that do not move
  //    along x, and the x-moving ones that bounce off a wall. Issued before the staging, so that
  //    they are in flight across the barrier instead of starting after it.
  std::uint32_t direct[kDirections] = {};
  if (active) {
    direct[0] = src[layout.word(0, x0, y)];
    direct[2] = south_wall ? src[layout.word(4, x0, y)] : src[layout.word(2, x0, below)];
    direct[4] = north_wall ? src[layout.word(2, x0, y)] : src[layout.word(4, x0, above)];
#pragma unroll
    for (int j = 0; j < 6; ++j) {
      const int k = shifted_direction(j), ey = velocity_y(k);
      if (ey > 0 ? south_wall : ey < 0 ? north_wall : false)
        direct[k] = src[layout.word(opposite(k), x0, y)];  // bounced: this pair's own opposite values
    }
  }

  // 2. Stage the rows the x-moving directions pull from (not behind a wall: the same for the block).
  //    The halos: the east one, the cell after the block's last cell `last` (after_last, cell 0
  //    where the row ends there), goes into the tile's half just after `last`'s. A full block
  //    ends on an odd cell, so `last` is the high half of its thread's word and the halo the low
  //    half of the next word, tile[j][2 + t] (its high half unused). Only at the end of an odd
  //    row is `last` a low half (x0): that word's high half is the row's pad cell, which holds no
  //    value, so the thread puts the halo there instead. The west halo, the cell before bx0
  //    (nx - 1 at the row's start), is word 0's high half, staged by thread 0.
  // BEGIN SOLUTION: part 2 of 3, staging the rows: for each shifted direction j (k = shifted_direction(j)) not behind a wall, this thread's word of row upwind_row(c, y, e_y) into tile[j][1 + t], with the east halo (the cell after `last`, cell 0 where the row ends) where the comment above says, and the west halo into word 0's high half (thread 0), each halo cell read alone (layout.cell) and packed (pack(even, odd): the even cell low). Invariant: every thread of the block, active or not, reaches the one __syncthreads() after this part; the tile is the same for the whole block (a row, not a thread's choice). Mistake to avoid: a pack with its halves swapped (the halo lands in the half no pull reads), or a halo taken from the block's own first or last cell instead of the neighbour block's (or the wrapped) one
#pragma unroll
  for (int j = 0; j < 6; ++j) {
    const int k = shifted_direction(j), ey = velocity_y(k), from_y = upwind_row(c, y, ey);
    if (ey > 0 ? south_wall : ey < 0 ? north_wall : false) continue;
    if (active) {
      std::uint32_t word = src[layout.word(k, x0, from_y)];
      if (last == x0) word = pack(low(word), layout.cell(src, k, after_last, from_y));  // an odd row's end: the pad half
      tile[j][1 + t] = word;
      if (last == x0 + 1) tile[j][2 + t] = pack(layout.cell(src, k, after_last, from_y), 0);
    }
    if (t == 0) tile[j][0] = pack(0, layout.cell(src, k, bx0 == 0 ? c.nx - 1 : bx0 - 1, from_y));
  }
  // STUB: (void)tile; (void)last; (void)after_last;
  // END SOLUTION
  __syncthreads();
  if (!active) return;

  // 3. The pair's nine values each.
  float s0[kDirections], s1[kDirections];
  const auto split = [&](int k, std::uint32_t word) {
    s0[k] = Format::decode(low(word));
    s1[k] = Format::decode(high(word));
  };
  split(0, direct[0]);
  split(2, direct[2]);
  split(4, direct[4]);
#pragma unroll
  for (int j = 0; j < 6; ++j) {
    const int k = shifted_direction(j), ex = velocity_x(k), ey = velocity_y(k);
    if (ey > 0 ? south_wall : ey < 0 ? north_wall : false) {
      split(k, direct[k]);
    } else {
      // BEGIN SOLUTION: part 3 of 3, the pair's pulls: cell x0 = bx0 + 2t pulls direction k from x0 - e_x, cell x0 + 1 from x0 + 1 - e_x; cell bx0 + q of the row is tile cell q + 2 (word 0 holds the west halo in its high half), so the pulls are tile cells p = 2t + 2 - e_x and 2t + 3 - e_x of tile[j], in word p / 2 (half_of, part 1, picks the half), each decoded (Format::decode). Invariant: the tile holds the row upwind in y already (the staging chose it), so only x moves here. Mistake to avoid: the offset of 2 forgotten (every value then comes from the cell two to the west), or + e_x for - e_x (a pull from the downwind cell).
      const int p0 = 2 * t - ex + 2, p1 = 2 * t + 1 - ex + 2;
      const std::uint32_t w0 = tile[j][p0 / 2], w1 = tile[j][p1 / 2];
      s0[k] = Format::decode(half_of(w0, p0));
      s1[k] = Format::decode(half_of(w1, p1));
      // STUB: s0[k] = s1[k] = 0.0f;
      // END SOLUTION
    }
  }

  // 4. Collide both, store each direction's pair as one word.
  float out0[kDirections], out1[kDirections] = {};
  const Moments m0 = collide_cell(s0, g, out0);
  Moments m1{};
  if (second) m1 = collide_cell(s1, g, out1);
#pragma unroll
  for (int k = 0; k < kDirections; ++k) dst[layout.word(k, x0, y)] = Format::encode_pair(out0[k], out1[k]);
  if (write_moments) {
    const long long at = static_cast<long long>(y) * c.nx + x0;
    moments.rho[at] = m0.rho, moments.ux[at] = m0.ux, moments.uy[at] = m0.uy;
    if (second) moments.rho[at + 1] = m1.rho, moments.ux[at + 1] = m1.ux, moments.uy[at + 1] = m1.uy;
  }
}

template <class Format>
class PairsLattice final : public Lattice {
 public:
  explicit PairsLattice(const Channel& channel)
      : c_(channel), layout_(pair_layout(channel, "step 09")), grid_(course::blocks_for(channel.nx, kCells), channel.ny),
        src_(std::size_t{kDirections} * layout_.plane_words), dst_(std::size_t{kDirections} * layout_.plane_words) {
    const float omega = 1.0f / channel.tau;
    g_.keep = 1.0f - omega;
    for (int k = 0; k < kDirections; ++k) {
      g_.relax[k] = omega * weight(k);
      g_.force[k] = 3.0f * weight(k) * velocity_x(k) * channel.force;
    }
  }

  void load(const float* f) override { course::launch(to_packed_layout<Format, kBlock, PairLayout>, {grid_, kBlock}, f, src_.data(), c_, layout_); }
  void store(float* f) override { course::launch(from_packed_layout<Format, kBlock, PairLayout>, {grid_, kBlock}, src_.data(), f, c_, layout_); }

  void advance(int steps, const Fields* fields) override {
    for (int step = 0; step < steps; ++step) {
      const bool write_moments = fields && step == steps - 1;
      course::launch(pairs_kernel<Format>, {grid_, kBlock}, src_.data(), dst_.data(), write_moments ? *fields : Fields{},
                     write_moments, c_, layout_, g_);
      std::swap(src_, dst_);
    }
  }

 private:
  Channel c_;
  PairLayout layout_;
  dim3 grid_;
  DeviceBuffer<std::uint32_t> src_, dst_;  // the state is in src_ between steps
  GridCollision g_;
};

}  // namespace

namespace parts {
std::uint16_t pair_half(std::uint32_t word, int p) { return half_of(word, p); }
}  // namespace parts

std::unique_ptr<Lattice> make_pairs_fp16(const Channel& channel) { return std::make_unique<PairsLattice<Fp16Bits>>(channel); }
std::unique_ptr<Lattice> make_pairs_bf16(const Channel& channel) { return std::make_unique<PairsLattice<Bf16Bits>>(channel); }

}  // namespace ch05
