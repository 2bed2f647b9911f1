// The pieces of chapter 2's steps that are checked on their own. Each is a part of a step file
// that the student writes ("// TODO: part 2 of 3, ..."), run here by a small kernel of that file
// that does nothing else, so that test_stencil.cpp can compare what the piece produced with what
// it must produce; course::register_part_test then names the part when it is wrong, before the
// whole step's tests run. Each step file defines its functions below for every operator.
#pragma once

#include "stencils.hpp"

namespace ch02::parts {

// A block's haloed tile: the outputs it computes and the tile it reads for them, halo included.
// Block (bx, by)'s tile starts at x = bx * outputs_x - left, y = by * outputs_y - top.
struct Tile {
  int outputs_x, outputs_y;  // outputs of a block along x and y
  int left, top;             // tile columns left of its outputs, rows above them
  int width, height;         // the tile, halo included
};

// Step 03, part 1 (the tile load): plane z of every block's tile as load_tile leaves it in shared
// memory, block (bx, by)'s at tiles + (by * blocks_x + bx) * width * height, row by row.
template <class Stencil> Tile tile_03();
template <class Stencil> void tile_load_03(const float* in, float* tiles, const Grid& grid, int z);
// Step 03, parts 2 and 3 (the queue): at each interior point (x, y), the value slot q holds there,
// in seen[q * grid.size + grid.at(x, y, z)]: after priming at z = -1 (slots 1 .. 2rz), then after
// each advance to output plane z = 0 .. dz-1 (every slot).
template <class Stencil> void queue_03(const float* in, float* seen, const Grid& grid);

// Step 04, part 1 (the plane load): the same for load_plane, the patent's reshaped thread block.
template <class Stencil> Tile tile_04();
template <class Stencil> void plane_load_04(const float* in, float* tiles, const Grid& grid, int z);

// Step 05, part 1 (add the window): plane p's window added into 2rz+1 zeroed running sums, sum q
// of the interior point (x, y) in sums[q * grid.size + grid.at(x, y, 0)].
template <class Stencil> void window_05(const float* in, float* sums, const Grid& grid, int p);

// Step 06, part 1 (fetch into registers): plane z's tile as fetch_plane leaves it in each thread's
// registers, each staged value copied out where its pass read it; part 2 (publish): the tile as
// publish_plane leaves it in shared memory, from values staged by a plain loop. Both for the
// taught variant, 2 rows a thread.
template <class Stencil> Tile tile_06();
template <class Stencil> void fetch_06(const float* in, float* tiles, const Grid& grid, int z);
template <class Stencil> void publish_06(const float* in, float* tiles, const Grid& grid, int z);

// Step 08, part 1 (the interior test): whether the kernel takes block (bx, by)'s tile, of the
// shape tile_08 gives, as lying inside the array (its loads then skip the bounds test).
template <class Stencil> Tile tile_08();
template <class Stencil> bool tile_inside_08(int bx, int by, const Grid& grid);

// A tile copied 16 bytes at a time (steps 10 and 11): copy c is row c / (width / vector), floats
// vector * (c % (width / vector)) onwards; `copies` of them make the tile.
struct CopiedTile {
  Tile tile;
  int vector;  // floats per copy
  int copies;  // height * width / vector
};
// One copy of a block's plan: where it comes from, in floats from the tile's corner within a plane,
// and whether it is made (an invalid copy reads nothing and writes zeros).
struct Copy {
  int offset;
  bool valid;
};
// Step 10, part 1 (the copy plan): the plan of copy `copy` of block (bx, by), as the kernel makes it.
template <class Stencil> CopiedTile copied_tile_10();
template <class Stencil> Copy copy_10(int copy, int bx, int by, const Grid& grid);

// Step 11, part 2 (the copy plan for wide rows): the same for step 11's shape.
template <class Stencil> CopiedTile copied_tile_11();
template <class Stencil> Copy copy_11(int copy, int bx, int by, const Grid& grid);

}  // namespace ch02::parts
