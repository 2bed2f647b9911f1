// Chapter 6 tests: every step on 1 to 4 ranks with slabs of unequal thickness (R planes, between
// R and 2R, more than 2R), from fresh random fields whose halos are poisoned, against the
// float64 leapfrog; the exact standing mode to round-off; the leapfrog's energy conserved from a
// Ricker pulse; the refusals: a slab thinner than the halo, step 00 on several ranks; and what a
// GPU would hang on, failing in one line instead: an exchange of sends and receives outside a
// group (the CPU backend), a rank that fails while the others wait for it.
// The ranks are threads, or, started by mpirun -np N, N processes: then each process builds and
// checks its own slab against the reference, the layouts of N ranks run and the others skip.
// On the CPU backend each thread is on a device of its own, and NCCL runs in process (across
// processes over MPI); the stream work of each rank runs in an order shuffled by COURSE_CPU_SHUFFLE.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "course/testing.hpp"
#include "steps.hpp"

namespace {

using ch06::Needs;
using ch06::Problem;
using ch06::Team;

// Each leapfrog step over the whole grid in the tests: two calls of advance(), an odd number of
// steps in all, so that the state ends in the other buffer and advance() starts from either.
constexpr int kFirstSteps = 2, kMoreSteps = 3, kSteps = kFirstSteps + kMoreSteps;

// Slabs, bottom to top: with 3 ranks one slab is exactly R = 4 planes (no interior), with 2 and
// 4 one is between R and 2R; 131 points cut the kernel's 128-wide tile and its last float4, 9
// rows its 8-row tile.
struct Layout {
  std::vector<int> slabs;
  int nx = 131, ny = 9;
  std::string name() const {
    std::string text = std::to_string(slabs.size()) + "_ranks";
    for (int thickness : slabs) text += "_" + std::to_string(thickness);
    return text;
  }
  Problem problem() const { return {nx, ny, std::accumulate(slabs.begin(), slabs.end(), 0)}; }
};
const std::vector<Layout> kLayouts{{{13}}, {{5, 9}}, {{4, 11, 6}}, {{7, 4, 9, 5}}};

bool as_processes() { return ch06::launch() == ch06::Launch::processes; }

// Why this run's MPI processes cannot each have a device of this machine, if they cannot (every
// process decides alike, so none waits in a collective for one that skipped).
std::optional<std::string> more_processes_than_devices() {
  int devices = 0;
  GPU_CHECK(gpuGetDeviceCount(&devices));
  if (ch06::launched_processes() <= devices) return std::nullopt;
  return std::to_string(ch06::launched_processes()) + " MPI processes on a machine of " + std::to_string(devices) +
         " devices: one process a device";
}

// Why `step` cannot run on `ranks` ranks here, if it cannot.
std::optional<std::string> cannot_run(const ch06::Step& step, int ranks) {
  if (as_processes() && ranks != ch06::launched_processes())
    return std::to_string(ranks) + " ranks, and this run has " + std::to_string(ch06::launched_processes()) +
           " MPI processes (mpirun -np " + std::to_string(ranks) + " runs it)";
  if (as_processes())
    if (const auto why = more_processes_than_devices()) return why;
  if (step.source.file == "02_peer_copies")
    if (auto why = ch06::device_memory_not_shareable()) return why;
  if (step.needs != Needs::nccl) return std::nullopt;
  if (const auto& reason = course::nccl_unavailable_reason()) return *reason;
  int devices = 0;
  GPU_CHECK(gpuGetDeviceCount(&devices));
  if (ranks > devices)
    return "NCCL needs a device per rank: " + std::to_string(ranks) + " ranks, " + std::to_string(devices) + " devices here";
  return std::nullopt;
}

Team team_for(const ch06::Step& step, const Problem& problem, const std::vector<int>& slabs) {
  return Team(problem, slabs, step.needs == Needs::nccl ? ch06::Communicator::nccl : ch06::Communicator::none);
}

std::vector<double> widen(const std::vector<float>& values) { return {values.begin(), values.end()}; }

std::vector<std::size_t> extents(const Problem& p) { return {std::size_t(p.nz), std::size_t(p.ny), std::size_t(p.nx)}; }

// The newest and the older field on the planes this process holds against their expected
// values on the whole grid.
void expect_state(const Team& team, const std::vector<double>& newest, const std::vector<double>& older,
                  course::Tolerance tolerance) {
  const Problem& p = team.problem();
  const ch06::Planes held = team.held_planes();
  const std::size_t plane = std::size_t(p.nx) * p.ny;
  const auto part = [&](const std::vector<double>& whole) {
    return std::vector<double>(whole.begin() + held.begin * plane, whole.begin() + held.end * plane);
  };
  const std::vector<std::size_t> shape{std::size_t(held.end - held.begin), std::size_t(p.ny), std::size_t(p.nx)};
  SCOPED_TRACE("the state after " + std::to_string(kSteps) + " steps, u(n) then u(n-1), planes " +
               std::to_string(held.begin) + " to " + std::to_string(held.end - 1));
  EXPECT_TRUE(course::matches_reference(team.newest(), part(newest), tolerance, shape));
  EXPECT_TRUE(course::matches_reference(team.older(), part(older), tolerance, shape));
}

void test_random(const ch06::Step& step, const Layout& layout, const course::Seed& drawn) {
  if (const auto reason = cannot_run(step, int(layout.slabs.size()))) GTEST_SKIP() << *reason;
  const Problem p = layout.problem();
  const std::size_t points = std::size_t(p.nx) * p.ny * p.nz;
  Team team = team_for(step, p, layout.slabs);
  const course::Seed seed{team.from_rank_0(drawn.value)};  // every process draws the same fields
  if (seed.value != drawn.value) SCOPED_TRACE("rank 0's " + seed.describe());
  const std::vector<float> u = course::random_floats(points, seed, 0), previous = course::random_floats(points, seed, 1);
  team.set_state(u, previous);
  {
    ch06::Crew crew(team, step.make);
    crew.advance(kFirstSteps);
    crew.advance(kMoreSteps);
  }
  std::vector<double> newest = widen(u), older = widen(previous);
  ch06::reference_steps(p, newest, older, kSteps);
  expect_state(team, newest, older, ch06::tolerance(kSteps, 1.0));
}

// A random standing mode, exactly cos(n theta) times itself after n steps.
void test_standing_mode(const ch06::Step& step, const std::vector<int>& slabs, const course::Seed& seed) {
  if (const auto reason = cannot_run(step, int(slabs.size()))) GTEST_SKIP() << *reason;
  const Problem p{37, 11, std::accumulate(slabs.begin(), slabs.end(), 0)};
  Team team = team_for(step, p, slabs);
  std::mt19937_64 pick(team.from_rank_0(seed.value));
  const auto wave_number = [&](int n) { return 1 + int(pick() % (n / 2)); };
  const ch06::StandingMode mode{wave_number(p.nx), wave_number(p.ny), wave_number(p.nz)};
  SCOPED_TRACE("mode (" + std::to_string(mode.mx) + ", " + std::to_string(mode.my) + ", " + std::to_string(mode.mz) + ")");
  team.set_standing_mode(mode);
  {
    ch06::Crew crew(team, step.make);
    crew.advance(kFirstSteps);
    crew.advance(kMoreSteps);
  }
  const double theta = mode.theta(p);
  std::vector<double> newest, older;
  for (int z = 0; z < p.nz; ++z)
    for (int y = 0; y < p.ny; ++y)
      for (int x = 0; x < p.nx; ++x) {
        newest.push_back(std::cos(kSteps * theta) * mode.value(p, x, y, z));
        older.push_back(std::cos((kSteps - 1) * theta) * mode.value(p, x, y, z));
      }
  expect_state(team, newest, older, ch06::tolerance(kSteps, 1.0));
}

// From a Ricker pulse at rest, the leapfrog's energy after the steps is the energy before, to
// the rounding of the float fields it is computed from.
void test_energy(const ch06::Step& step, const std::vector<int>& slabs, const course::Seed&) {
  if (const auto reason = cannot_run(step, int(slabs.size()))) GTEST_SKIP() << *reason;
  const Problem p{24, 20, std::accumulate(slabs.begin(), slabs.end(), 0)};
  std::vector<float> pulse;
  for (const double value : ch06::ricker_pulse(p, 2.5)) pulse.push_back(static_cast<float>(value));
  Team team = team_for(step, p, slabs);
  team.set_state(pulse, pulse);
  {
    ch06::Crew crew(team, step.make);
    crew.advance(kFirstSteps);
    crew.advance(kMoreSteps);
  }
  const double before = ch06::energy(p, widen(pulse), widen(pulse));
  const double after = ch06::energy(p, widen(team.whole(team.newest())), widen(team.whole(team.older())));
  EXPECT_NEAR(after, before, 1e-6 * before) << "the energy of the field changed by " << (after - before) / before
                                            << " of itself in " << kSteps << " steps";
}

const bool registered = [] {
  for (const ch06::Step& step : ch06::steps()) {
    const std::vector<int> unequal = step.needs == Needs::one_rank ? std::vector<int>{19} : std::vector<int>{4, 9, 6};
    for (const Layout& layout : kLayouts) {
      if (step.needs == Needs::one_rank && layout.slabs.size() > 1) continue;
      course::register_step_test(step.source, "Leapfrog", step.source.id() + "/" + layout.name(),
                                 [&step, layout](const course::Seed& seed) { test_random(step, layout, seed); });
    }
    course::register_step_test(step.source, "StandingMode", step.source.id(),
                               [&step, unequal](const course::Seed& seed) { test_standing_mode(step, unequal, seed); });
    course::register_step_test(step.source, "Energy", step.source.id(),
                               [&step, unequal](const course::Seed& seed) { test_energy(step, unequal, seed); });
  }
  return true;
}();

// The portable kernel, which leapfrog() runs where there is no tensor memory accelerator (HIP,
// NVIDIA before sm_90), checked on its own here, where the steps run the tensor-copy ring: one
// step on one slab of 37 planes (its blocks walk 32) whose rows and columns cut its tiles.
void test_portable_kernel(const course::Seed& seed) {
  if (as_processes() && ch06::launched_processes() != 1) GTEST_SKIP() << "one rank: mpirun -np 1 runs it";
  const Problem p{131, 21, 37};
  const std::size_t points = std::size_t(p.nx) * p.ny * p.nz;
  const std::vector<float> u = course::random_floats(points, seed, 0), previous = course::random_floats(points, seed, 1);
  Team team(p, {p.nz});
  team.set_state(u, previous);
  team.run([&](int rank) {
    ch06::Slab& slab = team.slab(rank);
    const ch06::Grid& g = slab.grid;
    ch06::Stream stream;
    float* now = slab.field[slab.current];
    const std::size_t bytes = ch06::halo_floats(g) * sizeof(float);
    ch06::wrap_xy(now, g, ch06::all_planes(g), stream);
    GPU_CHECK(gpuMemcpyAsync(ch06::below_halo(now, g), ch06::top_planes(now, g), bytes, gpuMemcpyDeviceToDevice, stream));
    GPU_CHECK(gpuMemcpyAsync(ch06::above_halo(now, g), ch06::bottom_planes(now, g), bytes, gpuMemcpyDeviceToDevice, stream));
    ch06::leapfrog_portable(now, slab.field[1 - slab.current], g, p.courant2, ch06::all_planes(g), stream);
    GPU_CHECK(gpuStreamSynchronize(stream));
    slab.current = 1 - slab.current;
  });
  std::vector<double> newest = widen(u), older = widen(previous);
  ch06::reference_steps(p, newest, older, 1);
  EXPECT_TRUE(course::matches_reference(team.newest(), newest, ch06::tolerance(1, 1.0), extents(p)));
}
const bool portable_registered = [] {
  course::register_device_test("PortableKernel", "OneStepMatchesTheReference", test_portable_kernel);
  return true;
}();

// Step 00 is the one-GPU program: on two ranks it refuses, in one line, before any launch.
class OneGpu : public course::DeviceTest {};
const bool one_gpu_counted = course::suite_tests_step("OneGpu", ch06::steps()[0].source);
const bool one_gpu_on_host = course::suite_runs_on_host("OneGpu");

TEST_F(OneGpu, RefusesTwoRanks) {
  if (as_processes()) GTEST_SKIP() << "a test of the ranks as threads (one process)";
  Team team(Problem{16, 16, 16}, {8, 8});
  EXPECT_THROW(ch06::Crew(team, ch06::steps()[0].make), std::invalid_argument);
}

// The decomposition's refusals, each in one line.
class Decomposition : public course::DeviceTest {};
const bool decomposition_on_host = course::suite_runs_on_host("Decomposition");

std::string refusal(const Problem& problem, const std::vector<int>& slabs, ch06::Communicator communicator) {
  try {
    Team team(problem, slabs, communicator);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST_F(Decomposition, RefusesASlabThinnerThanTheHalo) {
  const std::string why = refusal(Problem{16, 16, 13}, {10, 3}, ch06::Communicator::none);
  EXPECT_NE(why.find("rank 1's slab would be 3 planes thick, thinner than the halo (4 planes)"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << "one line";
}

TEST_F(Decomposition, RefusesAGridNarrowerThanTheHalo) {
  const std::string why = refusal(Problem{3, 16, 8}, {8}, ch06::Communicator::none);
  EXPECT_NE(why.find("need at least 4 points (the halo) each way"), std::string::npos) << why;
}

TEST_F(Decomposition, RefusesSlabsThatDoNotAddUpToTheGrid) {
  EXPECT_NE(refusal(Problem{16, 16, 20}, {8, 8}, ch06::Communicator::none).find("add up to 16 planes, not the grid's 20"),
            std::string::npos);
}

TEST_F(Decomposition, NcclRefusesMoreRanksThanDevices) {
  if (const auto& reason = course::nccl_unavailable_reason()) GTEST_SKIP() << *reason;
  if (as_processes()) GTEST_SKIP() << "a test of the ranks as threads (one process)";
  int devices = 0;
  GPU_CHECK(gpuGetDeviceCount(&devices));
  const std::string why = refusal(Problem{8, 8, 4 * (devices + 1)}, std::vector<int>(devices + 1, 4), ch06::Communicator::nccl);
  EXPECT_NE(why.find("NCCL needs a device per rank"), std::string::npos) << why;
}

TEST_F(Decomposition, AsProcessesRefusesASlabCountOtherThanTheProcessCount) {
  if (!as_processes()) GTEST_SKIP() << "a test of the ranks as MPI processes (mpirun -np N)";
  const int slabs = ch06::launched_processes() + 1;
  const std::string why = refusal(Problem{8, 8, 4 * slabs}, std::vector<int>(slabs, 4), ch06::Communicator::none);
  EXPECT_NE(why.find("slabs for " + std::to_string(slabs - 1) + " MPI processes"), std::string::npos) << why;
}

TEST_F(Decomposition, EvenSplitsDifferByAtMostOnePlane) {
  EXPECT_EQ(Team::even_split(1024, 8), std::vector<int>(8, 128));
  EXPECT_EQ(Team::even_split(10, 4), (std::vector<int>{3, 3, 2, 2}));
}

// What a GPU hangs on fails here, in one line.
class Hangs : public course::DeviceTest {};
const bool hangs_on_host = course::suite_runs_on_host("Hangs");

// The ranks' halo exchange as NCCL calls outside a group: each rank's send waits for a receive
// its neighbour posts only after its own send, so none goes on, on a GPU or here.
TEST_F(Hangs, AnExchangeOutsideAGroupIsADeadlockNamingTheCall) {
#if !defined(COURSE_BACKEND_CPU)
  GTEST_SKIP() << "on a GPU this exchange hangs: it is the CPU backend that detects it";
#endif
  if (as_processes()) GTEST_SKIP() << "a test of the ranks as threads (one process)";
  Team team(Problem{16, 8, 12}, {4, 4, 4}, ch06::Communicator::nccl);
  std::string failure;
  try {
    team.run([&](int rank) {
      ch06::Slab& slab = team.slab(rank);
      const ch06::Grid& g = slab.grid;
      float* v = slab.field[0];
      ch06::Stream stream;
      GPU_CHECK(ncclSend(ch06::top_planes(v, g), ch06::halo_floats(g), ncclFloat, slab.up(), team.comm(rank), stream));
      GPU_CHECK(ncclRecv(ch06::below_halo(v, g), ch06::halo_floats(g), ncclFloat, slab.down(), team.comm(rank), stream));
      GPU_CHECK(gpuStreamSynchronize(stream));
    });
  } catch (const std::runtime_error& error) {
    failure = error.what();
  }
  EXPECT_NE(failure.find("deadlock"), std::string::npos) << failure;
  EXPECT_NE(failure.find("in ncclSend to rank 1 at "), std::string::npos) << failure;
  EXPECT_NE(failure.find("test_multi_gpu.cpp"), std::string::npos) << "names where the call was made: " << failure;
  EXPECT_EQ(failure.find('\n'), std::string::npos) << "one line";
}

// A rank that fails before its part of an exchange: the others, waiting in NCCL for it, fail
// too (its communicator aborted), and the run ends with its one line, not after a timeout.
TEST_F(Hangs, ARankThatFailsEndsTheRunOfTheOthers) {
#if !defined(COURSE_BACKEND_CPU)
  if (!as_processes())
    GTEST_SKIP() << "with NCCL on GPUs the ranks as threads do not free each other's waits (run them as MPI processes)";
#endif
  if (as_processes() && ch06::launched_processes() != 2) GTEST_SKIP() << "mpirun -np 2 runs it as processes";
  if (as_processes())
    if (const auto why = more_processes_than_devices()) GTEST_SKIP() << *why;
  Team team(Problem{16, 8, 8}, {4, 4}, ch06::Communicator::nccl);
  const auto start = std::chrono::steady_clock::now();
  std::string failure;
  try {
    team.run([&](int rank) {
      if (rank == 1) throw std::runtime_error("rank 1 fails on purpose");
      ch06::Stream stream;
      ch06::exchange_nccl(team.slab(rank), team.slab(rank).field[0], team.comm(rank), stream);
      GPU_CHECK(gpuStreamSynchronize(stream));
    });
  } catch (const std::runtime_error& error) {
    failure = error.what();
  }
  EXPECT_EQ(failure, "rank 1 fails on purpose");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20)) << "the waiting rank was freed at once";
}

}  // namespace
