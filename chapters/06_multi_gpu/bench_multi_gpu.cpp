// Chapter 6 benchmark: every step on 1, 2, 4, ... GPUs (up to --gpus), for strong scaling (one
// grid of --strong^3 points split N ways) and weak scaling (--weak^3 points per GPU: a grid
// --weak x --weak x N --weak). A run is --steps time steps from a standing mode, checked after
// it against the exact solution at 1000 points (a mode drawn from the problem's seed). Each
// decomposition (scaling, GPU count) is one of the harness's problems: its team (threads,
// arrays, NCCL communicators) is made when the session reaches it and released after, and each
// step's propagators on it when its case first runs. Case "03_nccl x4" is step 03 on 4 GPUs; beside
// the steps, on each count, peers that split a step (peers.hpp): "compute only", "split compute
// only" (step 04's launches without the exchange: the hidden share's compute) and "exchange only
// (NCCL)"; with --all also the two experiments on step 04's exchange and the exchange of one of
// them alone, "exchange only (peer copies)".
//
// Times are whole runs (all ranks' streams synchronised: the host's wall time between two events
// on device 0), so they include every launch and wait a step costs. Bytes are per GPU: the 12
// bytes a point of the largest slab must move (read u and u(n-1), write u(n+1)) per step, so a
// case's "of copy" is one GPU's share of its copy rate, and its ratio to the one-GPU step 00's
// is the parallel efficiency T1 / (N TN) of either scaling. "vs first" is T1 / TN: the speedup
// (strong), the efficiency itself (weak). The README's tables (tables.py, through
// profiling/report.py) give the efficiencies, the exchange's rate and the share of it that steps
// 04 and 05 hide.
//
// With --pulse=FILE.json it times nothing: a Ricker pulse at rest at the centre of a
// --pulse-size^3 grid spreads under step 02 on --gpus ranks for --pulse-steps steps, and the
// file gets the leapfrog's energy every tenth of the way and the slice y = ny/2 at four of those
// times, for the lesson's picture (figures.py). It takes only those options (the benchmark's, or
// the harness's timing options, are refused in one line, as --pulse-size without --pulse is), and
// a pulse that would not fit the memory (the harness's measure) is refused before any work.
//
// Started by mpirun -np N (or srun), the ranks are N processes, one a GPU: the benchmark times
// the N-GPU decompositions only (mpirun -np 1, 2, 4 for each count), every process runs the same
// cases (what one skips or fails, all do), each starts its clock after a barrier and a case's time
// is the slowest process's, each process checks the points of its own slab and the verdict is the first failure of any, and rank
// 0 alone prints and writes --benchmark_out. The seed is rank 0's. --pulse runs as threads only.
//
//   bench_multi_gpu [--gpus=N] [--strong=EDGE] [--weak=EDGE] [--steps=S] [--ceilings=FILE] [--quiet]
//                   [--repetitions=N] [--benchmark_filter=REGEX] [--benchmark_out=FILE.json --benchmark_out_format=json]
//   bench_multi_gpu --pulse=FILE.json [--pulse-size=EDGE] [--pulse-steps=S] [--gpus=N]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "course/benchmark.hpp"
#include "course/exercise.hpp"
#include "course/output_file.hpp"
#include "peers.hpp"
#include "steps.hpp"

namespace {

using ch06::Crew;
using ch06::Problem;
using ch06::Team;

constexpr int kCheckedPoints = 1000;

// One decomposition, the harness's problem: while it is built, its team, the standing mode drawn
// from its seed, and each case's crew of propagators, made when the case first runs (so that a
// step not written yet is skipped, not the whole decomposition).
struct Configuration {
  Problem problem;
  int gpus;
  ch06::Communicator communicator;
  std::unique_ptr<Team> team;
  ch06::StandingMode mode{};
  std::uint64_t seed = 0;
  std::map<std::string, std::unique_ptr<Crew>> crews;

