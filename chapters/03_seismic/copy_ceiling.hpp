// The true ceiling of the one-pass structures: the same loads as a step, and out = in at the
// centre instead of the stencil's arithmetic. What separates such a copy from the device copy is
// the memory structure (halo re-reads, the tile's schedule, its occupancy); what separates the
// step from its copy is the arithmetic and the registers it holds.
#pragma once

#include "seismic.hpp"

namespace ch03 {

// Step 07's loads: per plane, two tile rows and the x neighbours (or, in the z-halo, the centre)
// fetched into registers one plane ahead, staged through a shared tile of 128 x 16 points.
void copy_through_prefetch(const float* in, float* out, const Grid& grid);
// Step 08's loads: a ring of 3 haloed tiles (128 + 8 floats x 8 + 8 rows) filled by cp.async two
// planes ahead, the z-halo planes' centres only.
void copy_through_async_ring(const float* in, float* out, const Grid& grid);

// The same two copies held to steps 07's and 08's occupancy: kStepBlocks blocks of 256 threads per
// multiprocessor (results/h200/resources.csv: their 120 and 101 registers allow 2, 24% of the
// warps, where the copies' 40 registers allow 5-6). They tell the structure apart from the
// occupancy: a copy that keeps its rate at 2 blocks leaves the steps' registers blameless.
inline constexpr int kStepBlocks = 2;
void copy_through_prefetch_at_step_occupancy(const float* in, float* out, const Grid& grid);
void copy_through_async_ring_at_step_occupancy(const float* in, float* out, const Grid& grid);

}  // namespace ch03
