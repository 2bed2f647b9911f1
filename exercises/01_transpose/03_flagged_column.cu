// Generated from solutions/01_transpose/03_flagged_column.cu by exercises/generate.py (fingerprint c4966e993ffa): edit the TODOs.
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
// bandwidth; step 00's pass is held to a fraction of it by its strided lanes (step 00's measured
// rate: a few times slower than the copy), so the flag pays off from k = 1 or 2 passes.
// The exercise, in seven parts, each tested alone: 1-2 the patent's rule (a column access, a
// sequential one), 3 consuming a tile, 4 the transposing pass, 5 the row consumer that reads the
// copy, 6 the flag, 7 the row access. The class's members (flag_, transpositions_, copy_,
// original_) are declared in chapters/01_transpose/transpose.hpp.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 1 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include <algorithm>

#include "course/exercise.hpp"
#include "lane_sum.cuh"
#include "parts.hpp"
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
  // TODO: part 1 of 7, the column access: the 16 lanes must sit at consecutive walk positions (col * rows + row, computed by walk_position), lane after lane, and the last lane's column may be the first lane's or the next one (one wrap from row rows - 1 to row 0, never two); an index outside the matrix is no column access; comparing raw indices instead of walk positions fails at every wrap
  throw course::NotImplemented(__FILE__);
}

bool is_column_sequential(std::span<const std::int64_t> previous, std::span<const std::int64_t> current,
                          std::int64_t rows, std::int64_t cols) {
  // TODO: part 2 of 7, the sequential rule: the current access must be a column access (part 1) and, unless there is no previous access, its smallest walk position must be exactly one past the previous access's largest (the next row, or row 0 of the next column after the last row); take smallest and largest over all lanes, not the first and last lanes
  throw course::NotImplemented(__FILE__);
}

// --- kernels -------------------------------------------------------------------------------------------
namespace {

constexpr int kTile = 32;
constexpr int kWarps = 8;                          // blockDim = (32, 8)
constexpr int kColumnsPerWarp = kTile / kWarps;   // 4
constexpr int kRowsPerWarp = kTile / kWarps;      // tile rows each thread loads: 4

// Pass 1 (flag clear). Block b owns the 32-column stripe starting at b*32 and walks down it tile
// by tile. Thread (lane, warp) = (threadIdx.x, threadIdx.y):
//   loads   column stripe + lane of tile rows warp, warp + 8, warp + 16, warp + 24 (coalesced);
//   sums    columns stripe + warp, + 8, + 16, + 24 over tile row `lane` (step 00's order: lane l
//           holds rows l, l + 32, ... of its column);
//   writes  copy rows stripe + warp, + 8, ... (columns of A), element tile_row + lane of each.

// Adds this thread's products of the tile that starts at row tile_row of A to its four column sums.
__device__ __forceinline__ void consume_tile(float (&partial)[kColumnsPerWarp], const float (&tile)[kTile][kTile + 1],
                                             const float* x, int rows, int cols, int stripe, int tile_row, int lane,
                                             int warp) {
  // Part 3, consume the tile. Idea: lane l takes tile row l (A's row tile_row + l) and adds its
  // products to the thread's four column sums, for columns warp, warp + 8, warp + 16 and warp + 24
  // of the stripe; a warp then reads a column of the shared tile, which the padding keeps free of
  // bank conflicts. Keep: fmaf(tile value, x of that row, sum), tile after tile, so that lane l's
  // sum rounds exactly as step 00's lane l does over rows l, l + 32, ... (the test compares bits).
  // Avoid: += (it rounds twice), and rows or columns past the matrix's edge.
  // TODO: part 3 of 7, consume the tile: the idea, what to keep and what to avoid are in the comment above
}

__global__ void transpose_while_consuming_kernel(const float* __restrict__ a, const float* __restrict__ x,
                                                 float* __restrict__ copy, float* __restrict__ y, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];  // step 02's padded tile
  const int stripe = blockIdx.x * kTile;
  const int lane = threadIdx.x;
  const int warp = threadIdx.y;
  const int col = stripe + lane;
  float partial[kColumnsPerWarp] = {};
  float next[kRowsPerWarp];  // this thread's elements of the next tile, loading while the current one is used

  // Part 4, the transposing pass.
  // Idea: the block walks down its 32-column stripe one 32 x 32 tile at a time. Each tile goes
  //   from registers into the padded shared tile, is consumed (part 3), and is written transposed
  //   into the copy, while the loads of the next tile are already in flight.
  // Keep:
  //   - the prefetch: the next tile's loads go into next[] once the current tile is in shared
  //     memory, before it is consumed (0 outside A), so that they fly while the block works;
  //   - two barriers a tile: one after the tile is stored (every warp reads all of it), one after
  //     it is consumed and written (it is overwritten next);
  //   - the copy is cols x rows: its row stripe + i is column stripe + i of A, written coalesced;
  //   - at the end, lane_sum for each of the four sums, called by every thread (it holds
  //     barriers), and lane 0 writing y.
  // Avoid: leaving out the second barrier (a fast warp overwrites the tile while others still read
  //   it), and fetching the current tile again instead of the next one.
  // TODO: part 4 of 7, the transposing pass: the idea, what to keep and what to avoid are in the comment above
}

