// Step 13 — two cells a thread without a barrier, in fp16 rounded stochastically; and four.
//
// Step 10 keeps the physics in 16 bits, and step 09 showed where the 16-bit steps' remaining
// time goes: one cell a thread, every load and store moves 2 bytes, and the benchmark's copy of
// that structure stays further below the device copy than 4-byte words two cells a thread
// (results/, "stream copy" rows).
// Step 09 took two cells a thread and paid for it with a shared tile, a barrier and its waits.
// This step takes the pairs without either. A thread owns the cells x0 = 2t and x0 + 1 of a row
// (rows padded to an even number of cells, as in step 09) and reads every value as a word:
//   - the directions that do not move along x pull the word straight above, below or here;
//   - those that move along x pull two values that straddle two words, the high half of one and
//     the low half of the next: the thread reads both words and keeps a half of each. Its
//     neighbours read the same words for themselves, so the second read is an L1 hit: 60 bytes
//     of L1 traffic a pair for 36 of DRAM;
//   - every load is issued before any branch, so all 15 words a pair reads are in flight at
//     once; at a row's two ends (a wrap around the periodic row, or an odd row's pad half) the
//     x-moving pairs are then read again one value at a time.
// Then step 10's collision and stochastic rounding for each cell (repeated here as the step's
// given code), and each direction's pair stored as one word, converted by one instruction.
// Bytes per cell and time step: 36, as steps 06-12. PyTorch's compiled plane-by-plane step with
// fp16 storage, one fused kernel a time step, comes close to the copy ceiling at 8192^2 on the H200
// (peer_torch.py, results/h200/steps-10-13-2026-11-24/torch.json), so a one-pass kernel
// can get there. Predicted: the structure's own ceiling is the 4-byte copy's 0.97 (113,189 MLUPS
// on the H200 at 8192^2, the same run); step 10 issued ~260 instructions a cell, here the address arithmetic, the loads, the
// stores and the conversions are shared by two cells and the straddled pairs add a funnel shift
// each: ~230 a cell. If issue then stops limiting as it does not limit step 08 (67% of slots):
// ~0.9 of copy, ~100,000 MLUPS, 1.8x the float32 steps, the physics kept.
// The second variant, quads_stochastic_fp16, takes four cells a thread and reads 8-byte words
// (rows padded to a multiple of 4): the same 15 loads now bring four cells' values, and the
// x-moving straddle is a shift of 64 bits (the compiler reads only the neighbour's half it needs).
// Predicted: the loads' addressing (~59 instructions a cell for two cells) halves, the rest is
// per cell: ~200 a cell; 36 floats of values and 36 results held, so more registers and fewer
// warps resident, but twice the bytes in flight a load. Against the two-cell step: faster if
// bytes in flight, not warps, hold it.
// BEGIN FINDINGS
// The two-cell step, measured on the H200 at ~0.84 of copy with 55-65% of warps resident
// (step13-experiments.txt showed warps lost to registers cost more than they bought when the bytes
// a load did not grow).
// Measured in a run of its own (NOTES.md), H200, commit 88db427
// (results/h200/steps-10-13-2026-11-24/): 236 instructions a cell, 74% of issue slots, 65% of warps
// resident, 72% of DRAM busy; 99,195 MLUPS at 8192^2, 0.846 of copy (predicted ~0.9), 1.78x the
// best float32 step, 1.11x step 10, 0.89x PyTorch's compiled step storing fp16 rounded to nearest
// (111,523); the flow step 10's to every digit. The first version, with each direction's loads
// behind its branches: 58,597 MLUPS on the H100, 43% of issue slots busy.
// H100 (results/h100-80gb-hbm3/steps-10-13-2026-11-24/): 78,068 MLUPS at 8192^2, 0.938 of copy,
// 1.96x the best float32 step; 0.96x PyTorch's fp16 form (80,986).
// With the lean collision (10f51c0, results/*/lean-collision-2026-11-24/): 223 instructions a cell,
// 1.006-1.017x the previous collision in the same call on three H200s; 96,947 MLUPS (1.74x) on the
// recording run's H200, 78,477 (0.943 of copy, 1.98x) on the H100. Loading the next row while this
// one computes (in registers, or in shared memory by cp.async) was slower on the H200
// (step13-experiments.txt there).
// The four-cell variant (7c20c7a, results/*/four-cells-2026-11-24/): 220 instructions a cell
// (predicted ~200), 64 registers, 42% of warps resident, 75% of issue slots and of DRAM busy on the
// H200; 106,975 MLUPS at 8192^2, 0.913 of copy, 1.92x the best float32 step, 1.10x the two-cell
// step in the same run; H100 80,238, 0.965 of copy, 2.02x. The flow is step 10's to every digit.
// The copies beside it (730dc19): 8-byte words four cells a thread copy at 0.982 of copy on the
// H200, two 2-byte accesses a thread at 0.892, one at 0.910: by these, the width of the loads, not
// the values a thread holds, is what the variant gained from (the copies' requests not profiled).
// In the chapter's recording (a61db01af046, the block below): the two-cell step 1.74x the best
// float32 step on the H200 and 1.99x on the H100, the four-cell variant 1.87x and 2.02x.
// END FINDINGS
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit a61db01af046, 2026-11-24):
//     13_pairs_stochastic_fp16  256x256    0.0671 ms (20 time steps), an experiment, 703 GB/s (0.236 of copy), 19528 MLUP/s
//     13_quads_stochastic_fp16  256x256    0.0876 ms (20 time steps), 539 GB/s (0.181 of copy), 14965 MLUP/s
//     13_pairs_stochastic_fp16  1024x1024  0.2676 ms (20 time steps), an experiment, 2821 GB/s (0.945 of copy), 78355 MLUP/s
//     13_quads_stochastic_fp16  1024x1024  0.3135 ms (20 time steps), 2408 GB/s (0.807 of copy), 66894 MLUP/s
//     13_pairs_stochastic_fp16  2048x2048  1.1463 ms (20 time steps), an experiment, 2634 GB/s (0.883 of copy), 73179 MLUP/s
//     13_quads_stochastic_fp16  2048x2048  1.1535 ms (20 time steps), 2618 GB/s (0.877 of copy), 72726 MLUP/s
//     13_pairs_stochastic_fp16  4096x4096  4.3247 ms (20 time steps), an experiment, 2793 GB/s (0.936 of copy), 77588 MLUP/s
//     13_quads_stochastic_fp16  4096x4096  4.2696 ms (20 time steps), 2829 GB/s (0.948 of copy), 78588 MLUP/s
//     13_pairs_stochastic_fp16  8192x8192  16.9373 ms (20 time steps), an experiment, 2853 GB/s (0.956 of copy), 79244 MLUP/s
//     13_quads_stochastic_fp16  8192x8192  16.7177 ms (20 time steps), 2890 GB/s (0.969 of copy), 80285 MLUP/s
//   NVIDIA H200 (commit a61db01af046, 2026-11-24):
//     13_pairs_stochastic_fp16  256x256    0.0697 ms (20 time steps), an experiment, 677 GB/s (0.160 of copy), 18806 MLUP/s
//     13_quads_stochastic_fp16  256x256    0.0833 ms (20 time steps), 567 GB/s (0.134 of copy), 15739 MLUP/s
//     13_pairs_stochastic_fp16  1024x1024  0.2506 ms (20 time steps), an experiment, 3013 GB/s (0.712 of copy), 83688 MLUP/s
//     13_quads_stochastic_fp16  1024x1024  0.3025 ms (20 time steps), 2496 GB/s (0.590 of copy), 69328 MLUP/s
//     13_pairs_stochastic_fp16  2048x2048  0.9182 ms (20 time steps), an experiment, 3289 GB/s (0.777 of copy), 91363 MLUP/s
//     13_quads_stochastic_fp16  2048x2048  0.9179 ms (20 time steps), 3290 GB/s (0.777 of copy), 91394 MLUP/s
//     13_pairs_stochastic_fp16  4096x4096  3.4323 ms (20 time steps), an experiment, 3519 GB/s (0.831 of copy), 97762 MLUP/s
//     13_quads_stochastic_fp16  4096x4096  3.1663 ms (20 time steps), 3815 GB/s (0.901 of copy), 105974 MLUP/s
//     13_pairs_stochastic_fp16  8192x8192  13.8194 ms (20 time steps), an experiment, 3496 GB/s (0.826 of copy), 97123 MLUP/s
//     13_quads_stochastic_fp16  8192x8192  12.8734 ms (20 time steps), 3753 GB/s (0.887 of copy), 104260 MLUP/s
// END MEASURED
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "course/device_buffer.hpp"
#include "pairs.hpp"
#include "parts.hpp"
#include "shifted_collision.hpp"
#include "steps.hpp"

