// Chapter 6 tests: the parts of the exercises that can be checked alone (parts.hpp: each exchange
// against the halos it must fill, step 03's plan of messages, step 04's two halves, and its order
// of streams under many orders of their work), each naming its part; every step on 1 to 4 ranks
// with slabs of unequal thickness (R planes, between R and 2R, more than 2R), from fresh random
// fields whose halos are poisoned, against the float64 leapfrog (the benchmark's two experiments
// on step 04's exchange too, under many orders of their streams' work); the exact standing mode to
// round-off; the leapfrog's energy conserved from a Ricker pulse; the refusals: a slab thinner
// than the halo, step 00 on several ranks; and what a GPU would hang on, failing in one line
// instead: an exchange of sends and receives outside a group (the CPU backend), a rank that fails
// while the others wait for it.
// The ranks are threads, or, started by mpirun -np N, N processes: then each process builds and
// checks its own slab against the reference, the layouts of N ranks run and the others skip.
// On the CPU backend each thread is on a device of its own, and NCCL runs in process (across
// processes over MPI); the stream work of each rank runs in an order shuffled by COURSE_CPU_SHUFFLE.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "course/testing.hpp"
#include "parts.hpp"
#include "peers.hpp"
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
  if (step.source.variant.find("peer_copies") != std::string_view::npos)  // step 02 and the experiment on its pulls
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

// --- the parts, each checked alone: a wrong part fails here, naming it, before the step's tests --

const ch06::Step& step_named(const std::string& file) {
  for (const ch06::Step& step : ch06::steps())
    if (step.source.file == file) return step;
  throw std::logic_error("chapter 6 has no step " + file);
}

// The interior points of R whole planes laid out as in grid g (a halo, or a host buffer of planes
// copied from one), x fastest.
std::vector<float> planes_interior(const float* planes, const ch06::Grid& g) {
  std::vector<float> points;
  for (int z = 0; z < ch06::kRadius; ++z)
    for (int y = 0; y < g.dy; ++y)
      for (int x = 0; x < g.dx; ++x) points.push_back(planes[g.at(x, y, z - g.hz)]);
  return points;
}

std::vector<float> device_planes_interior(const float* planes, const ch06::Grid& g) {
  std::vector<float> host(ch06::halo_floats(g));
  GPU_CHECK(gpuMemcpy(host.data(), planes, host.size() * sizeof(float), gpuMemcpyDeviceToHost));
  return planes_interior(host.data(), g);
}

// What a slab's below (or above) halo must hold: the R planes of the whole field u under its
// first plane (over its last), periodically.
std::vector<double> halo_planes(const Problem& p, const std::vector<float>& u, const ch06::Slab& slab, bool above) {
  const std::size_t plane = std::size_t(p.nx) * p.ny;
  std::vector<double> planes;
  for (int i = 0; i < ch06::kRadius; ++i) {
    const int z = ((above ? slab.z0 + slab.grid.dz + i : slab.z0 - ch06::kRadius + i) % p.nz + p.nz) % p.nz;
    planes.insert(planes.end(), u.begin() + z * plane, u.begin() + (z + 1) * plane);
  }
  return planes;
}

const char* halo_name(bool above) {
  return above ? "the above halo: the R planes over the slab, the rank above's bottom planes"
               : "the below halo: the R planes under the slab, the rank below's top planes";
}

std::vector<std::size_t> halo_extents(const Problem& p) { return {std::size_t(ch06::kRadius), std::size_t(p.ny), std::size_t(p.nx)}; }

// Field 0 of every rank holds random planes, its halos poisoned; `exchange(team, rank)` runs on
// every rank's thread at once; then `check(slab, u)` for each rank this process holds, u the
// whole grid's field 0.
using Exchange = std::function<void(Team&, int rank)>;
using ExchangeCheck = std::function<void(const ch06::Slab&, const std::vector<float>& u)>;
void test_exchange(const ch06::Step& step, const Layout& layout, const course::Seed& drawn, const Exchange& exchange,
                   const ExchangeCheck& check) {
  if (const auto reason = cannot_run(step, int(layout.slabs.size()))) GTEST_SKIP() << *reason;
  const Problem p = layout.problem();
  Team team = team_for(step, p, layout.slabs);
  const course::Seed seed{team.from_rank_0(drawn.value)};
  const std::size_t points = std::size_t(p.nx) * p.ny * p.nz;
  const std::vector<float> u = course::random_floats(points, seed, 0);
  team.set_state(u, course::random_floats(points, seed, 1));
  team.run([&](int rank) { exchange(team, rank); });
  for (const int rank : team.held()) {
    SCOPED_TRACE("rank " + std::to_string(rank) + " of " + std::to_string(layout.slabs.size()));
    check(team.slab(rank), u);
  }
}

