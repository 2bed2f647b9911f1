// Chapter 3 tests: every step against the float64 reference on fresh random input, at sizes that
// cut every tile, vector and z-chunk and at thin grids (dz < 2R + 1); the halo and padding of the
// output must stay untouched; and every step against a polynomial its differences are exact on.
// Before them, the parts of the exercises that can be checked alone (parts.hpp), each on the host,
// so that a wrong part fails a test that names it.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "copy_ceiling.hpp"
#include "course/testing.hpp"
#include "fdtd3d_peer.hpp"
#include "parts.hpp"
#include "steps.hpp"

namespace {

using ch03::Laplacian8;
using course::DeviceBuffer;
using course::Grid;

struct Size {
  int dx, dy, dz;
  std::string name() const { return std::to_string(dx) + "x" + std::to_string(dy) + "x" + std::to_string(dz); }
};

// The tiles: 64x4 threads of one float (steps 00-03) or of 4 floats (steps 03-04: 256 wide),
// 32x8 float4s (steps 04-10: 128 x 8 points, 128 x 16 with step 10's two rows a thread); the
// z-chunks: 64 planes (steps 02-05), 16, 64 or 256 (step 06), 64 to 512 (step 08), 64 and 128 (step 10). 1x1x1 is the degenerate grid; dz = 1, 2, 5 and 6 are thinner than the 9-point
// window; 131 and 258 cut the 128- and 256-wide tiles and leave 3 and 2 floats of a last float4;
// dz = 70 cuts the 16- and 64-plane chunks (and is one partial 256-plane chunk); dz = 515 cuts
// step 08's 128-, 256- and 512-plane chunks (and step 10's 128), 3 planes past a whole number of each; 3 x 70 puts
// the tile's y-halo past both ends and gets wider, unequal halos (grid_for).
constexpr std::array kSizes{Size{1, 1, 1},  Size{37, 29, 23}, Size{131, 9, 5},  Size{258, 3, 2},
                            Size{3, 70, 6}, Size{21, 11, 70}, Size{64, 16, 1}, Size{5, 4, 515}};

Grid grid_for(Size size, int align) {
  if (size.dx == 3) return course::make_grid(size.dx, size.dy, size.dz, 6, 5, 7, align);
  return course::make_grid(size.dx, size.dy, size.dz, ch03::kRadius, ch03::kRadius, ch03::kRadius, align);
}

// Runs a step (or a peer) on `in` (the whole array) and returns the whole output array, prepared
// by course::poison_grid first.
std::vector<float> run(ch03::LaplacianFn laplacian, const Grid& g, const std::vector<float>& in) {
  DeviceBuffer<float> d_in{std::span<const float>(in)}, d_out(in.size());
  course::poison_grid(d_out, g);
  laplacian(d_in.data(), d_out.data(), g);
  GPU_CHECK(gpuDeviceSynchronize());
  return d_out.to_host();
}

void test_random(const ch03::Step& step, Size size, const course::Seed& seed) {
  const Grid g = grid_for(size, step.align);
  const std::vector<float> in = course::random_floats(g.size, seed);
  const std::vector<float> out = run(step.run, g, in);
  EXPECT_TRUE(course::matches_reference(course::compare_with_reference<Laplacian8>(in, out, g, ch03::tolerance())));
  EXPECT_TRUE(course::halo_untouched(out, g));
}

// On a polynomial of degree 9 in each variable the 8th-order differences are exact: the result
// is the polynomial's Laplacian at every point (course::analytic_field, as in chapter 2).
void test_analytic(const ch03::Step& step, const course::Seed& seed) {
  const Grid g = grid_for({21, 13, 11}, step.align);  // small: the polynomial costs ~1000 terms a point
  const course::AnalyticField field = course::analytic_field<Laplacian8>(g, seed);
  EXPECT_TRUE(course::matches_reference(course::interior(run(step.run, g, field.in), g), field.expected, field.tolerance,
                                        g.interior_extents()));
}

// A step refuses a grid it cannot run on, before any launch: halos narrower than the radius, and,
// past step 00, rows not aligned to 64 floats. The buffers are real, so a step that does not
// refuse fails here, saying so, rather than crashing in whatever it calls.
void expect_refused(const ch03::Step& step, const Grid& g, const char* what) {
  DeviceBuffer<float> in(g.size), out(g.size);
  in.poison();
  try {
    step.run(in.data(), out.data(), g);
  } catch (const std::invalid_argument&) {
    return;
  }
  GPU_CHECK(gpuDeviceSynchronize());
  ADD_FAILURE() << step.source.id() << " did not refuse " << what << " (std::invalid_argument before any launch)";
}

void test_refuses_bad_layouts(const ch03::Step& step) {
  if (step.align > 1)
    expect_refused(step, course::make_grid(8, 8, 8, 4, 4, 4, 1), "a packed grid, rows not aligned to 64 floats");
  expect_refused(step, course::make_grid(8, 8, 8, 3, 4, 4, step.align), "a grid whose x-halo (3) is narrower than the radius (4)");
}

// --- the parts ---------------------------------------------------------------------------------

// The taught step of a step file ("08_async_ring"): its part tests name it.
const course::StepSource& taught(std::string_view file) {
  for (const ch03::Step& step : ch03::steps())
    if (step.source.file == file && !step.source.experiment) return step.source;
  throw std::logic_error("steps.hpp has no taught step in " + std::string(file));
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Reports at most a few mismatches of one part test, then how many there were.
class Mismatches {
 public:
  ~Mismatches() {
    if (count_ > kShown) ADD_FAILURE() << count_ << " mismatches in all (the first " << kShown << " above)";
  }
  std::ostream& add() {
    ++count_;
    message_.str("");
    return message_;
  }
  void flush() {
    if (count_ <= kShown) ADD_FAILURE() << message_.str();
  }
  int count() const { return count_; }

 private:
  static constexpr int kShown = 5;
  int count_ = 0;
  std::ostringstream message_;
};
#define CH03_MISMATCH(mismatches, what) \
  do {                                  \
    (mismatches).add() << what;         \
    (mismatches).flush();               \
  } while (0)

// A host copy of a random input grid; its floats start on a 16-byte boundary, as a float4 load needs.
std::vector<float> host_input(const Grid& g, const course::Seed& seed) {
  std::vector<float> in = course::random_floats(g.size, seed);
  if (reinterpret_cast<std::uintptr_t>(in.data()) % 16 != 0) throw std::runtime_error("host input not 16-byte aligned");
  return in;
}

// Step 04, part 1: the tile a block stages holds rows y0 - R .. y0 + kTileY + R - 1 of its plane,
// zeros past the array and past dx.
void test_y_tile(const course::Seed& seed) {
  Mismatches wrong;
  for (const Size size : {Size{131, 9, 5}, Size{3, 70, 6}, Size{258, 3, 2}}) {
    const Grid g = grid_for(size, 64);
    const std::vector<float> in = host_input(g, seed);
    for (int by = 0; by < int(course::blocks_for(g.dy, 8)); ++by)
      for (int bx = 0; bx < int(course::blocks_for(g.dx, 128)); ++bx)
        for (const int z : {0, g.dz - 1}) {
          const std::vector<float> tile = ch03::parts::shared_y_tile(in.data(), g, bx, by, z);
          for (int row = 0; row < ch03::parts::kYTileRows; ++row)
            for (int x = 0; x < ch03::parts::kYTileFloats; ++x) {
              const int x0 = bx * 128 + x / 4 * 4, y = by * 8 - ch03::kRadius + row;
              const bool in_array = x0 < g.dx && y < g.dy + ch03::kRadius;
              const float expected = in_array ? in[g.at(x0 + x % 4, y, z)] : 0.0f;
              const float got = tile[row * ch03::parts::kYTileFloats + x];
              if (!same_bits(got, expected))
                CH03_MISMATCH(wrong, size.name() << ", block (" << bx << ", " << by << "), plane " << z << ": tile row " << row
                                                 << ", float4 column " << x / 4 << ", lane " << x % 4 << " holds " << got
                                                 << (std::isnan(got) ? " (never written)" : "") << ", expected "
                                                 << (in_array ? "row y0 - R + " + std::to_string(row) + " of the plane, "
                                                              : std::string("0 (past the array), "))
                                                 << expected);
            }
        }
  }
}

// Step 07, part 1: what a thread fetches of a plane, a plane ahead of its use.
void test_prefetched_plane(const course::Seed& seed) {
  Mismatches wrong;
  auto expect = [&](const std::string& where, const char* what, const float (&got)[4], const std::vector<float>& in,
                    const Grid& g, bool in_array, int x, int y, int z) {
    for (int i = 0; i < 4; ++i) {
      const float expected = in_array ? in[g.at(x + i, y, z)] : 0.0f;
      if (!same_bits(got[i], expected))
        CH03_MISMATCH(wrong, where << ": " << what << " lane " << i << " holds " << got[i]
                                   << (std::isnan(got[i]) ? " (not loaded)" : "") << ", expected "
                                   << (in_array ? "in(" + std::to_string(x + i) + ", " + std::to_string(y) + ", " + std::to_string(z) + ") = "
                                                : std::string("0 (past the array) "))
                                   << expected);
    }
  };
  for (const Size size : {Size{131, 9, 70}, Size{3, 70, 6}}) {
    const Grid g = grid_for(size, 64);
    const std::vector<float> in = host_input(g, seed);
    for (const int z_begin : {0, 64}) {
      if (z_begin >= g.dz) continue;
      const int z_end = std::min(g.dz, z_begin + 64);
      for (int by = 0; by < int(course::blocks_for(g.dy, 8)); ++by)
        for (int bx = 0; bx < int(course::blocks_for(g.dx, 128)); ++bx)
          for (const int tx : {0, 1, 31})
            for (int ty = 0; ty < 8; ++ty)
              for (const int p : {z_begin - ch03::kRadius, z_begin, z_end - 1, z_end, z_end + ch03::kRadius - 1}) {
                const int x0 = (bx * 32 + tx) * 4, y0 = by * 8, y = y0 + ty;
                const bool inside = x0 < g.dx && y < g.dy;
                const ch03::parts::PrefetchedPlane got = ch03::parts::prefetched_plane(in.data(), g, bx, by, tx, ty, z_begin, p);
                const std::string where = size.name() + ", block (" + std::to_string(bx) + ", " + std::to_string(by) + "), thread (" +
                                          std::to_string(tx) + ", " + std::to_string(ty) + "), chunk from plane " +
                                          std::to_string(z_begin) + ", plane " + std::to_string(p);
                if (p >= z_begin && p < z_end) {
                  for (int k = 0; k < 2; ++k) {
                    const int row = y0 - ch03::kRadius + ty + k * 8;
                    expect(where, k == 0 ? "rows[0] (tile row threadIdx.y)" : "rows[1] (tile row threadIdx.y + kTileY)", got.rows[k],
                           in, g, x0 < g.dx && row < g.dy + ch03::kRadius, x0, row, p);
                  }
                  if (inside) {
                    expect(where, "left (the R floats before x0)", got.left, in, g, true, x0 - ch03::kRadius, y, p);
                    expect(where, "right (the R floats after the thread's 4)", got.right, in, g, true, x0 + 4, y, p);
                  }
                } else if (inside) {
                  expect(where, "centre (a z-halo plane: only the centre)", got.centre, in, g, true, x0, y, p);
                }
              }
    }
  }
}

// Step 08, part 1: the copies of a block's haloed tile, each from its row and column.
void test_ring_copy_plan(const course::Seed&) {
  using ch03::parts::kRingTileWidth;
  constexpr int kCopies = kRingTileWidth * ch03::parts::kRingTileHeight;
  Mismatches wrong;
  // 192 wide: the second block's right x-halo lies past the row (pitch - lead = 256 floats).
  for (const Size size : {Size{192, 9, 5}, Size{131, 9, 5}, Size{3, 70, 6}}) {
    const Grid g = grid_for(size, 64);
    for (int by = 0; by < int(course::blocks_for(g.dy, 8)); ++by)
      for (int bx = 0; bx < int(course::blocks_for(g.dx, 128)); ++bx) {
        const int x_left = bx * 128 - ch03::kRadius, y_top = by * 8 - ch03::kRadius;
        for (int copy = 0; copy < 3 * ch03::parts::kRingThreads; ++copy) {
          const ch03::parts::RingCopy plan = ch03::parts::ring_copy(copy, x_left, y_top, g);
          std::ostringstream where;
          where << size.name() << ", block (" << bx << ", " << by << "), copy " << copy;
          if (copy >= kCopies) {
            if (plan.valid) CH03_MISMATCH(wrong, where.str() << ": valid, but the tile has only " << kCopies << " float4s");
            continue;
          }
          const int row = copy / kRingTileWidth, column = copy % kRingTileWidth;
          const int x = x_left + 4 * column, y = y_top + row;
          where << " (tile row " << row << ", float4 column " << column << ", from x = " << x << ", y = " << y << ")";
          const bool in_rows = y < g.dy + ch03::kRadius && x + 4 <= g.pitch - g.lead;
          const bool centre = row >= ch03::kRadius && row < ch03::kRadius + 8 && column >= 1 && column <= 32;
          if (plan.valid != in_rows)
            CH03_MISMATCH(wrong, where.str() << ": valid is " << plan.valid << ", but its source lies "
                                             << (in_rows ? "in the array's rows" : "past the array (y >= dy + R or x + 4 > pitch - lead)"));
          if (plan.centre != centre)
            CH03_MISMATCH(wrong, where.str() << ": centre is " << plan.centre << ", but it is "
                                             << (centre ? "" : "not ") << "one of the 8 x 32 centres (rows R .. R + 7, columns 1 .. 32)");
          if (plan.valid && in_rows && plan.offset != row * g.pitch + 4 * column)
            CH03_MISMATCH(wrong, where.str() << ": offset " << plan.offset << " floats from the tile's corner, expected "
                                             << row * g.pitch + 4 * column << " (row x pitch + 4 x column)");
        }
      }
  }
}

// Step 08, part 2: the ring of partial sums, run on one column of numbers as the kernel runs it.
void test_partial_sums(const course::Seed& seed) {
  constexpr int R = ch03::kRadius, kSums = 2 * R + 1;
  Mismatches wrong;
  for (int k = 0; k < kSums; ++k) {
    const double expected = (k == R ? 3 : 1) * course::second_derivative(R, R - k);
    if (std::abs(ch03::parts::ring_centre_weight(k) - expected) > 1e-6)
      CH03_MISMATCH(wrong, "centre_weight(" << k << ") = " << ch03::parts::ring_centre_weight(k) << ", expected " << expected
                                           << (k == R ? " (3 x weight(0): the centre of the x, y and z differences)"
                                                      : " (weight(R - k): plane p lies R - k planes from out(p - R + k))"));
  }
  constexpr int kSteps = 4 * kSums + 3;  // planes 0 .. kSteps - 1, outputs 0 .. kSteps - 2R - 1
  int slot_of[kSteps];
  for (int& slot : slot_of) slot = -1;
  const std::vector<float> c = course::random_floats(kSteps, seed);
  float sums[kSums] = {};
  std::vector<float> out(kSteps - 2 * R, 0.0f);
  for (int s = 0; s < kSteps; ++s) {
    const int j = s % kSums;
    for (int k = 0; k < kSums; ++k) {
      const int slot = ch03::parts::ring_sum_slot(j, k), output = s - 2 * R + k;  // out(p - R + k), p = s
      if (slot < 0 || slot >= kSums) {
        CH03_MISMATCH(wrong, "sum_slot(" << j << ", " << k << ") = " << slot << ": not a slot of the 9");
        return;
      }
      if (output >= 0 && output < kSteps) {
        if (slot_of[output] >= 0 && slot_of[output] != slot)
          CH03_MISMATCH(wrong, "out(" << output << ") moves from sums[" << slot_of[output] << "] to sums[" << slot << "] at step " << s
                                      << " (sum_slot(" << j << ", " << k << ")): an output keeps its slot from its first term to its store");
        slot_of[output] = slot;
      }
      const float w = ch03::parts::ring_centre_weight(k);
      sums[slot] = k == 2 * R ? w * c[s] : sums[slot] + w * c[s];
    }
    if (s >= 2 * R) out[s - 2 * R] = sums[ch03::parts::ring_sum_slot(j, 0)];
  }
  for (int q = 0; q < int(out.size()); ++q) {
    double expected = 2 * course::second_derivative(R, 0) * c[q + R];  // the x and y centre terms ride on the centre
    for (int r = -R; r <= R; ++r) expected += course::second_derivative(R, r) * c[q + R + r];
    if (std::abs(out[q] - expected) > 1e-5 * (1 + std::abs(expected)))
      CH03_MISMATCH(wrong, "the ring run on one column: out(" << q << ") = " << out[q] << ", expected " << expected
                                                           << " (its 9 z terms and the x and y centre terms)");
  }
}

// Step 10, part 1: the three boxes of a plane of a block's tile, in array coordinates, for the
// taught variant's split layout and for the one-box variant (the other branch of tile_boxes).
void test_tensor_boxes(const course::Seed&) {
  using namespace ch03::parts;
  constexpr int R = ch03::kRadius;
  struct Layout {
    const char* name;
    TileBoxes (*boxes)(const Grid&, int, int, int, int);
    int rows, planes;  // output rows and z-planes a block; both layouts are 128 floats wide
    bool split;
  };
  const Layout layouts[] = {{"the taught variant (split boxes)", tensor_ring_boxes, kTensorTileRows, kTensorPlanes, true},
                            {"tensor_ring_one_box", tensor_ring_one_box_boxes, kOneBoxTileRows, kOneBoxPlanes, false}};
  Mismatches wrong;
  for (const Layout& layout : layouts)
    for (const Size size : {Size{131, 9, 5}, Size{3, 70, 6}, Size{258, 40, 300}}) {
      const Grid g = grid_for(size, 64);
      for (int bz = 0; bz < int(course::blocks_for(g.dz, layout.planes)); ++bz)
        for (int by = 0; by < int(course::blocks_for(g.dy, layout.rows)); ++by)
          for (int bx = 0; bx < int(course::blocks_for(g.dx, kTensorTileFloats)); ++bx)
            for (const int s : {0, R, 2 * R + 1}) {
              const TileBoxes got = layout.boxes(g, bx, by, bz, s);
              const int x = g.lead + bx * kTensorTileFloats, y = g.hy + by * layout.rows - R, z = g.hz + bz * layout.planes - R + s;
              const int rows = layout.rows + 2 * R;
              const Box centre = layout.split ? Box{x, y, z, kTensorTileFloats, rows} : Box{x - R, y, z, kTensorTileFloats + 2 * R, rows};
              const Box expected[3] = {centre, {x - R, y, z, 4, rows}, {x + kTensorTileFloats, y, z, 4, rows}};
              const char* names[3] = {"centre", "left", "right"};
              const char* meaning[3] = {layout.split ? "the block's 128 interior floats, from the first, which starts a 128-byte line"
                                                     : "the whole haloed tile: the block's 128 interior floats and R more on each side",
                                        "the 4 floats of x-halo before the centre", "the 4 floats of x-halo after the centre"};
              const Box* boxes[3] = {&got.centre, &got.left, &got.right};
              for (int b = 0; b < 3; ++b) {
                const Box& box = *boxes[b];
                const Box& want = expected[b];
                if (box.x != want.x || box.y != want.y || box.z != want.z || box.width != want.width || box.height != want.height)
                  CH03_MISMATCH(wrong, layout.name << ", " << size.name() << ", block (" << bx << ", " << by << ", " << bz
                                                   << "), plane step " << s << ": the " << names[b] << " box is at (" << box.x << ", "
                                                   << box.y << ", " << box.z << "), " << box.width << " x " << box.height << "; expected ("
                                                   << want.x << ", " << want.y << ", " << want.z << "), " << want.width << " x "
                                                   << want.height << ": " << meaning[b]
                                                   << ", rows from the block's first less R, plane z_begin - R + s, in array coordinates");
              }
            }
    }
}

const bool parts_on_host = course::suite_runs_on_host("YTile") && course::suite_runs_on_host("PrefetchPlane") &&
                           course::suite_runs_on_host("RingCopyPlan") && course::suite_runs_on_host("PartialSums") &&
                           course::suite_runs_on_host("TensorBoxes");

// Registered before the whole steps' tests, so that a wrong part's test fails first and the
// grader names the part.
const bool parts_registered = [] {
  course::register_part_test(taught("04_shared_y"), 1, "the tile load", "YTile", "StagesItsRowsAndZerosPastTheArray", test_y_tile);
  course::register_part_test(taught("07_prefetch"), 1, "the fetch", "PrefetchPlane", "LoadsWhatThePlaneNeeds", test_prefetched_plane);
  course::register_part_test(taught("08_async_ring"), 1, "the copy plan", "RingCopyPlan", "EveryCopyFromItsRowAndColumn",
                             test_ring_copy_plan);
  course::register_part_test(taught("08_async_ring"), 2, "the ring of sums", "PartialSums", "OneColumnThroughTheRing",
                             test_partial_sums);
  course::register_part_test(taught("10_tensor_ring"), 1, "the boxes", "TensorBoxes", "CentreAndSidesOfEachPlane", test_tensor_boxes);
  return true;
}();

// --- the steps -------------------------------------------------------------------------------------

const bool registered = [] {
  for (const ch03::Step& step : ch03::steps()) {
    course::register_step_test(step.source, "BadLayout", step.source.id(),
                               [&step](const course::Seed&) { test_refuses_bad_layouts(step); });
    for (const Size size : kSizes)
      course::register_step_test(step.source, "Laplacian", step.source.id() + "/" + size.name(),
                                 [&step, size](const course::Seed& seed) { test_random(step, size, seed); });
    course::register_step_test(step.source, "AnalyticField", step.source.id(),
                               [&step](const course::Seed& seed) { test_analytic(step, seed); });
  }
  return true;
}();

// The benchmark's structural copies (copy_ceiling.hpp) leave exactly the input in the interior,
// at every size the steps are tested at, and the halo untouched.
class CopyCeiling : public course::DeviceTest {};

TEST_F(CopyCeiling, CopiesTheInteriorThroughEachStructure) {
  const course::Seed seed = course::fresh_seed();
  SCOPED_TRACE(seed.describe());
  for (const auto copy : {ch03::copy_through_prefetch, ch03::copy_through_async_ring, ch03::copy_through_prefetch_at_step_occupancy,
                          ch03::copy_through_async_ring_at_step_occupancy}) {
    for (const Size size : kSizes) {
      SCOPED_TRACE(size.name());
      const Grid g = grid_for(size, 64);
      const std::vector<float> in = course::random_floats(g.size, seed);
      DeviceBuffer<float> d_in{std::span<const float>(in)}, d_out(in.size());
      course::poison_grid(d_out, g);
      copy(d_in.data(), d_out.data(), g);
      GPU_CHECK(gpuDeviceSynchronize());
      const std::vector<float> out = d_out.to_host();
      EXPECT_EQ(course::interior(out, g), course::interior(in, g));
      EXPECT_TRUE(course::halo_untouched(out, g));
    }
  }
}

// The benchmark's FDTD3d peer (fdtd3d_peer.hpp) computes what the steps compute, at their sizes.
class Fdtd3dDesign : public course::DeviceTest {};

TEST_F(Fdtd3dDesign, MatchesTheReferenceAndLeavesTheHalo) {
  const course::Seed seed = course::fresh_seed();
  SCOPED_TRACE(seed.describe());
  for (const Size size : kSizes) {
    SCOPED_TRACE(size.name());
    const Grid g = grid_for(size, 64);
    const std::vector<float> in = course::random_floats(g.size, seed);
    const std::vector<float> out = run(ch03::laplacian_fdtd3d_design, g, in);
    EXPECT_TRUE(course::matches_reference(course::compare_with_reference<Laplacian8>(in, out, g, ch03::tolerance())));
    EXPECT_TRUE(course::halo_untouched(out, g));
  }
}

const bool layout_runs_on_host = course::suite_runs_on_host("Layout");

TEST(Layout, AlignedRowsStartOn256ByteBoundaries) {
  const Grid g = course::make_grid(37, 5, 3, 4, 4, 4, 64);
  EXPECT_EQ(g.pitch % 64, 0);
  for (int y = -g.hy; y < g.dy + g.hy; ++y) EXPECT_EQ(g.at(0, y, 1) % 64, 0);
}

}  // namespace