namespace ch05 {
namespace {

using course::DeviceBuffer;

constexpr int kBlock = 128;  // threads, each two cells of one row

// Step 10's stochastic rounding (see 10_stochastic_rounding.cu), fp16: `value` to one of its two
// neighbouring fp16 numbers, the upper with probability (|value| - lo) / (hi - lo), by `random`'s
// top 13 bits added to its float32 bits; returns the stored number as a float.
__device__ inline float round_stochastically(float value, std::uint32_t random) {
  constexpr int kDropped = 23 - Fp16Bits::kFractionBits;
  constexpr std::uint32_t kBelow = (1u << kDropped) - 1;
  return course::float_from_bits((course::float_bits(value) + (random >> (32 - kDropped))) & ~kBelow);
}

// Part 1 of the exercise, tested on its own: the pair of values that straddles two words of a row,
// the high half of `west` and the low half of `east`, the word after it.
__host__ __device__ inline std::uint32_t straddled_pair(std::uint32_t west, std::uint32_t east) {
  // BEGIN SOLUTION: part 1 of 4, the straddled pair: the cell before `east`'s first is `west`'s high half (high()), and it becomes the new pair's even cell; `east`'s low half (low()) its odd cell; pack(even, odd) puts the even cell low. Invariant: a pair word always holds its even cell in bits 0-15 and its odd cell in bits 16-31, whichever words it came from. Mistake to avoid: the halves swapped (pack(low(east), high(west))), which exchanges the pair's two cells' values.
  return pack(high(west), low(east));
  // STUB: (void)west; (void)east;
  // STUB: return 0;
  // END SOLUTION
}

// Part 2 of the exercise, tested on its own: the four values of cells x0 - e_x .. x0 + 3 - e_x,
// from `own` (cells x0 .. x0 + 3, lane i cell x0 + i) and the word `west` before it (e_x = 1) or
// `east` after it (e_x = -1).
// BEGIN SOLUTION: part 2 of 4, the straddled quads: for e_x = 1 the cells are x0 - 1 .. x0 + 2: own moved up a lane (<< 16), its empty bottom lane filled with west's top lane (>> 48); for e_x = -1 the cells x0 + 1 .. x0 + 4: own moved down a lane (>> 16), its top lane from east's bottom lane (<< 48). Invariant: lane i of the result is cell x0 + i - e_x, lane 0 in the lowest 16 bits. Mistake to avoid: shifting own the wrong way (the values then move downwind instead of being pulled from upwind), or the neighbour word's lane taken from its wrong end.
__host__ __device__ inline std::uint64_t quad_from_west(std::uint64_t own, std::uint64_t west) { return (west >> 48) | (own << 16); }
__host__ __device__ inline std::uint64_t quad_from_east(std::uint64_t own, std::uint64_t east) { return (own >> 16) | (east << 48); }
// STUB: __host__ __device__ inline std::uint64_t quad_from_west(std::uint64_t own, std::uint64_t west) { return 0 * (own + west); }
// STUB: __host__ __device__ inline std::uint64_t quad_from_east(std::uint64_t own, std::uint64_t east) { return 0 * (own + east); }
// END SOLUTION

// Column x of a periodic row, for x one cell outside it at most (a row end's upwind neighbour).
__device__ inline int wrap_x(const Channel& c, int x) { return x < 0 ? x + c.nx : x >= c.nx ? x - c.nx : x; }

// One cell's collision (step 08's) with its nine results rounded stochastically (step 10's): the
// rest direction takes the mass the eight stored values leave.
__device__ inline ShiftedCell collide_and_round(const float (&s)[kDirections], const GridCollision& g, std::uint32_t random,
                                                float (&stored)[kDirections]) {
  const ShiftedCell cell = shifted_cell(s);
  float stored_sum = 0.0f;
#pragma unroll
  for (int k = 1; k < kDirections; ++k) {
    stored[k] = round_stochastically(collide_shifted(k, s[k], cell, g), next_random(random));
    stored_sum += stored[k];
  }
  stored[0] = round_stochastically(cell.sum - stored_sum, next_random(random));
  return cell;
}

__global__ void pairs_stochastic_kernel(const std::uint32_t* __restrict__ src, std::uint32_t* __restrict__ dst, Fields moments,
                                        bool write_moments, Channel c, PairLayout layout, GridCollision g, std::uint32_t time) {
  const int x0 = 2 * (blockIdx.x * kBlock + threadIdx.x), y = blockIdx.y;
  if (x0 >= c.nx) return;
  const bool second = x0 + 1 < c.nx;                  // an odd row's last pair holds one cell
  const bool row_end = x0 == 0 || x0 + 2 >= c.nx;     // a neighbour along x wraps around, or is the pad
  const bool south_wall = c.walls && y == 0, north_wall = c.walls && y == c.ny - 1;

  // The pair's nine values each, as words: first every word read straight, with no branch, so
  // that all the loads are in flight at once (a load behind a branch waits for it); then, at a
  // row's two ends only, the x-moving pairs read again one value at a time.
  std::uint32_t pair[kDirections];
#pragma unroll
  for (int k = 0; k < kDirections; ++k) {
    const int ex = velocity_x(k), ey = velocity_y(k);
    const bool wall = ey > 0 ? south_wall : ey < 0 ? north_wall : false;
    const unsigned bounced = layout.word(opposite(k), x0, y);  // behind a wall: the pair's own opposite values
    if (ex == 0) {
      pair[k] = src[wall ? bounced : layout.word(k, x0, upwind_row(c, y, ey))];
    } else {
      // BEGIN SOLUTION: part 3 of 4, the pair's reads: cells x0 - e_x and x0 + 1 - e_x straddle two words of row upwind_row(c, y, e_y): the word before x0's and x0's own for e_x = 1, x0's own and the one after for e_x = -1; read both, with no branch (behind a wall, `bounced`, the pair's own opposite word; at a row's end, x0's own word twice, to stay inside the row: the row-end pass below reads those again), and keep the straddled pair of them (part 1), or the bounced word as it is. Invariant: every load is issued before any branch, so all of a pair's loads are in flight at once. Mistake to avoid: x0 - 1 as a word index (the layout counts cells: the word before x0's holds x0 - 2), or a load past the row at its ends.
      const unsigned first = wall ? bounced : layout.word(k, row_end ? x0 : ex > 0 ? x0 - 2 : x0, upwind_row(c, y, ey));
      const std::uint32_t word0 = src[first], word1 = src[wall || row_end ? first : first + 1];
      pair[k] = wall ? word0 : straddled_pair(word0, word1);
      // STUB: pair[k] = 0; (void)bounced; (void)wall;
      // END SOLUTION
    }
  }
  if (row_end) {
#pragma unroll
    for (int k = 0; k < kDirections; ++k) {
      const int ex = velocity_x(k), ey = velocity_y(k), from_y = upwind_row(c, y, ey);
      if (ex == 0 || (ey > 0 ? south_wall : ey < 0 ? north_wall : false)) continue;
      pair[k] = pack(layout.cell(src, k, wrap_x(c, x0 - ex), from_y), second ? layout.cell(src, k, wrap_x(c, x0 + 1 - ex), from_y) : 0);
    }
  }
  float s0[kDirections], s1[kDirections];
#pragma unroll
  for (int k = 0; k < kDirections; ++k) {
    s0[k] = fp16_value(low(pair[k]));
    s1[k] = fp16_value(high(pair[k]));
  }

  // Collide and round each cell (the pad half's values are not a cell's: it stores zeros).
  const unsigned here = static_cast<unsigned>(y) * c.nx + x0;
  float stored0[kDirections], stored1[kDirections] = {};
  const ShiftedCell cell0 = collide_and_round(s0, g, cell_hash(here, time), stored0);
  ShiftedCell cell1{};
  if (second) cell1 = collide_and_round(s1, g, cell_hash(here + 1, time), stored1);
#pragma unroll
  for (int k = 0; k < kDirections; ++k) dst[layout.word(k, x0, y)] = fp16_pair(stored0[k], stored1[k]);
  if (write_moments) {
    moments.rho[here] = cell0.rho, moments.ux[here] = cell0.ux, moments.uy[here] = cell0.uy;
    if (second) moments.rho[here + 1] = cell1.rho, moments.ux[here + 1] = cell1.ux, moments.uy[here + 1] = cell1.uy;
  }
}

constexpr int kQuadBlock = 64;  // threads, each four cells of one row

__global__ void quads_stochastic_kernel(const std::uint64_t* __restrict__ src, std::uint64_t* __restrict__ dst, Fields moments,
                                        bool write_moments, Channel c, QuadLayout layout, GridCollision g, std::uint32_t time) {
  const int x0 = 4 * (blockIdx.x * kQuadBlock + threadIdx.x), y = blockIdx.y;
  if (x0 >= c.nx) return;
  const int cells = min(4, c.nx - x0);              // a row's last word may hold fewer
  const bool row_end = x0 == 0 || x0 + 4 >= c.nx;  // a neighbour along x wraps around, or is the pad
  const bool south_wall = c.walls && y == 0, north_wall = c.walls && y == c.ny - 1;

  // As the pairs: every word read straight first, then the row ends read again one value at a time.
  std::uint64_t quad[kDirections];
#pragma unroll
  for (int k = 0; k < kDirections; ++k) {
    const int ex = velocity_x(k), ey = velocity_y(k);
    const bool wall = ey > 0 ? south_wall : ey < 0 ? north_wall : false;
    const unsigned bounced = layout.word(opposite(k), x0, y);
    const unsigned own = wall ? bounced : layout.word(k, x0, upwind_row(c, y, ey));
    if (ex == 0) {
      quad[k] = src[own];
    } else {
      // BEGIN SOLUTION: part 4 of 4, the quad's reads: cells x0 - e_x .. x0 + 3 - e_x: read this thread's word `own` and its neighbour word (the word before for e_x = 1, after for e_x = -1), both before any branch; at a row's end or behind a wall read `own` twice instead (the row-end pass below reads a row's ends again; behind a wall `own` already is the bounced word, kept as it is); then the straddled quad of the two (part 2: quad_from_west for e_x = 1, quad_from_east for e_x = -1). Invariant: the 8-byte words are whole quads of cells (rows padded to a multiple of 4), so a word index moves by one word per four cells. Mistake to avoid: the neighbour word on the wrong side for the direction, or a load past the row at its ends.
      const std::uint64_t mine = src[own], theirs = src[wall || row_end ? own : ex > 0 ? own - 1 : own + 1];
      quad[k] = wall ? mine : ex > 0 ? quad_from_west(mine, theirs) : quad_from_east(mine, theirs);
      // STUB: quad[k] = 0; (void)own;
      // END SOLUTION
    }
  }
  if (row_end) {
#pragma unroll
    for (int k = 0; k < kDirections; ++k) {
      const int ex = velocity_x(k), ey = velocity_y(k), from_y = upwind_row(c, y, ey);
      if (ex == 0 || (ey > 0 ? south_wall : ey < 0 ? north_wall : false)) continue;
      std::uint64_t word = 0;
      for (int i = 0; i < cells; ++i) word |= std::uint64_t{layout.cell(src, k, wrap_x(c, x0 + i - ex), from_y)} << (16 * i);
      quad[k] = word;
    }
  }

  // Every lane collides, the pad lanes too (their zeros are a fluid at rest: no special case in
  // the loop); their results are cleared before the store, or the body force would build up in
  // them step after step (a lone cell driven and never relieved).
  const unsigned here = static_cast<unsigned>(y) * c.nx + x0;
  float stored[4][kDirections];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    float s[kDirections];
#pragma unroll
    for (int k = 0; k < kDirections; ++k) s[k] = fp16_value(QuadLayout::lane(quad[k], i));
    const ShiftedCell cell = collide_and_round(s, g, cell_hash(here + i, time), stored[i]);
    if (write_moments && i < cells) moments.rho[here + i] = cell.rho, moments.ux[here + i] = cell.ux, moments.uy[here + i] = cell.uy;
  }
  std::uint64_t words[kDirections];
#pragma unroll
  for (int k = 0; k < kDirections; ++k)
    words[k] = fp16_pair(stored[0][k], stored[1][k]) | std::uint64_t{fp16_pair(stored[2][k], stored[3][k])} << 32;
  if (cells < 4) {
    const std::uint64_t kept = (std::uint64_t{1} << (16 * cells)) - 1;
#pragma unroll
    for (int k = 0; k < kDirections; ++k) words[k] &= kept;
  }
#pragma unroll
  for (int k = 0; k < kDirections; ++k) dst[layout.word(k, x0, y)] = words[k];
}

// Either variant's lattice: the state in `Layout`'s words, a thread per word in blocks of kThreads,
// one launch of `kKernel` a time step. The time steps are counted from the load: the same state
// loaded draws the same numbers.
template <class Layout, int kThreads, auto kKernel>
class PackedStochasticLattice final : public Lattice {
 public:
  PackedStochasticLattice(const Channel& channel, Layout layout)
      : c_(channel), layout_(layout), grid_(course::blocks_for(channel.nx, Layout::kCells * kThreads), channel.ny),
        src_(std::size_t{kDirections} * layout_.plane_words), dst_(std::size_t{kDirections} * layout_.plane_words),
        g_(grid_collision(channel)) {}