// Both halos of a slab's field 0 against the planes next to it.
void expect_halos(const Problem& p, const ch06::Slab& slab, const std::vector<float>& u) {
  for (const bool above : {false, true}) {
    SCOPED_TRACE(halo_name(above));
    float* halo = above ? ch06::above_halo(slab.field[0], slab.grid) : ch06::below_halo(slab.field[0], slab.grid);
    EXPECT_TRUE(course::matches_reference(device_planes_interior(halo, slab.grid), halo_planes(p, u, slab, above), {},
                                          halo_extents(p)));
  }
}

// Step 01's four pinned host buffers for one rank, poisoned (NaN) before the exchange.
struct StagedPlanes {
  explicit StagedPlanes(const ch06::Grid& g) {
    for (float*& planes : buffers) {
      GPU_CHECK(gpuMallocHost(&planes, ch06::halo_floats(g) * sizeof(float)));
      std::fill_n(planes, ch06::halo_floats(g), std::numeric_limits<float>::quiet_NaN());
    }
  }
  ~StagedPlanes() {
    for (float* planes : buffers) ch06::report_if_failed(gpuFreeHost(planes), "gpuFreeHost");
  }
  StagedPlanes(const StagedPlanes&) = delete;
  StagedPlanes& operator=(const StagedPlanes&) = delete;
  std::array<float*, 4> buffers{};
};

// Step 01's exchange_through_host alone, checked as far as its part `part`: 1, nothing the
// neighbours received is the poison of buffers never filled; 2, each received buffer holds the
// planes next to the slab; 3, so do the halos.
void test_host_staging_part(int part, const Layout& layout, const course::Seed& seed) {
  const Problem p = layout.problem();
  std::vector<std::unique_ptr<StagedPlanes>> staged(layout.slabs.size());
  const auto exchange = [&](Team& team, int rank) {
    const ch06::Slab& slab = team.slab(rank);
    staged[rank] = std::make_unique<StagedPlanes>(slab.grid);
    ch06::Stream stream;
    ch06::parts::exchange_through_host(team, slab, slab.field[0], staged[rank]->buffers, stream);
  };
  const auto check = [&](const ch06::Slab& slab, const std::vector<float>& u) {
    for (const bool above : {false, true}) {
      const float* received = staged[slab.rank]->buffers[above ? ch06::parts::kAbove : ch06::parts::kBelow];
      const std::vector<float> planes = planes_interior(received, slab.grid);
      const std::string buffer = above ? "staged[kAbove] (from the rank above)" : "staged[kBelow] (from the rank below)";
      if (part == 1) {
        const auto poisoned = std::count_if(planes.begin(), planes.end(), [](float v) { return std::isnan(v); });
        if (poisoned != 0)
          ADD_FAILURE() << buffer << " holds " << poisoned << " NaN, the poison the test filled every buffer with: the "
                        << "planes were exchanged before the copies to the host had run (no wait for the stream?), "
                        << "or were never copied there";
      } else if (part == 2) {
        SCOPED_TRACE(buffer + ": the R planes " + (above ? "over" : "under") + " the slab");
        EXPECT_TRUE(course::matches_reference(planes, halo_planes(p, u, slab, above), {}, halo_extents(p)));
      }
    }
    if (part == 3) expect_halos(p, slab, u);
  };
  test_exchange(step_named("01_host_staging"), layout, seed, exchange, check);
}

// Step 02's pulls alone: each rank's field 0 halos from its neighbours' windows.
void test_pulls(const Layout& layout, const course::Seed& seed) {
  const Problem p = layout.problem();
  const auto exchange = [](Team& team, int rank) {
    const ch06::Slab& slab = team.slab(rank);
    ch06::Event computed[2]{ch06::Event(true), ch06::Event(true)};
    const Team::Window mine{{slab.field[0], slab.field[1]}, {computed[0], computed[1]}, slab.device, slab.grid};
    const std::array<Team::Window, 2> neighbours = team.open_neighbours(rank, mine);
    ch06::Stream stream;
    ch06::parts::pull_halos(slab, 0, neighbours, stream);
    GPU_CHECK(gpuStreamSynchronize(stream));
    team.barrier();  // every rank's pulls are done before any rank's events go
  };
  test_exchange(step_named("02_peer_copies"), layout, seed, exchange,
                [&](const ch06::Slab& slab, const std::vector<float>& u) { expect_halos(p, slab, u); });
}