  void build(const course::Seed& drawn) {
    seed = drawn.value;
    std::mt19937_64 pick(seed);
    const auto wave_number = [&](int n) { return 1 + int(pick() % std::max(1, n / 8)); };  // smooth modes
    mode = {wave_number(problem.nx), wave_number(problem.ny), wave_number(problem.nz)};
    team = std::make_unique<Team>(problem, Team::even_split(problem.nz, gpus), communicator);
  }
  void release() {
    crews.clear();
    team.reset();
  }
  Crew& crew(const std::string& name, ch06::MakePropagator make) {
    auto& slot = crews[name];
    if (!slot) slot = std::make_unique<Crew>(*team, make);
    return *slot;
  }
  // The newest field at kCheckedPoints points against the mode `steps` steps on: each process
  // checks those in its planes; the first failure of any is every process's verdict.
  std::string check_mode(int steps) const {
    const Problem& p = problem;
    const double scale = std::cos(steps * mode.theta(p));
    const course::Tolerance tolerance = ch06::tolerance(steps, 1.0);
    const ch06::Planes held = team->held_planes();
    std::mt19937_64 pick(seed ^ 0xc0ffee);
    std::string failure;
    for (int n = 0; n < kCheckedPoints && failure.empty(); ++n) {
      const int x = int(pick() % p.nx), y = int(pick() % p.ny), z = int(pick() % p.nz);
      if (z < held.begin || z >= held.end) continue;
      const double expected = scale * mode.value(p, x, y, z);
      const float got = team->value_at(x, y, z);
      if (!(std::abs(got - expected) <= tolerance.atol + tolerance.rtol * std::abs(expected)))
        failure = "u(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ") = " +
                  std::to_string(got) + ", expected " + std::to_string(expected) + " (the standing mode (" +
                  std::to_string(mode.mx) + ", " + std::to_string(mode.my) + ", " + std::to_string(mode.mz) + ") " +
                  std::to_string(steps) + " steps on)";
    }
    return team->first_failure(failure);
  }
};

// The pulse's energy kSamples + 1 times over `steps` steps, and its slice y = ny/2 at the first,
// the last and two between, as JSON.
void write_pulse(const std::string& path, int edge, int steps, int ranks) {
  constexpr int kSamples = 9;
  constexpr double kWidth = 4.0;  // the pulse's sigma, in points
  course::OutputFile out(path);
  const Problem p{edge, edge, edge};
  std::vector<float> pulse;
  for (const double value : ch06::ricker_pulse(p, kWidth)) pulse.push_back(static_cast<float>(value));
  const ch06::Step& step = *std::find_if(ch06::steps().begin(), ch06::steps().end(),
                                         [](const ch06::Step& s) { return s.source.file == "02_peer_copies"; });
  Team team(p, Team::even_split(p.nz, ranks));
  team.set_state(pulse, pulse);
  Crew crew(team, step.make);
  std::string json = "{\"backend\": \"" COURSE_BACKEND_NAME "\", \"edge\": " + std::to_string(edge) + ", \"ranks\": " + std::to_string(ranks) +
                     ", \"sigma\": " + std::to_string(kWidth) + ", \"courant2\": " + std::to_string(p.courant2) +
                     ", \"step\": \"" + step.source.id() + "\", \"samples\": [";
  char number[32];
  for (int sample = 0, done = 0; sample <= kSamples; ++sample) {
    const int target = steps * sample / kSamples;
    crew.advance(target - done);
    done = target;
    const std::vector<float> u = team.newest(), older = team.older();
    const double energy = ch06::energy(p, {u.begin(), u.end()}, {older.begin(), older.end()});
    std::snprintf(number, sizeof number, "%.9g", energy);
    json += std::string(sample ? ", " : "") + "{\"step\": " + std::to_string(target) + ", \"energy\": " + number;
    if (sample % (kSamples / 3) == 0) {
      json += ", \"slice\": [";
      for (int z = 0; z < p.nz; ++z) {
        json += z ? ", [" : "[";
        for (int x = 0; x < p.nx; ++x) {
          std::snprintf(number, sizeof number, "%s%.3g", x ? ", " : "", u[(std::size_t(z) * p.ny + p.ny / 2) * p.nx + x]);
          json += number;
        }
        json += "]";
      }
      json += "]";
    }
    json += "}";
  }
  out.write(json + "]}\n");
  out.commit();
  std::printf("wrote %s: a Ricker pulse on %d^3 points, %d steps of %s on %d ranks\n", path.c_str(), edge, steps,
              step.source.id().c_str(), ranks);
}

// A decomposition's bytes: on each device, two fields of its slab (rank 0's, the thickest), so
// that on the CPU backend, whose devices share one RAM, every rank's count.
course::bench::Problem weigh(const std::string& name, const Problem& p, int ranks) {
  const ch06::Grid slab = ch06::slab_grid(p, Team::even_split(p.nz, ranks)[0]);
  return {.name = name, .device_bytes = 2 * 4.0 * slab.size, .devices = ranks};
}