  void load(const float* f) override {
    course::launch(to_packed_layout<Fp16Bits, kThreads, Layout>, {grid_, kThreads}, f, src_.data(), c_, layout_);
    time_ = 0;
  }
  void store(float* f) override { course::launch(from_packed_layout<Fp16Bits, kThreads, Layout>, {grid_, kThreads}, src_.data(), f, c_, layout_); }

  void advance(int steps, const Fields* fields) override {
    for (int step = 0; step < steps; ++step) {
      const bool write_moments = fields && step == steps - 1;
      course::launch(kKernel, {grid_, kThreads}, src_.data(), dst_.data(), write_moments ? *fields : Fields{}, write_moments, c_,
                     layout_, g_, time_++);
      std::swap(src_, dst_);
    }
  }

 private:
  Channel c_;
  Layout layout_;
  dim3 grid_;
  DeviceBuffer<typename Layout::Word> src_, dst_;  // the state is in src_ between steps
  GridCollision g_;
  std::uint32_t time_ = 0;
};

}  // namespace

namespace parts {
std::uint32_t straddled_pair(std::uint32_t west, std::uint32_t east) { return ch05::straddled_pair(west, east); }
std::uint64_t straddled_quad(std::uint64_t own, std::uint64_t other, int ex) {
  return ex > 0 ? quad_from_west(own, other) : quad_from_east(own, other);
}
}  // namespace parts

std::unique_ptr<Lattice> make_pairs_stochastic_fp16(const Channel& channel) {
  return std::make_unique<PackedStochasticLattice<PairLayout, kBlock, pairs_stochastic_kernel>>(channel,
                                                                                                pair_layout(channel, "step 13"));
}
std::unique_ptr<Lattice> make_quads_stochastic_fp16(const Channel& channel) {
  return std::make_unique<PackedStochasticLattice<QuadLayout, kQuadBlock, quads_stochastic_kernel>>(
      channel, quad_layout(channel, "step 13's four-cell variant"));
}

}  // namespace ch05
