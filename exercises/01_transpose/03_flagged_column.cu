// Generated from solutions/01_transpose/03_flagged_column.cu by exercises/generate.py (fingerprint 0a1125c50693): edit the TODOs.
// Step 03 — the flagged column transpose (after the Huawei/Beihang patent, 2016).
//
// A read-only matrix is read column by column again and again by a consumer that must own a
// column per warp (step 00's access). Instead of paying the strided access on every pass:
//   1. flag clear, column-sequential access: transpose *while reading* — each block loads 32x32
//      tiles of A (coalesced), consumes them from a padded 32x33 shared tile, writes the tile
//      transposed into a copy (coalesced), and the flag is set;
//   2. flag set, column-sequential access: read the copy, where a column of A is a row: the
//      same warp-per-column consumer, now coalesced;
//   3. any other access (here a row access, y = A x) reads the original.
// The lanes accumulate in exactly the order of step 00 and reduce with the same tree
// (lane_sum), so the three paths give bit-identical results.
// The transposing pass keeps the next tile's loads in flight (in registers) while it consumes
// and writes the current one: one block walks a whole 32-column stripe, so without that
// prefetch every tile would wait for its loads.
// Predicted: pass 1 moves 2 x 1 GiB (read A, write the copy), later passes 1 GiB at the copy
// bandwidth; step 00's pass is held to ~1/4 of the copy bandwidth by its strided lanes, so the
// flag pays off from k = 1 or 2 passes.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 1 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include <algorithm>

#include "course/exercise.hpp"
#include "lane_sum.cuh"
#include "transpose.hpp"

namespace ch01 {

// --- recognising a column-sequential access (the patent's rule) ------------------------------------

namespace {
// Where an element lies along the column-by-column walk of the matrix: col * rows + row, with
// column = index mod N and row = index div N as the patent writes them. A walk down a column
// and on into the next is a run of consecutive positions; raw indices jump at every wrap.
std::int64_t walk_position(std::int64_t index, std::int64_t rows, std::int64_t cols) {
  return index % cols * rows + index / cols;
}
}  // namespace

bool is_column_access(std::span<const std::int64_t> indices, std::int64_t rows, std::int64_t cols) {
  // TODO: lanes at consecutive walk positions (col * rows + row), spanning one column or two neighbouring ones
  throw course::NotImplemented(__FILE__);
}

bool is_column_sequential(std::span<const std::int64_t> previous, std::span<const std::int64_t> current,
                          std::int64_t rows, std::int64_t cols) {
  // TODO: a column access whose smallest walk position follows the previous access's largest
  throw course::NotImplemented(__FILE__);
}

// --- kernels -------------------------------------------------------------------------------------------
namespace {

constexpr int kTile = 32;
constexpr int kWarps = 8;                          // blockDim = (32, 8)
constexpr int kColumnsPerWarp = kTile / kWarps;   // 4
constexpr int kRowsPerWarp = kTile / kWarps;      // tile rows each thread loads: 4

// Pass 1 (flag clear). Block b owns the 32-column stripe starting at b*32 and walks down it tile
// by tile; warp w consumes columns w, w+8, w+16, w+24 of the stripe, lane l holding row l of
// each tile — step 00's order.
__global__ void transpose_while_consuming_kernel(const float* __restrict__ a, const float* __restrict__ x,
                                                 float* __restrict__ copy, float* __restrict__ y, int rows, int cols) {
  // TODO: per 32-row tile: registers to shared, barrier, prefetch the next tile, accumulate, write the tile transposed, barrier
}

// y = M v with a warp per row of M, lane l summing elements l, l+32, ... (coalesced). Reading the
// copy (M = A^T) this is the column-sequential consumer; reading A it is the row access.
__global__ void multiply_rows_kernel(const float* __restrict__ m, const float* __restrict__ v, float* __restrict__ y,
                                     int m_rows, int m_cols) {
  // TODO: warp threadIdx.y owns row blockIdx.x*8 + threadIdx.y; accumulate with fmaf like step 00, then lane_sum
}

}  // namespace

// --- the flagged matrix ----------------------------------------------------------------------------------

FlaggedMatrix::FlaggedMatrix(const float* matrix, int rows, int cols)
    : original_(matrix), rows_(rows), cols_(cols), copy_(static_cast<size_t>(rows) * cols) {}

void FlaggedMatrix::multiply_transposed(const float* x, float* y) {
  // TODO: flag clear: transpose while consuming and set the flag; flag set: consume the copy row by row
  throw course::NotImplemented(__FILE__);
}

void FlaggedMatrix::multiply(const float* x, float* y) {
  // TODO: a row access never needs the copy: multiply_rows_kernel over the original
  throw course::NotImplemented(__FILE__);
}

}  // namespace ch01
