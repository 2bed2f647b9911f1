// The parts of chapter 3's exercises that a test checks on their own (course::register_part_test in
// test_seismic.cpp): each is a small function of its step's file, written by the student as one
// part of that step, and exported here so that a wrong part fails a test that names it before the
// whole step's tests run. They run on the host: the same source the kernels inline, checked
// without a launch, in milliseconds.
#pragma once

#include <vector>

#include "seismic.hpp"

namespace ch03::parts {

// Step 04, part 1 (04_shared_y.cu, stage_y_tile): the tile that block (block_x, block_y)'s 32 x 8
// threads stage from plane z: 16 rows of 32 float4, as 16 x 128 floats, row after row. Elements
// no thread writes keep the poison (quiet NaN bits 0xffffffff).
inline constexpr int kYTileRows = 16, kYTileFloats = 128;
std::vector<float> shared_y_tile(const float* in, const Grid& g, int block_x, int block_y, int z);

// Step 07, part 1 (07_prefetch.cu, fetch_plane): what thread (tx, ty) of block (block_x, block_y)
// loads of plane p for the chunk of planes that starts at z_begin (64 planes), with float4s.
// Members the fetch does not write keep the poison.
struct PrefetchedPlane {
  float rows[2][4];   // inside the chunk: its two rows of the plane's y tile
  float left[4], right[4];  // inside the chunk and the interior: its x neighbours, R floats each side
  float centre[4];    // outside the chunk (a z-halo plane) and inside the interior: its own float4
};
PrefetchedPlane prefetched_plane(const float* in, const Grid& g, int block_x, int block_y, int tx, int ty, int z_begin, int p);

// Step 08, part 1 (08_async_ring.cu, ring_copy): copy number `copy` of a block's haloed tile, 34
// float4 wide (32 and one of x-halo each side) and 16 rows tall, 544 copies over 256 threads. The
// copy fills the tile's float4 number `copy`, row after row; `offset` is where it comes from, in
// floats from the tile's corner (x_left, y_top) of the plane; `valid`: the source row is one the
// stencil reaches (y < dy + R) and its float4 ends within the row (else the copy fills zeros);
// `centre`: it is one of the 8 x 32 centres, all that a z-halo plane needs.
struct RingCopy {
  int offset;
  bool valid, centre;
};
inline constexpr int kRingTileWidth = 34, kRingTileHeight = 16, kRingThreads = 256;
RingCopy ring_copy(int copy, int x_left, int y_top, const Grid& g);

// Step 08, part 2 (08_async_ring.cu, sum_slot and centre_weight): at a plane step whose position in
// the loop unrolled by 9 is j, the partial sum of out(p - R + k) is sums[sum_slot(j, k)], and plane
// p's centre adds centre_weight(k) times itself to it (k = 0 .. 2R).
int ring_sum_slot(int j, int k);
float ring_centre_weight(int k);

// Step 10, part 1 (10_tensor_ring.cu, tile_boxes): the boxes the taught variant copies for plane
// step s of block (block_x, block_y, block_z): the tile's centre and its two x-halos, in array
// coordinates (x in floats from the start of a row, y in rows, z in planes, halos and padding
// included), each with its width in floats and its height in rows.
struct Box {
  int x, y, z, width, height;
};
struct TileBoxes {
  Box centre, left, right;
};
inline constexpr int kTensorTileFloats = 128, kTensorTileRows = 16;  // the outputs of a block: 128 x 16 points
inline constexpr int kTensorPlanes = 128;                            // z-planes a block
TileBoxes tensor_ring_boxes(const Grid& g, int block_x, int block_y, int block_z, int s);
// The same for the one-box variant (tensor_ring_one_box: one output row a thread, 64 planes a
// block): its centre box is the whole haloed tile, R floats wider on each side; its side boxes keep
// the split layout's places and sizes (nothing copies them).
inline constexpr int kOneBoxTileRows = 8, kOneBoxPlanes = 64;  // the outputs of a block: 128 x 8 points
TileBoxes tensor_ring_one_box_boxes(const Grid& g, int block_x, int block_y, int block_z, int s);

}  // namespace ch03::parts