// Step 03's plan on slabs of every rank (host memory standing in for their fields): NCCL's
// pairing, the k-th send from rank A to rank B with B's k-th receive from A, played out, must put
// the rank below's top planes into every below halo and the rank above's bottom planes into
// every above halo, and leave no message unmatched.
void test_halo_plan(const Layout& layout) {
  const Problem p = layout.problem();
  const int ranks = int(layout.slabs.size());
  std::vector<ch06::Slab> slabs(ranks);
  std::vector<std::vector<float>> fields(ranks);
  std::map<const float*, std::string> names;
  for (int r = 0, z0 = 0; r < ranks; z0 += layout.slabs[r], ++r) {
    ch06::Slab& slab = slabs[r];
    slab.rank = r;
    slab.ranks = ranks;
    slab.z0 = z0;
    slab.grid = ch06::slab_grid(p, layout.slabs[r]);
    fields[r].resize(slab.grid.size);
    float* v = slab.field[0] = fields[r].data();
    const std::string rank = "rank " + std::to_string(r) + "'s ";
    names[ch06::top_planes(v, slab.grid)] = rank + "top planes";
    names[ch06::bottom_planes(v, slab.grid)] = rank + "bottom planes";
    names[ch06::below_halo(v, slab.grid)] = rank + "below halo";
    names[ch06::above_halo(v, slab.grid)] = rank + "above halo";
  }
  const auto name = [&](const float* planes) {
    const auto found = names.find(planes);
    return found != names.end() ? found->second : std::string("an address that is none of the slabs' R-plane blocks");
  };
  const auto valid_peer = [&](const ch06::parts::Message& message, int rank) {
    if (message.peer >= 0 && message.peer < ranks) return true;
    ADD_FAILURE() << "rank " << rank << "'s message of " << name(message.planes) << " names rank " << message.peer
                  << ", not one of the " << ranks << " ranks";
    return false;
  };
  std::map<std::pair<int, int>, std::vector<const float*>> sent;  // (from, to): the planes, in order
  std::vector<ch06::parts::HaloMessages> plans;
  for (int r = 0; r < ranks; ++r) {
    plans.push_back(ch06::parts::halo_messages(slabs[r], slabs[r].field[0]));
    for (const ch06::parts::Message& send : plans[r].sends)
      if (valid_peer(send, r)) sent[{r, send.peer}].push_back(send.planes);
  }
  for (int r = 0; r < ranks; ++r) {
    const ch06::Slab& slab = slabs[r];
    const ch06::Slab &below = slabs[slab.down()], &above = slabs[slab.up()];
    std::map<const float*, const float*> wanted{
        {ch06::below_halo(slab.field[0], slab.grid), ch06::top_planes(below.field[0], below.grid)},
        {ch06::above_halo(slab.field[0], slab.grid), ch06::bottom_planes(above.field[0], above.grid)}};
    for (const ch06::parts::Message& receive : plans[r].receives) {
      if (!valid_peer(receive, r)) continue;
      std::vector<const float*>& queue = sent[{receive.peer, r}];
      const auto want = wanted.find(receive.planes);
      if (want == wanted.end()) {
        ADD_FAILURE() << "rank " << r << " receives into " << name(receive.planes)
                      << ": each receive goes into one of its two halos, each halo once";
      } else if (queue.empty()) {
        ADD_FAILURE() << "rank " << r << "'s receive into its " << name(receive.planes) << " from rank " << receive.peer
                      << " meets no send from that rank: NCCL would wait for it forever";
      } else {
        if (queue.front() != want->second)
          ADD_FAILURE() << "rank " << r << "'s " << name(receive.planes).substr(name(receive.planes).find("'s ") + 3)
                        << " would receive " << name(queue.front()) << ", not " << name(want->second)
                        << " (NCCL pairs the k-th send from a rank with the k-th receive from it)";
        queue.erase(queue.begin());
        wanted.erase(want);
      }
    }
  }
  for (const auto& [pair, left] : sent)
    for (const float* planes : left)
      ADD_FAILURE() << "rank " << pair.first << "'s send of " << name(planes) << " to rank " << pair.second
                    << " meets no receive: NCCL would wait for it forever";
}

