// The parts of chapter 4's exercises that a test checks on their own (course::register_part_test in
// test_coulomb.cpp): each is a small function of its step's file, written by the student as one
// part of that step, and exported here so that a wrong part fails a test that names it before the
// whole step's tests run. They run on the host, without a launch.
#pragma once

#include <vector>

namespace ch04::parts {

// Step 01, part 2 (01_constant_memory.cu, constant_chunks): the chunks in which count atoms go
// through constant memory, atoms_per_chunk at most each, in order: atoms [first, first + count),
// and whether the chunk's launch writes the output (the first) rather than adding to it.
struct ConstantChunk {
  int first, count;
  bool initialize;
};
std::vector<ConstantChunk> constant_chunks(int count, int atoms_per_chunk);

// Step 06, part 3 (06_split_pipes.cu, takes_fma_pipe): whether the specialised block whose warp
// holds warp slot `warp_slot` takes the FMA pipe, with fma_blocks of a multiprocessor's
// blocks_per_sm blocks on it (4 warps a block, one a scheduler).
bool takes_fma_pipe(unsigned warp_slot, int fma_blocks, int blocks_per_sm);

}  // namespace ch04::parts
