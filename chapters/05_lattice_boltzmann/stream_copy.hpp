// The fused steps' memory structure without their arithmetic: each cell's nine values read from
// the nine planes of a structure of arrays and written to another, as steps 04-08 move them,
// with no neighbour shifts and no physics. The benchmark times it at each element width as the
// ceiling those steps could reach: a step below it loses to its instructions, not to its bytes.
#pragma once

#include <cstdint>

#include "lbm.hpp"

namespace ch05 {

// `steps` passes, src -> dst then back, for values of 4 bytes (float32) or 2 (16-bit storage),
// one cell a thread; 2-byte values two cells a thread, as 4-byte words (nx must be even), or four,
// as 8-byte words (nx a multiple of 4); and 2-byte values two cells a thread as two 2-byte
// accesses a block apart: the pairs' bytes in flight a thread at the one-cell word width.
void stream_copy_f32(float* a, float* b, const Channel& channel, int steps);
void stream_copy_16bit(std::uint16_t* a, std::uint16_t* b, const Channel& channel, int steps);
void stream_copy_16bit_pairs(std::uint16_t* a, std::uint16_t* b, const Channel& channel, int steps);
void stream_copy_16bit_quads(std::uint16_t* a, std::uint16_t* b, const Channel& channel, int steps);
void stream_copy_16bit_two_a_thread(std::uint16_t* a, std::uint16_t* b, const Channel& channel, int steps);

}  // namespace ch05
