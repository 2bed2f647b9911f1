// The parts of chapter 1's steps that a test runs alone (test_transpose.cpp registers those tests
// with course::register_part_test, so that the grader names the part that fails). Each is defined
// in its step's file, outside the code a student writes; "part k" is that file's
// "// TODO: part k of n". Matrices are row-major floats in device memory, as in steps.hpp.
#pragma once

#include <utility>

namespace ch01::parts {

// Step 02, parts 1 and 2, through tile_parts.cuh: the padded tile's load alone (out, rows x cols,
// must equal in) and its transposed store alone (out, cols x rows, must be in's transpose).
void shared_tile_load(const float* in, float* out, int rows, int cols);
void shared_tile_store(const float* in, float* out, int rows, int cols);

// Step 03. Part 3: consume_tile over every tile of A in turn, each tile filled by one thread;
// sums (cols x 32) gets lane l's sum of column c at sums[c * 32 + l]. Part 4: the transposing pass
// alone (y = A^T x, copy = A^T). Part 5: the row consumer alone, y = M v for an m_rows x m_cols M.
void flagged_consume(const float* a, const float* x, float* sums, int rows, int cols);
void flagged_transposing_pass(const float* a, const float* x, float* copy, float* y, int rows, int cols);
void flagged_multiply_rows(const float* m, const float* v, float* y, int m_rows, int m_cols);

// Step 04, parts 1 and 2, through tile_parts.cuh, as for step 02.
void rows_per_thread_load(const float* in, float* out, int rows, int cols);
void rows_per_thread_store(const float* in, float* out, int rows, int cols);

// Step 05, parts 1-4, through tile_parts.cuh: the float4 load and store (for matrices whose
// tiles all take float4s: rows and cols multiples of 64) and the scalar ones (any matrix).
void vector_tile_load_float4s(const float* in, float* out, int rows, int cols);
void vector_tile_load_scalars(const float* in, float* out, int rows, int cols);
void vector_tile_store_float4s(const float* in, float* out, int rows, int cols);
void vector_tile_store_scalars(const float* in, float* out, int rows, int cols);

// Step 06, part 1: the top-left element {row, col} of the tile that block (block_x, block_y)
// moves; part 2: the grid {x, y} for a rows x cols input.
std::pair<int, int> block_order_tile(unsigned block_x, unsigned block_y);
std::pair<unsigned, unsigned> block_order_blocks(int rows, int cols);

// Step 07, part 1: the split plan {rows per split, splits}; parts 2 and 3: the first kernel alone,
// its partial sums (splits x cols) for a given plan; part 4: the sum of the splits alone.
std::pair<int, int> split_rows_plan(int rows, int cols);
void split_rows_partials(const float* a, const float* x, float* partials, int rows, int cols, int rows_per_split);
void split_rows_sum_splits(const float* partials, float* y, int splits, int cols);

}  // namespace ch01::parts