// Step 03's exchange alone, on the NCCL communicators of a team.
void test_nccl_exchange(const Layout& layout, const course::Seed& seed) {
  const Problem p = layout.problem();
  const auto exchange = [](Team& team, int rank) {
    ch06::Slab& slab = team.slab(rank);
    ch06::Stream stream;
    ch06::exchange_nccl(slab, slab.field[0], team.comm(rank), stream);
    GPU_CHECK(gpuStreamSynchronize(stream));
  };
  test_exchange(step_named("03_nccl"), layout, seed, exchange,
                [&](const ch06::Slab& slab, const std::vector<float>& u) { expect_halos(p, slab, u); });
}

// A one-rank slab's halos as step 00 fills them: x and y from the periodic images, z from its
// own far planes.
void fill_own_halos(float* v, const ch06::Grid& g, gpuStream_t stream) {
  const std::size_t bytes = ch06::halo_floats(g) * sizeof(float);
  ch06::wrap_xy(v, g, ch06::all_planes(g), stream);
  GPU_CHECK(gpuMemcpyAsync(ch06::below_halo(v, g), ch06::top_planes(v, g), bytes, gpuMemcpyDeviceToDevice, stream));
  GPU_CHECK(gpuMemcpyAsync(ch06::above_halo(v, g), ch06::bottom_planes(v, g), bytes, gpuMemcpyDeviceToDevice, stream));
}

// Step 04's half (update_boundary, or update_interior) alone on one rank's slab of `thickness`
// planes, u's halos filled: the half's planes hold the leapfrog's step with their x and y halos
// wrapped; every other plane keeps u(n-1) and its halos their poison.
void test_half(bool boundary, int thickness, const course::Seed& seed) {
  if (as_processes() && ch06::launched_processes() != 1) GTEST_SKIP() << "a test of one rank (mpirun -np 1 runs it)";
  const Problem p{131, 9, thickness};
  const std::size_t points = std::size_t(p.nx) * p.ny * p.nz;
  const std::vector<float> u = course::random_floats(points, seed, 0), previous = course::random_floats(points, seed, 1);
  Team team(p, {thickness});
  team.set_state(u, previous);
  team.run([&](int rank) {
    ch06::Slab& slab = team.slab(rank);
    ch06::Stream stream;
    fill_own_halos(slab.field[0], slab.grid, stream);
    (boundary ? ch06::update_boundary : ch06::update_interior)(slab, p, slab.field[0], slab.field[1], stream);
    GPU_CHECK(gpuStreamSynchronize(stream));
    slab.current = 1;
  });
  const ch06::Slab& slab = team.slab(0);
  const ch06::Grid& g = slab.grid;
  const auto in = [](ch06::Planes planes, int z) { return z >= planes.begin && z < planes.end; };
  const auto updated = [&](int z) {
    return boundary ? in(ch06::low_boundary(g), z) || in(ch06::high_boundary(g), z) : in(ch06::interior_planes(g), z);
  };
  std::vector<double> stepped = widen(u), older = widen(previous), expected;
  ch06::reference_steps(p, stepped, older, 1);
  const std::size_t plane = std::size_t(p.nx) * p.ny;
  for (int z = 0; z < p.nz; ++z) {
    const std::vector<double>& source = updated(z) ? stepped : widen(previous);
    expected.insert(expected.end(), source.begin() + z * plane, source.begin() + (z + 1) * plane);
  }
  SCOPED_TRACE(std::string("the planes after ") + (boundary ? "update_boundary" : "update_interior") + " on a slab of " +
               std::to_string(thickness) + " planes: the half's stepped, the others u(n-1)");
  // A plane of the other half written says more than its first wrong element would.
  const std::vector<float> newest = team.newest();
  for (int z = 0; z < p.nz; ++z)
    if (!updated(z) && !std::equal(newest.begin() + z * plane, newest.begin() + (z + 1) * plane, previous.begin() + z * plane)) {
      ADD_FAILURE() << "plane z = " << z << " was written, outside "
                    << (boundary ? "low_boundary and high_boundary (the interior's planes here?)" : "interior_planes (all_planes?)");
      return;
    }
  EXPECT_TRUE(course::matches_reference(newest, expected, ch06::tolerance(1, 1.0), extents(p)));
  // The x and y halos (columns of the interior rows, rows of the interior columns).
  std::vector<float> array(g.size);
  GPU_CHECK(gpuMemcpy(array.data(), slab.field[1], array.size() * sizeof(float), gpuMemcpyDeviceToHost));
  int unwrapped = 0, written = 0;
  std::string first_unwrapped, first_written;
  const auto check = [&](int x, int y, int z, int image_x, int image_y) {
    const float value = array[g.at(x, y, z)];
    const std::string where = "(z, y, x) = (" + std::to_string(z) + ", " + std::to_string(y) + ", " + std::to_string(x) + ")";
    if (updated(z) && !(value == array[g.at(image_x, image_y, z)]) && unwrapped++ == 0) first_unwrapped = where;
    if (!updated(z) && !std::isnan(value) && written++ == 0) first_written = where;
  };
  for (int z = 0; z < g.dz; ++z)
    for (int i = 0; i < ch06::kRadius; ++i) {
      for (int y = 0; y < g.dy; ++y) {
        check(i - ch06::kRadius, y, z, i - ch06::kRadius + g.dx, y);
        check(g.dx + i, y, z, i, y);
      }
      for (int x = 0; x < g.dx; ++x) {
        check(x, i - ch06::kRadius, z, x, i - ch06::kRadius + g.dy);
        check(x, g.dy + i, z, x, i);
      }
    }
  if (unwrapped != 0)
    ADD_FAILURE() << unwrapped << " points of the x and y halos of the half's planes differ from their periodic "
                  << "images, the first at " << first_unwrapped << " (wrap_xy on the half's planes?)";
  if (written != 0)
    ADD_FAILURE() << written << " points of the x and y halos of planes outside the half were written, the first at "
                  << first_written;
}

