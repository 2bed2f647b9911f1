// Generated from solutions/05_lattice_boltzmann/05_in_place.cu by exercises/generate.py (fingerprint c5d3031b4b28): edit the TODOs.
// Step 05 — in-place streaming: one buffer, the AA pattern.
//
// Step 04 needs two buffers because a cell's pull reads values its neighbours are overwriting.
// The AA pattern (Bailey et al., 2009) alternates two kinds of time step over one array, each
// reading and writing exactly the same nine slots a cell, so no thread ever touches a slot
// another thread uses in the same step:
//   pulling step  read  f_k(x) = A[opp(k)][x - e_k]           (at a wall: A[k][x])
//                 write A[k][x + e_k] = f*_k(x)               (at a wall: A[opp(k)][x])
//   local step    read  f_k(x) = A[k][x],  write A[opp(k)][x] = f*_k(x)
// Between a local and a pulling step the cell's post-collision values sit in its own slots,
// reversed; after a pulling step they sit where their neighbours will read them, so the local
// step streams by reading its own slots. (x is periodic; the y walls bounce the values back
// into the cell's own reversed slots, which is where the next step looks for them.)
// Bytes per cell and time step: 72, as in step 04; memory: one buffer instead of two.
// Predicted: the same time as step 04 (same bytes; the local step's reads and writes are all
// aligned, the pulling step's are shifted both ways): within a few percent of it, at half the
// memory, so twice the channel fits on the GPU.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 5 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "course/device_buffer.hpp"
#include "parts.hpp"
#include "steps.hpp"

namespace ch05 {
namespace {

using course::DeviceBuffer;

constexpr int kBlock = 128;  // cells of a row

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

// Part 1 of the exercise, tested on its own: the neighbour of (x, y) along direction k's velocity
// times `sign`, x periodic (y too without walls); false when it is behind a wall.
__host__ __device__ inline bool neighbour(int x, int y, int k, int sign, const Channel& c, int& to_x, int& to_y) {
  // TODO: part 1 of 3, the neighbour: sign +1 is the downwind neighbour x + e_k (where the pulling step writes f*_k), -1 the upwind one x - e_k (where it reads f_k from); x wraps around the periodic row, and upwind_row(c, y, e_y) is the row y - e_y (periodic without walls), so the downwind row is upwind_row of -e_y. Invariant: to_x always in 0 .. nx - 1; the result false exactly where to_y falls outside 0 .. ny - 1 (a wall). Mistake to avoid: the sign applied to x but not to y (or the other way round), or % of a negative number (add nx before the %).
  (void)x; (void)y; (void)k; (void)sign; (void)c;
  to_x = to_y = 0;
  return false;
}

__device__ inline void write_moments(const Fields& moments, long long at, const Moments& m) {
  moments.rho[at] = m.rho;
  moments.ux[at] = m.ux;
  moments.uy[at] = m.uy;
}

// The pulling step. Not __restrict__: `a` is read and written, each slot by one thread.
__global__ void aa_pulling_kernel(float* a, Fields moments, bool with_moments, Channel c) {
  const Cell cell = this_cell(c);
  if (!cell.inside) return;
  // TODO: part 2 of 3, the pulling step (the first time step after a load, then every other one): the table above, with neighbour(): f_k from the upwind neighbour's slot opposite(k), or at a wall from this cell's own slot k; collide the nine (moments_of, collide with omega = 1 / tau); f*_k into the downwind neighbour's slot k, or at a wall into this cell's own slot opposite(k). Invariant: the nine slots a cell reads are the nine it writes, so no other thread touches them in this step and one buffer suffices. Mistake to avoid: reading slot k of the neighbour (that is where the step writes, not where the last local step left the value: it left f*_k reversed, in slot opposite(k)), or skipping the moments when with_moments
  (void)a; (void)moments; (void)with_moments;
}

__global__ void aa_local_kernel(float* a, Fields moments, bool with_moments, Channel c) {
  const Cell cell = this_cell(c);
  if (!cell.inside) return;
  // TODO: part 3 of 3, the local step (the time steps in between): f_k from this cell's own slot k, where the pulling step's neighbours (and the walls) left it; collide; f*_k into this cell's own slot opposite(k), where the next pulling step's neighbour looks for it. Invariant: a local step touches only its own cell's nine slots, and leaves every value reversed. Mistake to avoid: reading slot opposite(k), the pulling step's read slots (the values would stream backwards), or writing slot k (the next pulling step would read them from the wrong neighbour)
  (void)a; (void)moments; (void)with_moments;
}

// A loaded state waits for a pulling step: each value in its own cell's reversed slot.
__global__ void to_aa_layout(const float* __restrict__ canonical, float* __restrict__ a, Channel c) {
  const Cell cell = this_cell(c);
  if (!cell.inside) return;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) a[soa_index(cell.x, cell.y, opposite(k), c)] = canonical[cell.at * kDirections + k];
}
// `after_pulling`: the last step was a pulling step, so f*_k(x) is in its neighbour's slot k.
__global__ void from_aa_layout(const float* __restrict__ a, float* __restrict__ canonical, bool after_pulling, Channel c) {
  const Cell cell = this_cell(c);
  if (!cell.inside) return;
#pragma unroll
  for (int k = 0; k < kDirections; ++k) {
    int x, y;
    canonical[cell.at * kDirections + k] = after_pulling && neighbour(cell.x, cell.y, k, +1, c, x, y)
                                               ? a[soa_index(x, y, k, c)]
                                               : a[soa_index(cell.x, cell.y, opposite(k), c)];
  }
}

class InPlaceLattice final : public Lattice {
 public:
  explicit InPlaceLattice(const Channel& channel)
      : c_(channel), grid_(course::blocks_for(channel.nx, kBlock), channel.ny), a_(channel.cells() * kDirections) {}

  void load(const float* f) override {
    course::launch(to_aa_layout, {grid_, kBlock}, f, a_.data(), c_);
    next_is_pulling_ = true;
  }
  void store(float* f) override { course::launch(from_aa_layout, {grid_, kBlock}, a_.data(), f, !next_is_pulling_, c_); }

  void advance(int steps, const Fields* fields) override {
    for (int step = 0; step < steps; ++step) {
      const bool with_moments = fields && step == steps - 1;
      const Fields moments = with_moments ? *fields : Fields{};
      if (next_is_pulling_)
        course::launch(aa_pulling_kernel, {grid_, kBlock}, a_.data(), moments, with_moments, c_);
      else
        course::launch(aa_local_kernel, {grid_, kBlock}, a_.data(), moments, with_moments, c_);
      next_is_pulling_ = !next_is_pulling_;
    }
  }

 private:
  Channel c_;
  dim3 grid_;
  DeviceBuffer<float> a_;
  bool next_is_pulling_ = true;
};

}  // namespace

namespace parts {
bool aa_neighbour(int x, int y, int k, int sign, const Channel& c, int& to_x, int& to_y) { return neighbour(x, y, k, sign, c, to_x, to_y); }
}  // namespace parts

std::unique_ptr<Lattice> make_in_place(const Channel& channel) { return std::make_unique<InPlaceLattice>(channel); }

}  // namespace ch05
