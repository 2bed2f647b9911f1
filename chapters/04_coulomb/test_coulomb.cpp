// Chapter 4 tests: every step against the float64 reference, within the error model of
// reference.hpp, on fresh random atoms, at grid sizes that are not multiples of a block (16 x
// 16 threads) or of the points a thread covers (128 or 256 along x, 64 along y), with atom
// counts of 0, 1, fewer than a constant-memory chunk (4096), exactly one, and several, planted
// atoms at the chunk and tile boundaries, a spacing that makes coordinates round; an atom on a
// grid point; step 06's three reciprocal square roots against 1/sqrt in float64; and the parts of
// steps 01 and 06 that can be checked alone (the chunk plan, the root on the FMA pipe, which points
// and which blocks take which pipe, seen through atoms planted on grid points).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/testing.hpp"
#include "parts.hpp"
#include "reference.hpp"
#include "steps.hpp"

namespace {

using course::DeviceBuffer;

struct Case {
  int nx, ny, atoms;
  float spacing = 0.5f;
  bool planted = false;  // atoms at the chunk and tile boundaries placed close above grid points
  std::string name() const {
    return std::to_string(nx) + "x" + std::to_string(ny) + "_" + std::to_string(atoms) + "_atoms" +
           (spacing != 0.5f ? "_spacing_" + std::to_string(int(spacing * 100)) : "") + (planted ? "_planted" : "");
  }
};

// Many atoms only on small grids: the CPU backend runs every evaluation as a fiber's work. A
// spacing of 0.5 makes the grid's coordinates exact; 0.37 makes them round.
const Case kCases[] = {
    {1, 1, 0},     {1, 1, 1},      {7, 5, 7},       {33, 17, 0},    {33, 17, 1},           {33, 17, 1000},
    {33, 17, 4096}, {33, 17, 4097}, {20, 3, 8193},   {130, 70, 300}, {300, 9, 1000},        {257, 33, 64},
    {300, 9, 4097}, {57, 19, 500, 0.37f},           {40, 12, 8193, 0.5f, true},
};

// Each atom at a boundary of a shared tile (256) or a constant-memory chunk (4096) sits half a
// spacing above its own grid point, where its term, 2/h, outweighs the rest: a step that drops
// or repeats it fails there.
void plant(std::vector<ch04::Atom>& atoms, const ch04::Slice& slice) {
  int point = 0;
  for (const int index : {0, 255, 256, 4095, 4096, 8191, 8192}) {
    if (index >= int(atoms.size())) continue;
    const int i = 1 + 5 * point % (slice.nx - 2), j = 1 + 3 * point % (slice.ny - 2);
    atoms[index] = {i * slice.spacing, j * slice.spacing, slice.z + 0.5f * slice.spacing, 1.0f};
    ++point;
  }
}

// `potential` of `atoms` on `slice`, run on the device into an output poisoned first.
std::vector<float> device_potential(ch04::PotentialFn potential, const std::vector<ch04::SliceAtom>& atoms,
                                    const ch04::Slice& slice) {
  DeviceBuffer<ch04::SliceAtom> d_atoms(std::max<std::size_t>(atoms.size(), 1));
  if (!atoms.empty()) d_atoms.copy_from(atoms);
  DeviceBuffer<float> d_out(std::size_t(slice.nx) * slice.ny);
  d_out.poison();
  potential(d_atoms.data(), int(atoms.size()), d_out.data(), slice);
  GPU_CHECK(gpuDeviceSynchronize());
  return d_out.to_host();
}

void test_step(ch04::PotentialFn potential, Case c, const course::Seed& seed) {
  const ch04::Slice slice{c.nx, c.ny, c.spacing, 1.25f};
  std::vector<ch04::Atom> raw = ch04::random_atoms(c.atoms, slice, seed);
  if (c.planted) plant(raw, slice);
  const std::vector<ch04::SliceAtom> atoms = ch04::atoms_on_slice(raw, slice.z);
  EXPECT_TRUE(course::matches_reference(ch04::check_potential(atoms, device_potential(potential, atoms, slice), slice)));
}

// An atom exactly on a grid point (here the coordinates are exact: h = 0.5) gives that point
// 1/0: inf from the hardware root, a large finite number (above 1e19) from step 06's root on the
// FMA pipe. Every other point is as usual.
void test_atom_on_a_grid_point(ch04::PotentialFn potential, const course::Seed& seed) {
  const ch04::Slice slice{33, 17, 0.5f, 1.25f};
  std::vector<ch04::Atom> raw = ch04::random_atoms(20, slice, seed);
  raw[7] = {3 * slice.spacing, 2 * slice.spacing, slice.z, 1.0f};
  const std::vector<ch04::SliceAtom> atoms = ch04::atoms_on_slice(raw, slice.z);
  const std::vector<float> out = device_potential(potential, atoms, slice);
  const std::size_t on_atom = 2 * slice.nx + 3;
  EXPECT_TRUE(std::isinf(out[on_atom]) || out[on_atom] > 1e19f) << "the point on the atom holds " << out[on_atom];
  course::Comparison others;
  others.extents = {std::size_t(slice.ny), std::size_t(slice.nx)};
  others.per_element_bounds = true;
  for (int j = 0; j < slice.ny; ++j)
    for (int i = 0; i < slice.nx; ++i) {
      const std::size_t index = std::size_t(j) * slice.nx + i;
      if (index == on_atom) continue;
      const ch04::ReferencePoint ref = ch04::reference_at(atoms, slice, i, j);
      others.check_within(index, out[index], ref.potential, ref.bound);
    }
  EXPECT_TRUE(course::matches_reference(others));
}

// Step 06's reciprocal square roots on the FMA pipe, over every float of [1, 4) (since the bit
// trick halves the exponent, that stands for every normal float) and at those mantissas scaled
// by powers of 4 across the range of squared distances. Returns the largest relative error.
double worst_relative_error(float (*root)(float), const char* name) {
  double worst = 0;
  float worst_at = 0;
  auto check = [&](float x) {
    const double error = std::abs(root(x) * std::sqrt(double{x}) - 1.0);
    if (!(error <= worst)) worst = error, worst_at = x;  // a NaN is kept as the worst
  };
  for (std::uint32_t bits = course::float_bits(1.0f); bits < course::float_bits(4.0f); ++bits)
    check(course::float_from_bits(bits));
  for (std::uint32_t bits = course::float_bits(1.0f); bits < course::float_bits(4.0f); bits += 997)
    for (const float scale : {0x1p-60f, 0x1p-20f, 0x1p-6f, 0x1p10f, 0x1p40f}) check(course::float_from_bits(bits) * scale);
  std::printf("step 06's %s: largest relative error %.3g (at x = %.9g)\n", name, worst, worst_at);
  return worst;
}

// A part test's mismatches, reported as one failure: the first on its first line (the grader
// shows that line), how many in all, and up to four more below.
class Mismatches {
 public:
  void add(const std::string& line) {
    if (count_ == 0) first_ = line;
    else if (count_ <= 4) more_ += "\n  " + line;
    ++count_;
  }
  ~Mismatches() {
    if (count_ > 0) ADD_FAILURE() << first_ << " [" << count_ << " mismatch(es) in all]" << more_;
  }