// Step 04's order of its two streams (or an experiment's): the whole step, under many orders in
// which the CPU backend may run the streams' work (the stream order of COURSE_CPU_SHUFFLE, each
// seed another), so that an order the events do not enforce shows; a GPU runs it once, in its own order.
constexpr int kStreamOrders = 8;
void test_stream_orders(const ch06::Step& step, const Layout& layout, const course::Seed& seed) {
#if defined(COURSE_BACKEND_CPU)
  struct RestoreShuffle {
    std::uint64_t seed = course::cpu::shuffle_seed();
    ~RestoreShuffle() { course::cpu::set_shuffle_seed(seed); }
  } restore;
  std::mt19937_64 orders(seed.value);
  for (int order = 1; order <= kStreamOrders && !::testing::Test::HasFailure(); ++order) {
    const std::uint64_t shuffle = orders() | 1;  // 0 would run them in order
    course::cpu::set_shuffle_seed(shuffle);
    SCOPED_TRACE("the streams' work in order " + std::to_string(order) + " of " + std::to_string(kStreamOrders) +
                 " (COURSE_CPU_SHUFFLE=" + std::to_string(shuffle) + ")");
    test_random(step, layout, seed);
  }
#else
  test_random(step, layout, seed);
#endif
}

// A part's test. What the part's code throws (a deadlock the CPU backend reports, a stub's
// course::NotImplemented) fails it here, inside the part's trace, so that the failure names the
// part as its other failures do.
void register_part(const course::StepSource& step, int part, const std::string& part_name, const std::string& suite,
                   const std::string& name, std::function<void(const course::Seed&)> body) {
  course::register_part_test(step, part, part_name, suite, name, [body = std::move(body)](const course::Seed& seed) {
    try {
      body(seed);
    } catch (const std::exception& error) {
      ADD_FAILURE() << "threw: " << error.what();
    }
  });
}

const bool host_parts_on_host = course::suite_runs_on_host("NcclPlanPart");

