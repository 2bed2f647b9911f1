// The parts of chapter 5's exercises that a test checks on their own (course::register_part_test in
// test_lbm.cpp): each is a small function of its step's file, written by the student as one part
// of that step, and exported here so that a wrong part fails a test that names it before the
// whole step's tests run. They run on the host: the same source the kernels inline, checked
// without a launch, in milliseconds.
#pragma once

#include <cstdint>

#include "lbm.hpp"

namespace ch05::parts {

// Step 05, part 1 (05_in_place.cu, neighbour): the neighbour (to_x, to_y) of cell (x, y) along
// direction k's velocity times `sign` (+1 downwind, -1 upwind), x periodic (y too without walls);
// false where it is behind a wall (to_y then outside 0 .. ny - 1).
bool aa_neighbour(int x, int y, int k, int sign, const Channel& c, int& to_x, int& to_y);

// Step 06, parts 1 and 2 (06_half_storage.cu, load_value and store_value): a distribution of
// direction k as step 06 stores it in fp16 (f - w_k rounded to the nearest fp16 number, its bits),
// and the distribution those bits stand for.
std::uint16_t fp16_stored(float f, int k);
float fp16_loaded(std::uint16_t bits, int k);

// Step 09, part 1 (09_pairs.cu, half_of): cell p's value out of the word of a row of pairs that
// holds it (word p / 2: cells p and p + 1 for an even p, the even one in the low half).
std::uint16_t pair_half(std::uint32_t word, int p);

// Step 10, part 1 (10_stochastic_rounding.cu, round_stochastically): `value` rounded to one of its
// two neighbouring fp16 (bf16) numbers by the draw `random`; `kept` gets the number as a float,
// the return value its bits.
std::uint16_t fp16_round_stochastically(float value, std::uint32_t random, float& kept);
std::uint16_t bf16_round_stochastically(float value, std::uint32_t random, float& kept);

// Step 10, parts 2 and 3 (10_stochastic_rounding.cu, store_cell): a cell's nine stored values
// (`stored`, the bits of slots 0 .. 8) from its collided shifted values (collided[1 .. 8], and
// collided[0], what the collision formula gives the rest direction), the sum of its shifted
// values before the collision, and the state of its draws (cell_hash of the cell and time step).
void fp16_store_cell(const float (&collided)[kDirections], float sum, std::uint32_t random, std::uint16_t (&stored)[kDirections]);
void bf16_store_cell(const float (&collided)[kDirections], float sum, std::uint32_t random, std::uint16_t (&stored)[kDirections]);

// Step 13, parts 1 and 2 (13_pairs_stochastic.cu, straddled_pair, quad_from_west and
// quad_from_east): the values of the cells x0 - e_x .. that straddle two words of a row. A pair:
// the high half of `west` and the low half of `east`, the word after it. A quad (e_x = 1 or -1):
// `own` (cells x0 .. x0 + 3, lane i cell x0 + i) shifted by a lane, the lane it lacks from
// `other`, the word before own for e_x = 1, after it for e_x = -1.
std::uint32_t straddled_pair(std::uint32_t west, std::uint32_t east);
std::uint64_t straddled_quad(std::uint64_t own, std::uint64_t other, int ex);

}  // namespace ch05::parts