 private:
  int count_ = 0;
  std::string first_, more_;
};

const course::StepSource kStep01 = COURSE_STEP_SOURCE(01_constant_memory, constant_memory);
const course::StepSource kStep06 = COURSE_STEP_SOURCE(06_split_pipes, split_specialised_4_of_8_xu_priority);

// Step 01, part 2: the chunk plan, for counts around the chunk's size and its multiples.
void test_constant_chunks(const course::Seed&) {
  Mismatches wrong;
  for (const int per_chunk : {ch04::kConstantAtoms, 128, 1})
    for (const int count : {1, 2, per_chunk - 1, per_chunk, per_chunk + 1, 2 * per_chunk, 2 * per_chunk + 1, 100000, 0}) {
      if (count < 0 || (per_chunk == 1 && count > 1000)) continue;
      const std::vector<ch04::parts::ConstantChunk> plan = ch04::parts::constant_chunks(count, per_chunk);
      const int chunks = count == 0 ? 1 : (count + per_chunk - 1) / per_chunk;
      std::ostringstream where;
      where << count << " atoms in chunks of " << per_chunk << ": ";
      if (int(plan.size()) != chunks) {
        wrong.add(where.str() + std::to_string(plan.size()) + " chunk(s), expected " + std::to_string(chunks) +
                  (count == 0 ? " (with no atoms, one empty chunk, so that the output is still written)"
                              : " (every atom in one chunk: the last, shorter one holds the tail)"));
        continue;
      }
      for (int c = 0; c < chunks; ++c) {
        const ch04::parts::ConstantChunk& got = plan[c];
        const int first = c * per_chunk, n = std::min(per_chunk, count - first);
        if (got.first != first || got.count != n || got.initialize != (c == 0))
          wrong.add(where.str() + "chunk " + std::to_string(c) + " is {first " + std::to_string(got.first) + ", count " +
                    std::to_string(got.count) + ", initialize " + (got.initialize ? "true" : "false") + "}, expected {" +
                    std::to_string(first) + ", " + std::to_string(n) + ", " + (c == 0 ? "true" : "false") +
                    "} (consecutive chunks in order; only the first writes the output)");
      }
    }
}

// Step 06, part 1: the polynomial root, which the split kernels use, within the error the PTX ISA
// documents for the instruction it stands in for, rsqrt.approx.f32: 2^-22.9 relative.
void test_polynomial_root(const course::Seed&) {
  const double worst = worst_relative_error(ch04::rsqrt_on_fma_pipe, "polynomial root"), bound = std::exp2(-22.9);
  if (!(worst <= bound))
    ADD_FAILURE() << std::setprecision(3) << "rsqrt_fma_pipe's largest relative error against 1/sqrt in float64 is "
                  << worst << ", above the hardware instruction's 2^-22.9 = " << bound
                  << " (over every float in [1, 4) and those scaled by powers of 4; the line above names its x)";
}

// Step 06, part 3: the role of every warp slot of a multiprocessor of 8 blocks, for 0 to 8 blocks
// on the FMA pipe.
void test_roles(const course::Seed&) {
  constexpr int kBlocks = 8, kWarps = 4;
  Mismatches wrong;
  for (int fma_blocks = 0; fma_blocks <= kBlocks; ++fma_blocks)
    for (unsigned slot = 0; slot < kBlocks * kWarps; ++slot) {
      const int level = static_cast<int>(slot / kWarps);
      const bool expected = level >= kBlocks - fma_blocks;
      if (ch04::parts::takes_fma_pipe(slot, fma_blocks, kBlocks) != expected)
        wrong.add("warp slot " + std::to_string(slot) + " (block level " + std::to_string(level) + "), " +
                  std::to_string(fma_blocks) + " of 8 blocks on the FMA pipe: got the " + (expected ? "XU" : "FMA pipe") +
                  ", expected the " + (expected ? "FMA pipe" : "XU") + " (levels " + std::to_string(kBlocks - fma_blocks) +
                  " .. 7 take the FMA pipe, the lowest levels the XU)");
    }
}

// Atoms planted exactly on grid points (h = 0.5 makes every difference exact, so their squared
// distance is 0): the XU's root gives that point inf, the FMA pipe's a large finite number, so
// each planted point tells which pipe took its root. One atom every 16 columns and 8 rows covers
// every point of a thread and every row of a pass; 256 x 128 points make 8 stretches of the
// specialised kernels (128 x 32 points), 256 atoms one of its units of atoms.
struct PlantedSlice {
  ch04::Slice slice{256, 128, 0.5f, 1.25f};
  static bool planted(int i, int j) { return i % 16 == 3 && j % 8 == 5; }
};

// Runs `potential` on the planted slice; calls on_planted(i, j, on_fma_pipe) for every planted
// point, after checking it holds inf or a finite sum above 1e19.
template <class Check>
void run_planted(ch04::PotentialFn potential, Mismatches& wrong, Check&& on_planted) {
  const PlantedSlice planted;
  const ch04::Slice& slice = planted.slice;
  std::vector<ch04::Atom> raw;
  for (int j = 0; j < slice.ny; ++j)
    for (int i = 0; i < slice.nx; ++i)
      if (PlantedSlice::planted(i, j)) raw.push_back({i * slice.spacing, j * slice.spacing, slice.z, 1.0f});
  const std::vector<ch04::SliceAtom> atoms = ch04::atoms_on_slice(raw, slice.z);
  const std::vector<float> out = device_potential(potential, atoms, slice);
  for (int j = 0; j < slice.ny; ++j)
    for (int i = 0; i < slice.nx; ++i) {
      if (!PlantedSlice::planted(i, j)) continue;
      const float v = out[std::size_t(j) * slice.nx + i];
      if (!(std::isinf(v) && v > 0) && !(std::isfinite(v) && v > 1e19f)) {
        wrong.add("point (" + std::to_string(i) + ", " + std::to_string(j) + "), on an atom, holds " + std::to_string(v) +
                  ": expected inf (its root on the XU) or above 1e19 (on the FMA pipe): was it summed by no pass, or by two?");
        continue;
      }
      on_planted(i, j, std::isfinite(v));
    }
}

std::string pipe(bool fma) { return fma ? "the FMA pipe" : "the XU"; }

// Step 06, part 2: in the split kernels, a thread's first kSoftware points (row by row) take the
// FMA pipe: points i0 + 16 p of rows j0 + 16 r, numbered r * 8 + p.
void test_split_by_point(const course::Seed&) {
  struct Split {
    const char* name;
    ch04::PotentialFn potential;
    int rows, software;
  };
  const Split splits[] = {{"split_2_of_8", ch04::potential_split_2_of_8, 1, 2},
                          {"split_3_of_16", ch04::potential_split_3_of_16, 2, 3},
                          {"split_6_of_32", ch04::potential_split_6_of_32, 4, 6}};
  Mismatches wrong;
  for (const Split& split : splits)
    run_planted(split.potential, wrong, [&](int i, int j, bool on_fma) {
      const int p = i % 128 / 16, r = j % (16 * split.rows) / 16, number = r * 8 + p;
      const bool expected = number < split.software;
      if (on_fma != expected)
        wrong.add(std::string(split.name) + ": point (" + std::to_string(i) + ", " + std::to_string(j) +
                  "), the thread's point number " + std::to_string(number) + " (r * 8 + p): its root came from " +
                  pipe(on_fma) + ", expected " + pipe(expected) + " (the first " + std::to_string(split.software) +
                  " points of a thread take the FMA pipe)");
    });
}

// Step 06, part 5: in the taught kernel, a unit's points all take one pipe: on the FMA pipe in an
// FMA block, on the XU in the others. Where the backend has no warp slots, unit number u plays a
// block at level u % 8, so the role of each unit is known: here one unit a stretch, stretch
// (i / 128) + 2 (j / 32). With warp slots, which blocks take which unit is the hardware's choice:
// each stretch must then be of one kind.
void test_units_by_role(const course::Seed&) {
  Mismatches wrong;
  int kind_of_stretch[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  run_planted(ch04::potential_split_specialised_4_of_8_xu_priority, wrong, [&](int i, int j, bool on_fma) {
    const int stretch = i / 128 + 2 * (j / 32);
    std::string where = "point (" + std::to_string(i) + ", " + std::to_string(j) + "), unit " + std::to_string(stretch);
    if (!course::has_warp_slots) {
      const bool expected = stretch % 8 >= 4;
      if (on_fma != expected)
        wrong.add(where + ": its root came from " + pipe(on_fma) + ", expected " + pipe(expected) +
                  " (units 4 .. 7 of every 8 play the FMA blocks here; an FMA unit's passes put every root on the FMA "
                  "pipe, an XU unit none)");
    } else if (kind_of_stretch[stretch] < 0) {
      kind_of_stretch[stretch] = on_fma;
    } else if (kind_of_stretch[stretch] != int(on_fma)) {
      wrong.add(where + ": its root came from " + pipe(on_fma) + ", other points of its unit from " +
                pipe(!on_fma) + " (a unit is all FMA pipe or all XU)");
    }
  });
}

// Host code only: nothing to run again with shuffled threads.
const bool parts_on_host = course::suite_runs_on_host("ConstantChunkPlan") && course::suite_runs_on_host("FmaPipeRoot") &&
                           course::suite_runs_on_host("WarpRoles");

// Registered before the whole steps' tests, so that a wrong part's test fails first and the
// grader names the part.
const bool parts_registered = [] {
  course::register_part_test(kStep01, 2, "the chunk plan", "ConstantChunkPlan", "EveryAtomInOneChunkInOrder",
                             test_constant_chunks);
  course::register_part_test(kStep06, 1, "the root on the FMA pipe", "FmaPipeRoot",
                             "PolynomialIsWithinTheHardwareInstructionsError", test_polynomial_root);
  course::register_part_test(kStep06, 2, "the split by point", "RootsByPoint", "FirstPointsOfAThreadOnTheFmaPipe",
                             test_split_by_point);
  course::register_part_test(kStep06, 3, "the roles", "WarpRoles", "HighestLevelsOnTheFmaPipe", test_roles);
  course::register_part_test(kStep06, 5, "a unit's work by role", "UnitsByRole", "EveryRootOfAUnitOnItsPipe",
                             test_units_by_role);
  return true;
}();

const bool registered = [] {
  for (const ch04::Step& step : ch04::steps()) {
    for (const Case c : kCases)
      course::register_step_test(step.source, "Potential", step.source.id() + "/" + c.name(),
                                 [run = step.run, c](const course::Seed& seed) { test_step(run, c, seed); });
    course::register_step_test(step.source, "AtomOnAGridPoint", step.source.id(),
                               [run = step.run](const course::Seed& seed) { test_atom_on_a_grid_point(run, seed); });
  }
  return true;
}();

// The software roots are written in step 06's file, so grading step 06 runs these tests too.
const bool roots_are_step_06 =
    course::suite_tests_step("SoftwareRsqrt", COURSE_STEP_SOURCE(06_split_pipes, split_1_of_8));

// They run on the host: nothing to run again with shuffled threads.
const bool roots_run_on_host = course::suite_runs_on_host("SoftwareRsqrt");

// Three Newton steps, measured beside it: within rsqrtf's documented 2 ulp (2^-22 relative),
// not within the instruction's 2^-22.9.
TEST(SoftwareRsqrt, NewtonIsWithinRsqrtfsError) {
  SCOPED_TRACE(course::edit_hint(COURSE_STEP_SOURCE(06_split_pipes, split_1_of_8_newton)));
  EXPECT_LE(worst_relative_error(ch04::rsqrt_newton_on_fma_pipe, "Newton root"), 0x1p-22);
}

// The fitted (minimax) polynomial, one instruction cheaper, within the same 2^-22.9.
TEST(SoftwareRsqrt, MinimaxIsWithinTheHardwareInstructionsError) {
  SCOPED_TRACE(course::edit_hint(COURSE_STEP_SOURCE(06_split_pipes, split_6_of_32_minimax)));
  EXPECT_LE(worst_relative_error(ch04::rsqrt_minimax_on_fma_pipe, "minimax root"), std::exp2(-22.9));
}

}  // namespace