// As processes: every process the seed of rank 0 (COURSE_SEED), its own device current before the
// harness creates anything (or, when a process has none, the refusal on every process alike), and,
// past rank 0, no console output and no --benchmark_out.
std::vector<char*> as_processes(int argc, char** argv) {
  std::vector<char*> kept(argv, argv + argc);
  if (ch06::launch() == ch06::Launch::threads) return kept;
  const char* fixed = std::getenv("COURSE_SEED");
  const std::uint64_t seed = ch06::from_rank_0(fixed != nullptr ? 0 : course::fresh_seed().value);
  if (fixed == nullptr) setenv("COURSE_SEED", std::to_string(seed).c_str(), 1);
  GPU_CHECK(gpuSetDevice(ch06::launched_device()));
  if (ch06::launched_rank() == 0) return kept;
  std::erase_if(kept, [](const char* argument) { return std::strncmp(argument, "--benchmark_out", 15) == 0; });
  if (std::freopen("/dev/null", "w", stdout) == nullptr) std::perror("/dev/null");
  return kept;
}

}  // namespace

int main(int raw_argc, char** raw_argv) try {
  using course::bench::refuse;
  constexpr bool kOnCpu = course::bench::on_cpu_backend();
  std::vector<char*> arguments;
  try {
    arguments = as_processes(raw_argc, raw_argv);
  } catch (const std::invalid_argument& error) {
    refuse(error.what());
  }
  int argc = static_cast<int>(arguments.size());
  char** argv = arguments.data();
  const bool processes = ch06::launch() == ch06::Launch::processes;
  const int process_count = ch06::launched_processes();
  int devices = 0;
  if (gpuGetDeviceCount(&devices) != gpuSuccess) devices = 0;
  course::bench::Session session(argc, argv,
                                 {{"gpus", std::to_string(processes ? process_count : kOnCpu ? 2 : std::max(devices, 1))},
                                  {"strong", kOnCpu ? "32" : "1024"},
                                  {"weak", kOnCpu ? "24" : "512"},
                                  {"steps", kOnCpu ? "2" : "20"},
                                  {"pulse", ""},
                                  {"pulse-size", kOnCpu ? "32" : "128"},
                                  {"pulse-steps", kOnCpu ? "45" : "135"}});
  // Every option is read, and refused if wrong, before anything runs, whichever mode reads it.
  const int gpus = static_cast<int>(session.integer("gpus", 64));
  const int strong = static_cast<int>(session.integer("strong", 4096));
  const int weak = static_cast<int>(session.integer("weak", 4096));
  const int steps = static_cast<int>(session.integer("steps", 100000));
  const int pulse_edge = static_cast<int>(session.integer("pulse-size", 4096));
  const int pulse_steps = static_cast<int>(session.integer("pulse-steps", 100000));
  const bool pulse = session.mode({{.option = "", .uses = {"gpus", "strong", "weak", "steps"}, .times = true},
                                   {.option = "pulse", .uses = {"gpus", "pulse-size", "pulse-steps"}}}) == "pulse";
  if (devices == 0) return session.run();  // which says there is no device
  if (processes)
    if (const auto why = ch06::processes_share_a_device()) refuse(*why);
  if (processes && gpus != process_count)
    refuse("--gpus=" + std::to_string(gpus) + ", but mpirun started " + std::to_string(process_count) +
           " processes: as processes, the GPUs are the processes (mpirun -np " + std::to_string(gpus) + ")");
  if (!processes && gpus > devices) refuse("--gpus=" + std::to_string(gpus) + ", but this machine has " + std::to_string(devices) + " devices");
  if (pulse) {
    if (processes) refuse("--pulse runs its ranks as threads of one process: run it without mpirun");
    if (pulse_edge < ch06::kRadius * gpus)
      refuse("--pulse-size=" + std::to_string(pulse_edge) + " split " + std::to_string(gpus) + " ways gives slabs thinner than the halo");
    // Beside the ranks' fields, on the host: the pulse, and the two newest fields gathered, each
    // also in float64 for the energy.
    course::bench::Problem needs = weigh("the pulse on " + std::to_string(pulse_edge) + "^3 points (--pulse-size)",
                                         Problem{pulse_edge, pulse_edge, pulse_edge}, gpus);
    needs.host_bytes = 32.0 * pulse_edge * pulse_edge * pulse_edge;
    session.require_fits(needs);
    write_pulse(session.text("pulse"), pulse_edge, pulse_steps, gpus);
    return 0;
  }
  std::vector<int> counts;
  for (int n = processes ? gpus : 1; n <= gpus; n *= 2) counts.push_back(n);  // as processes, their count only
  if (counts.back() != gpus) counts.push_back(gpus);
  if (strong < ch06::kRadius * gpus)
    refuse("--strong=" + std::to_string(strong) + " split " + std::to_string(gpus) + " ways gives slabs thinner than the halo (" +
           std::to_string(ch06::kRadius) + " planes)");
  if (weak < ch06::kRadius) refuse("--weak=" + std::to_string(weak) + " is thinner than the halo (" + std::to_string(ch06::kRadius) + " planes)");
  const bool nccl = !course::nccl_unavailable_reason();
  if (!nccl) std::printf("the NCCL steps are left out: %s\n", course::nccl_unavailable_reason()->c_str());
  session.add_context("nccl", nccl ? "yes" : "no");
  session.add_context("ranks", processes ? "MPI processes" : "threads");
  if (processes)  // every process starts its clock after a barrier; a case's time is the slowest process's
    session.set_processes({.barrier = ch06::wait_for_every_process,
                           .max = ch06::largest_of_processes,
                           .end_alone = [](const std::string& failure) {
                             std::fprintf(stderr, "error: %s\n", failure.c_str());
                             ch06::end_every_process();
                           }});
  std::printf("a standing mode drawn from %s, %d steps a run\n", session.seed().describe().c_str(), steps);

  for (const bool is_strong : {true, false})
    for (const int n : counts) {
      auto c = std::make_shared<Configuration>();
      c->problem = is_strong ? Problem{strong, strong, strong} : Problem{weak, weak, weak * n};
      c->gpus = n;
      // A device a rank (refused above otherwise): as processes, each may see only its own.
      c->communicator = nccl ? ch06::Communicator::nccl : ch06::Communicator::none;
      const Problem& p = c->problem;
      const std::string group = is_strong ? "strong " + std::to_string(strong) + "^3" : "weak " + std::to_string(weak) + "^3 per GPU";
      const std::string suffix = " x" + std::to_string(n);
      const ch06::Grid slab = ch06::slab_grid(p, Team::even_split(p.nz, n)[0]);
      const double message_bytes = sizeof(float) * double(ch06::halo_floats(slab));  // R planes
      course::bench::Problem problem = weigh(group + " on " + std::to_string(n) + " GPU" + (n > 1 ? "s" : ""), p, n);
      problem.host_bytes = 4 * message_bytes * n;  // step 01's pinned buffers, every rank's
      problem.build = [c](const course::Seed& seed) { c->build(seed); };
      problem.release = [c] { c->release(); };
      session.add_problem(std::move(problem));
      const double bytes = 12.0 * slab.dx * slab.dy * slab.dz * steps;
      const course::bench::Rate updates{"GLUP", double(p.nx) * p.ny * p.nz * steps / 1e9};  // lattice updates
      auto add = [&](const std::string& name, ch06::MakePropagator make, double case_bytes, bool is_peer,
                     std::vector<course::bench::Rate> rates, bool checked = false) {
        course::bench::Case bench_case{
            .group = group, .name = name + suffix,
            .prepare = [c, name, make] {
              c->crew(name, make);
              c->team->set_standing_mode(c->mode);
            },
            .run = [c, name, steps] { c->crews.at(name)->advance(steps); },
            .bytes = case_bytes, .rates = std::move(rates), .is_peer = is_peer, .family = group};
        if (!is_peer || checked) bench_case.validate = [c, steps] { return c->check_mode(steps); };
        session.add(std::move(bench_case));
      };
      for (const ch06::Step& step : ch06::steps()) {
        if ((step.needs == ch06::Needs::one_rank && n > 1) || (step.needs == ch06::Needs::nccl && !nccl)) continue;
        add(step.source.id(), step.make, bytes, false, {updates});
      }
      add("compute only", ch06::peers::make_compute_only, bytes, true, {updates});
      add("split compute only", ch06::peers::make_split_compute_only, bytes, true, {updates});
      // Bytes sent and received per GPU: two messages each way.
      const double exchanged = 4 * message_bytes * steps;
      if (nccl) add("exchange only (NCCL)", ch06::peers::make_exchange_only_nccl, exchanged, true, {});
      if (session.all()) {
        add("exchange only (peer copies)", ch06::peers::make_exchange_only_peer_copies, exchanged, true, {});
        add("overlap by peer copies", ch06::peers::make_overlap_peer_copies, bytes, true, {updates}, true);
        if (nccl)
          add("overlap, interior after the boundary", ch06::peers::make_overlap_interior_after_boundary, bytes, true, {updates}, true);
      }
    }
  return session.run();
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  ch06::end_every_process();  // as processes, the others may be waiting for this one in a collective
  return 1;
}