// y = M v with a warp per row of M, lane l summing elements l, l+32, ... (coalesced). Reading the
// copy (M = A^T) this is the column-sequential consumer; reading A it is the row access.
__global__ void multiply_rows_kernel(const float* __restrict__ m, const float* __restrict__ v, float* __restrict__ y,
                                     int m_rows, int m_cols) {
  // Part 5, the row consumer, y = M v. Idea: a warp per row of M (warp threadIdx.y of the block's
  // eight); lane l sums elements l, l + 32, ... of the row, which is coalesced, and lane_sum adds
  // the 32 lane sums. Keep: fmaf in that order, step 00's, so that a pass over the copy rounds
  // exactly as step 00's pass over A. Avoid: calling lane_sum inside an if (every thread must
  // reach its barriers), and forgetting the block's offset in the row number.
  // TODO: part 5 of 7, the row consumer: the idea, what to keep and what to avoid are in the comment above
}

// --- parts 3-5 alone, for their tests ---------------------------------------------------------------

// Part 3 alone: one block per 32-column stripe, as in the transposing pass; one thread copies each
// tile of A into the shared tile, then every thread consumes it. sums[c][lane] = lane's sum of
// column c (cols x 32), which step 00's lane l also holds.
__global__ void consume_alone_kernel(const float* __restrict__ a, const float* __restrict__ x, float* __restrict__ sums,
                                     int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int stripe = blockIdx.x * kTile;
  float partial[kColumnsPerWarp] = {};
  for (int tile_row = 0; tile_row < rows; tile_row += kTile) {
    __syncthreads();  // every thread is done with the previous tile
    if (threadIdx.x == 0 && threadIdx.y == 0) {
      for (int i = 0; i < kTile; ++i)
        for (int j = 0; j < kTile; ++j)
          tile[i][j] = tile_row + i < rows && stripe + j < cols ? a[static_cast<size_t>(tile_row + i) * cols + stripe + j]
                                                                : 0.0f;
    }
    __syncthreads();
    consume_tile(partial, tile, x, rows, cols, stripe, tile_row, threadIdx.x, threadIdx.y);
  }
  for (int j = 0; j < kColumnsPerWarp; ++j) {
    const int col = stripe + threadIdx.y + j * kWarps;
    if (col < cols) sums[static_cast<size_t>(col) * kLanes + threadIdx.x] = partial[j];
  }
}

}  // namespace

namespace parts {
void flagged_consume(const float* a, const float* x, float* sums, int rows, int cols) {
  course::launch(consume_alone_kernel, {dim3(course::blocks_for(cols, kTile)), dim3(kLanes, kWarps)}, a, x, sums, rows, cols);
}
void flagged_transposing_pass(const float* a, const float* x, float* copy, float* y, int rows, int cols) {
  course::launch(transpose_while_consuming_kernel, {dim3(course::blocks_for(cols, kTile)), dim3(kLanes, kWarps)}, a, x,
                 copy, y, rows, cols);
}
void flagged_multiply_rows(const float* m, const float* v, float* y, int m_rows, int m_cols) {
  course::launch(multiply_rows_kernel, {dim3(course::blocks_for(m_rows, kWarps)), dim3(kLanes, kWarps)}, m, v, y, m_rows,
                 m_cols);
}
}  // namespace parts

// --- the flagged matrix ----------------------------------------------------------------------------------

FlaggedMatrix::FlaggedMatrix(const float* matrix, int rows, int cols)
    : original_(matrix), rows_(rows), cols_(cols), copy_(static_cast<size_t>(rows) * cols) {}

void FlaggedMatrix::multiply_transposed(const float* x, float* y) {
  // TODO: part 6 of 7, the flag: the flag says whether the copy holds A's transpose; with it clear, a column pass is the transposing pass (part 4, a block of (32, 8) threads per 32-column stripe) over the original, which makes the copy, sets the flag and counts a transposition; with it set, the pass is the row consumer (part 5) over the copy, a cols x rows matrix (a block per 8 of its rows); keep x and y as given on every pass; avoid transposing again while the flag is set
  throw course::NotImplemented(__FILE__);
}

void FlaggedMatrix::multiply(const float* x, float* y) {
  // TODO: part 7 of 7, the row access: y = A x reads A along its rows, which is coalesced already: multiply_rows_kernel (part 5) over the original, rows x cols, whatever the flag says; it must neither make the copy nor read it
  throw course::NotImplemented(__FILE__);
}

}  // namespace ch01