// Registered before the steps' tests, and in the order of the parts, so that the first failure
// the grader reads is the first wrong part.
const bool parts_registered = [] {
  const std::vector<Layout> exchanged{{{13}}, {{5, 9}}, {{4, 11, 6}}};
  const course::StepSource& s01 = step_named("01_host_staging").source;
  const std::array<std::string, 3> staging{"to the host", "the exchange", "into the halos"};
  for (int part = 1; part <= 3; ++part)
    for (const Layout& layout : exchanged)
      register_part(s01, part, staging[part - 1], "HostStagingPart", std::to_string(part) + "/" + layout.name(),
          [part, layout](const course::Seed& seed) { test_host_staging_part(part, layout, seed); });
  for (const Layout& layout : exchanged)
    register_part(step_named("02_peer_copies").source, 2, "the pulls", "PeerCopyPart", "2/" + layout.name(),
        [layout](const course::Seed& seed) { test_pulls(layout, seed); });
  const course::StepSource& s03 = step_named("03_nccl").source;
  for (const Layout& layout : kLayouts)
    register_part(s03, 1, "the halo plan", "NcclPlanPart", "1/" + layout.name(),
        [layout](const course::Seed&) { test_halo_plan(layout); });
  for (const Layout& layout : exchanged)
    register_part(s03, 2, "the group", "NcclExchangePart", "2/" + layout.name(),
        [layout](const course::Seed& seed) { test_nccl_exchange(layout, seed); });
  const course::StepSource& s04 = step_named("04_overlap").source;
  for (const bool boundary : {true, false})
    for (const int thickness : {13, 6})
      register_part(s04, boundary ? 1 : 2, boundary ? "the boundary half" : "the interior half", "OverlapPart",
          std::string(boundary ? "1_boundary/" : "2_interior/") + std::to_string(thickness) + "_planes",
              [boundary, thickness](const course::Seed& seed) { test_half(boundary, thickness, seed); });
  for (const Layout& layout : exchanged)
    register_part(s04, 3, "the two streams and their events", "OverlapPart", "3_stream_orders/" + layout.name(),
        [layout](const course::Seed& seed) { test_stream_orders(step_named("04_overlap"), layout, seed); });
  return true;
}();

// --- the steps ------------------------------------------------------------------------------------

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

// The benchmark's experiments on step 04's exchange (peers.hpp), checked as step 04's part 3 is:
// counted as step 04's tests, since they run its two halves (and step 02's pulls, step 03's group).
const std::array<ch06::Step, 2> kExperiments{
    ch06::Step{COURSE_EXPERIMENT_SOURCE(04_overlap, overlap_peer_copies), ch06::peers::make_overlap_peer_copies, Needs::ranks},
    ch06::Step{COURSE_EXPERIMENT_SOURCE(04_overlap, overlap_interior_after_boundary),
               ch06::peers::make_overlap_interior_after_boundary, Needs::nccl}};
const bool experiments_registered = [] {
  for (const ch06::Step& step : kExperiments)
    for (const Layout& layout : kLayouts)
      course::register_step_test(step.source, "OverlapExperiment", step.source.id() + "/" + layout.name(),
                                 [&step, layout](const course::Seed& seed) {
                                   SCOPED_TRACE("an experiment of the benchmark (chapters/06_multi_gpu/peers.cpp) on your step 04's "
                                                "halves: if step 02's, 03's or 04's tests fail, fix those first");
                                   test_stream_orders(step, layout, seed);
                                 });
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
    fill_own_halos(now, g, stream);
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

// As processes: a device each by place on the node; one device seen (a launcher that binds a GPU
// to each process) is every process's device 0; more processes than devices, a refusal.
TEST_F(Decomposition, AsProcessesADeviceByPlaceOnTheNodeOrTheOneDeviceBound) {
  EXPECT_EQ(ch06::device_for_process(0, 4, 4), 0);
  EXPECT_EQ(ch06::device_for_process(3, 4, 8), 3);
  EXPECT_EQ(ch06::device_for_process(1, 2, 1), 0) << "srun --gpus-per-task=1: each process sees its own GPU as 0";
  EXPECT_EQ(ch06::device_for_process(0, 1, 1), 0);
  std::string why;
  try {
    (void)ch06::device_for_process(2, 3, 2);
  } catch (const std::invalid_argument& error) {
    why = error.what();
  }
  EXPECT_NE(why.find("more ranks than devices: 3 processes on a node of 2 devices"), std::string::npos) << why;
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
      // The exchange written out here, not the student's exchange_nccl: a test of the team alone.
      ch06::Slab& slab = team.slab(rank);
      float* v = slab.field[0];
      const std::size_t count = ch06::halo_floats(slab.grid);
      ch06::Stream stream;
      GPU_CHECK(ncclGroupStart());
      GPU_CHECK(ncclSend(ch06::top_planes(v, slab.grid), count, ncclFloat, slab.up(), team.comm(rank), stream));
      GPU_CHECK(ncclRecv(ch06::below_halo(v, slab.grid), count, ncclFloat, slab.down(), team.comm(rank), stream));
      GPU_CHECK(ncclGroupEnd());
      GPU_CHECK(gpuStreamSynchronize(stream));
    });
  } catch (const std::runtime_error& error) {
    failure = error.what();
  }
  EXPECT_EQ(failure, "rank 1 fails on purpose");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20)) << "the waiting rank was freed at once";
}

}  // namespace
