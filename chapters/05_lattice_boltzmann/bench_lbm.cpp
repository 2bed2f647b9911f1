// Chapter 5 benchmark: every step on channels of NX x NY cells (by default 2048^2 and 8192^2, with
// --all 256^2 to 8192^2; on the CPU backend 64 x 32), each timed run `--steps` time steps from the same random state near
// equilibrium. A case counts lattice updates (MLUP: cells x steps) and the fewest bytes a time
// step moves per cell (the 9 distributions read and written once: 72 bytes in float32, 36 in 16
// bits); its state after the run is checked against the float64 reference's, value by value.
// With --all, the paper's CPU schemes (linear and subscript addressing) are timed on the host
// beside them, on one core and on all of them, on `--cpu-size` (context "cpu_MLUPS <scheme>").
// Each size also times the steps' memory structure without their arithmetic (stream_copy.hpp)
// at 4-byte and 2-byte values, as ceilings for the fused steps. PyTorch is measured by
// peer_torch.py.
// With --flow=FILE.csv it times nothing: every step runs the tests' Poiseuille channel from rest
// (lbm.hpp, kPoiseuille) and FILE gets the velocity profile ux(y) every 100 time steps, beside
// the analytic parabola (step,time,y,ux,analytic), for the chapter's figures (figures.py).
// With --vortex=FILE.csv it times nothing: the float64 reference runs a Taylor-Green vortex
// (lbm.hpp) on the host and FILE gets its velocity field at times 50, 150 and 300 beside the
// analytic one, for figures.py's flow.png.
// With --accuracy=FILE.csv it times nothing either: every step runs from rest to the steady
// Poiseuille flow on channels --widths cells across (default 24,48,96,192) at the same Mach
// number (at --tau, default 0.8), beside the float64 reference (--only: those named), and FILE
// gets each one's distance from the parabola and its change of mass. A width whose start-up takes
// more time steps than an int counts (beyond about 15,000 cells at tau 0.8) is refused.
// With --capacity=NXxNY[,...] it times each step alone on those grids, from rest, with nothing
// beside its lattice but the moments: the in-place steps' one buffer runs where two do not fit
// (a step that does not fit is skipped in one line), and its state is checked against the
// reference's flow from rest.
// Each run takes only its own options (below); another's, or two modes, are refused in one line
// before any work, as are the harness's timing options with a mode that times nothing.
//
//   bench_lbm [--sizes=NXxNY[,...]] [--steps=N] [--all] [--cpu-size=NXxNY] [--ceilings=FILE] [--warm-l2]
//             [--quiet] [--repetitions=N] [--benchmark_filter=REGEX] [--benchmark_out=FILE.json ...]
//   bench_lbm --flow=FILE.csv
//   bench_lbm --vortex=FILE.csv
//   bench_lbm --accuracy=FILE.csv [--widths=NY[,...]] [--tau=T] [--only=STEP[,...]]
//   bench_lbm --capacity=NXxNY[,...] [--steps=N] [--benchmark_filter=REGEX ...]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "course/benchmark.hpp"
#include "course/compare.hpp"
#include "course/device_buffer.hpp"
#include "course/numbers.hpp"
#include "course/output_file.hpp"
#include "cpu_schemes.hpp"
#include "reference.hpp"
#include "steps.hpp"
#include "stream_copy.hpp"

namespace {

using ch05::Channel;
using course::DeviceBuffer;

constexpr float kTau = 0.8f, kForce = 1e-6f;  // as peer_torch.py

Channel parse_size(const std::string& item) {
  const std::size_t times = item.find('x');
  const auto nx = course::parse_whole_number(std::string_view(item).substr(0, times), 1, 1 << 16);
  const auto ny = times == std::string::npos ? std::nullopt
                                             : course::parse_whole_number(std::string_view(item).substr(times + 1), 1, 65535);
  if (!nx || !ny) throw std::invalid_argument("a size is NXxNY with NX from 1 to 65536 and NY from 1 to 65535, not '" + item + "'");
  return {int(*nx), int(*ny), kTau, kForce};
}

std::vector<Channel> parse_sizes(const std::string& text) {
  std::vector<Channel> sizes;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    sizes.push_back(parse_size(text.substr(start, end - start)));
    start = end + 1;
  }
  return sizes;
}

std::string name_of(const Channel& c) { return std::to_string(c.nx) + "x" + std::to_string(c.ny); }

// One channel's starting state, the reference's state `steps` later, the room of the stream
// copies and the lattice of the step being run, shared by the channel's cases: the session builds
// them when it reaches the channel.
struct Buffers {
  Channel channel;
  int steps;
  DeviceBuffer<float> initial, stored;  // stored: a lattice's state, in the canonical layout
  std::vector<double> expected;         // worked out on first use
  DeviceBuffer<float> copy_a, copy_b;   // two states' room (float32), used by the copies at either width
  // One step's lattice at a time, made when a case of another step runs: a channel holds one.
  const ch05::Step* lattice_step = nullptr;
  std::unique_ptr<ch05::Lattice> lattice;

  Buffers(const Channel& c, int steps_, const course::Seed& seed)
      : channel(c), steps(steps_), initial(std::span<const float>(ch05::random_state(c, seed))),
        stored(c.cells() * ch05::kDirections), copy_a(c.cells() * ch05::kDirections), copy_b(c.cells() * ch05::kDirections) {}

  ch05::Lattice& lattice_of(const ch05::Step& step) {
    if (lattice_step != &step) {
      lattice.reset();  // before the next is made: one lattice's memory at a time
      lattice_step = nullptr;  // until it is made: a stub's make_lattice throws
      lattice = ch05::make_lattice(step, channel);
      lattice_step = &step;
    }
    return *lattice;
  }

  std::string check(ch05::Lattice& state, ch05::Storage storage) {
    if (expected.empty()) {
      const std::vector<float> start = initial.to_host();
      expected.assign(start.begin(), start.end());
      ch05::reference_advance(channel, expected, steps);
    }
    stored.poison();
    state.store(stored.data());
    course::Comparison comparison = course::compare(stored.to_host(), expected, ch05::tolerance(storage),
                                                    {std::size_t(channel.ny), std::size_t(channel.nx), ch05::kDirections});
    comparison.axis_names = {"y", "x", "k"};
    return comparison.ok() ? std::string() : comparison.report();
  }
};

// Million lattice updates per second of one of the paper's CPU schemes on the host: the median
// of three runs of `steps` time steps.
double cpu_scheme_rate(const Channel& c, ch05::Addressing addressing, int threads, int steps) {
  ch05::CpuScheme scheme(c, addressing, threads);
  scheme.load(ch05::state_at_rest(c));
  scheme.advance(1);  // first touch of the pages out of the timing
  std::vector<double> rates;
  for (int run = 0; run < 3; ++run) {
    const auto start = std::chrono::steady_clock::now();
    scheme.advance(steps);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates.push_back(double(c.cells()) * steps / seconds / 1e6);
  }
  std::sort(rates.begin(), rates.end());
  return rates[1];
}

// "AMD EPYC ... , 16 hardware threads": what the CPU schemes ran on.
std::string host_cpu() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return model + ", " + std::to_string(std::thread::hardware_concurrency()) + " hardware threads";
}

// The start-up of Poiseuille flow under every step, sampled along the first column.
void write_flow(const std::string& path) {
  course::OutputFile out(path);
  const Channel c = ch05::kPoiseuille;
  std::string csv = "step,time,y,ux,analytic\n";
  const ch05::State rest = ch05::state_at_rest(c);
  DeviceBuffer<float> state{std::span<const float>(rest)}, rho(c.cells()), ux(c.cells()), uy(c.cells());
  const ch05::Fields fields{rho.data(), ux.data(), uy.data()};
  for (const ch05::Step& step : ch05::steps()) {
    std::unique_ptr<ch05::Lattice> lattice = ch05::make_lattice(step, c);
    lattice->load(state.data());
    int time = 0;
    for (int sample = 100; sample <= ch05::kPoiseuilleSteps; sample += 100) {
      ux.poison();
      lattice->advance(sample - time, &fields);
      time = sample;
      const std::vector<float> profile = ux.to_host();
      for (int y = 0; y < c.ny; ++y)
        csv += step.source.id() + "," + std::to_string(time) + "," + std::to_string(y) + "," +
               std::to_string(profile[std::size_t(y) * c.nx]) + "," + std::to_string(ch05::steady_velocity(c, y)) + "\n";
    }
  }
  out.write(csv);
  out.commit();
  std::printf("wrote %s\n", path.c_str());
}

// The decay of a Taylor-Green vortex under the float64 reference (on the host), for the
// chapter's figure: the velocity field at a few times beside the analytic one
// (time,x,y,ux,uy,analytic_ux,analytic_uy).
void write_vortex(const std::string& path) {
  course::OutputFile out(path);
  const Channel box = ch05::taylor_green_box(32, 0.8f);
  const ch05::State start = ch05::taylor_green_state(box);
  std::vector<double> f(start.begin(), start.end());
  ch05::ReferenceFields fields;
  std::string csv = "# bench_lbm --vortex: the float64 reference's Taylor-Green vortex, 32 x 32 cells, tau 0.8, U 0.05\n"
                    "time,x,y,ux,uy,analytic_ux,analytic_uy\n";
  int time = 0;
  for (const int sample : {50, 150, 300}) {
    ch05::reference_advance(box, f, sample - time, &fields);
    time = sample;
    for (int y = 0; y < box.ny; ++y)
      for (int x = 0; x < box.nx; ++x) {
        const std::size_t at = std::size_t(y) * box.nx + x;
        const ch05::Velocity exact = ch05::taylor_green_velocity(box, x, y, time);
        char row[160];
        std::snprintf(row, sizeof row, "%d,%d,%d,%.6e,%.6e,%.6e,%.6e\n", time, x, y, fields.ux[at], fields.uy[at], exact.ux, exact.uy);
        csv += row;
      }
  }
  out.write(csv);
  out.commit();
  std::printf("wrote %s\n", path.c_str());
}

// A relaxation time for --accuracy: a number from 0.51 to 10 (above 1/2, where the viscosity is
// positive; below the range where the channel's start-up takes millions of steps).
float parse_tau(const std::string& text) {
  char* end = nullptr;
  const double tau = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(tau >= 0.51 && tau <= 10))
    throw std::invalid_argument("--tau takes a relaxation time from 0.51 to 10, not '" + text + "'");
  return static_cast<float>(tau);
}

// --only: step ids (or "reference") for --accuracy, each one that exists; empty: all of them.
std::vector<std::string> parse_only(const std::string& text) {
  std::vector<std::string> ids;
  for (std::size_t start = 0; !text.empty() && start <= text.size();) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string id = text.substr(start, end - start);
    const auto steps = ch05::steps();
    if (id != "reference" && std::none_of(steps.begin(), steps.end(), [&](const ch05::Step& step) { return step.source.id() == id; }))
      throw std::invalid_argument("--only takes step ids (as 08_fma_fp16) or 'reference', comma-separated; there is no '" + id + "'");
    ids.push_back(id);
    start = end + 1;
  }
  return ids;
}

std::vector<int> parse_widths(const std::string& text) {
  std::vector<int> widths;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const auto width = course::parse_whole_number(std::string_view(text).substr(start, end - start), 2, 65535);
    if (!width) throw std::invalid_argument("--widths takes cells across the channel, 2 to 65535, comma-separated, not '" + text + "'");
    widths.push_back(int(*width));
    start = end + 1;
  }
  return widths;
}

// The Poiseuille channel `width` cells across at relaxation time `tau`, with the centre velocity
// of poiseuille_channel (0.05) at every width and tau: the force scales with the viscosity.
Channel accuracy_channel(int width, float tau) {
  Channel c = ch05::poiseuille_channel(width);
  c.force *= static_cast<float>((double{tau} - 0.5) / 3 / 0.1);
  c.tau = tau;
  return c;
}

// Refuses, before any work, a width whose start-up takes more time steps than a run counts (a
// 32-bit int), naming the widest channel that can run at this tau.
void check_accuracy_steps(const std::vector<int>& widths, float tau) {
  constexpr std::int64_t kMostSteps = std::numeric_limits<int>::max();
  for (const int width : widths) {
    const std::int64_t steps = ch05::steps_to_steady(accuracy_channel(width, tau));
    if (steps <= kMostSteps) continue;
    int widest = width;
    while (ch05::steps_to_steady(accuracy_channel(widest, tau)) > kMostSteps) widest = int(widest / 1.01);
    while (ch05::steps_to_steady(accuracy_channel(widest + 1, tau)) <= kMostSteps) ++widest;
    char at_tau[32];
    std::snprintf(at_tau, sizeof at_tau, "%g", tau);
    throw std::invalid_argument("--widths: a channel " + std::to_string(width) + " cells across takes " +
                                std::to_string(steps) + " time steps from rest to the steady flow at --tau=" + at_tau +
                                ", more than a run counts (" + std::to_string(kMostSteps) + "): at this tau, widths up to " +
                                std::to_string(widest) + " (a larger tau reaches steady flow sooner)");
  }
}

// The float64 reference and every step from rest to the steady Poiseuille flow on channels
// `widths` cells across at the same Mach number: the profile's relative L2 distance from the
// parabola and the relative change of mass, one CSV row per step and width.
void write_accuracy(const std::string& path, const std::vector<int>& widths, float tau, const std::vector<std::string>& only) {
  const auto wanted = [&only](const std::string& id) { return only.empty() || std::find(only.begin(), only.end(), id) != only.end(); };
  course::OutputFile out(path);
  gpuDeviceProp prop{};
  GPU_CHECK(gpuGetDeviceProperties(&prop, 0));
  std::string csv = std::string("# bench_lbm --accuracy on ") + prop.name + " (" + COURSE_BACKEND_NAME +
                    " build): the float64 reference and every step from rest to the steady Poiseuille flow, 4 cells long, "
                    "centre velocity 0.05 at every width and tau (force 0.4 nu / ny^2), for steps_to_steady = "
                    "ceil(ln(1e4) ny^2 / (nu pi^2)) time steps\n"
                    "step,tau,width,steps,profile_error,mass_change\n";
  const auto add_row = [&csv, tau](const std::string& who, int width, int steps, double error, double mass_change) {
    char row[200];
    std::snprintf(row, sizeof row, "%s,%g,%d,%d,%.6g,%.3g\n", who.c_str(), tau, width, steps, error, mass_change);
    csv += row;
    std::printf("%-20s tau %g, %5d cells across, %7d steps: profile %.3g%% from the parabola, mass changed by %.2g\n",
                who.c_str(), tau, width, steps, 100 * error, mass_change);
    std::fflush(stdout);
  };
  const auto mass_of = [](const auto& state) { return std::accumulate(state.begin(), state.end(), 0.0); };
  for (const int width : widths) {
    const Channel c = accuracy_channel(width, tau);
    const int steps = int(ch05::steps_to_steady(c));  // within an int: check_accuracy_steps
    const ch05::State rest = ch05::state_at_rest(c);
    const double rest_mass = mass_of(rest);
    if (wanted("reference")) {
      std::vector<double> f(rest.begin(), rest.end());
      ch05::ReferenceFields fields;
      ch05::reference_advance(c, f, steps, &fields);
      add_row("reference", width, steps, ch05::profile_error({fields.ux.begin(), fields.ux.end()}, c), mass_of(f) / rest_mass - 1);
    }
    DeviceBuffer<float> state{std::span<const float>(rest)}, rho(c.cells()), ux(c.cells()), uy(c.cells());
    const ch05::Fields fields{rho.data(), ux.data(), uy.data()};
    for (const ch05::Step& step : ch05::steps()) {
      if (!wanted(step.source.id())) continue;
      std::unique_ptr<ch05::Lattice> lattice = ch05::make_lattice(step, c);
      state.copy_from(rest);
      lattice->load(state.data());
      ux.poison();
      lattice->advance(steps, &fields);
      state.poison();
      lattice->store(state.data());
      add_row(step.source.id(), width, steps, ch05::profile_error(ux.to_host(), c), mass_of(state.to_host()) / rest_mass - 1);
    }
  }
  out.write(csv);
  out.commit();
  std::printf("wrote %s\n", path.c_str());
}

// --capacity: one step's lattice alone on a large grid, from rest (Lattice::load_at_rest), so
// that a grid which only one buffer fits can run. Its check after the timed steps: one more
// step with the moments, every cell's against the float64 reference's on a channel 4 cells
// long (the flow from rest is the same in every column).
struct CapacityRun {
  Channel channel;
  int steps;
  std::unique_ptr<ch05::Lattice> lattice;
  DeviceBuffer<float> rho, ux, uy;
  ch05::ReferenceFields expected;  // of one column's cells, ny of each

  CapacityRun(const ch05::Step& step, const Channel& c, int steps_)
      : channel(c), steps(steps_), lattice(ch05::make_lattice(step, c)), rho(c.cells()), ux(c.cells()), uy(c.cells()) {
    const Channel column{4, c.ny, c.tau, c.force};
    const ch05::State rest = ch05::state_at_rest(column);
    std::vector<double> f(rest.begin(), rest.end());
    ch05::reference_advance(column, f, steps + 1, &expected);
  }

  std::string check(ch05::Storage storage) {
    rho.poison(), ux.poison(), uy.poison();
    const ch05::Fields fields{rho.data(), ux.data(), uy.data()};
    lattice->advance(1, &fields);
    const course::Tolerance tol = ch05::tolerance(storage);
    const std::pair<const char*, const DeviceBuffer<float>*> got[] = {{"rho", &rho}, {"ux", &ux}, {"uy", &uy}};
    const std::vector<double>* want[] = {&expected.rho, &expected.ux, &expected.uy};
    // Read back a band of rows at a time into one host buffer (a field can be 17 GB).
    const std::size_t nx = std::size_t(channel.nx),
                      band = std::min(std::size_t(channel.ny), std::max<std::size_t>(1, (std::size_t(1) << 26) / nx));
    std::vector<float> rows(band * nx);
    for (int field = 0; field < 3; ++field)
      for (std::size_t first = 0; first < std::size_t(channel.ny); first += band) {
        const std::size_t count = std::min(band, std::size_t(channel.ny) - first);
        GPU_CHECK(gpuMemcpy(rows.data(), got[field].second->data() + first * nx, count * nx * sizeof(float), gpuMemcpyDeviceToHost));
        for (std::size_t y = first; y < first + count; ++y) {
          const double expected_value = (*want[field])[y * 4], bound = tol.atol + tol.rtol * std::abs(expected_value);
          const float* row = rows.data() + (y - first) * nx;
          const auto wrong = [&](float v) { return !(std::abs(v - expected_value) <= bound); };  // NaN is wrong too
          bool row_ok = true;
          for (std::size_t x = 0; x < nx; ++x) row_ok &= !wrong(row[x]);
          if (row_ok) continue;
          const std::size_t x = std::size_t(std::find_if(row, row + nx, wrong) - row);
          char what[200];
          std::snprintf(what, sizeof what, "%s at x = %zu, y = %zu after %d steps from rest: %.9g, the reference's %.9g",
                        got[field].first, x, y, steps + 1, row[x], expected_value);
          return what;
        }
      }
    return "";
  }
};

void add_capacity_cases(course::bench::Session& session, const std::vector<Channel>& sizes, int steps) {
  for (const Channel& c : sizes)
    for (const ch05::Step& step : ch05::steps()) {
      auto run = std::make_shared<std::optional<CapacityRun>>();
      // The lattice and the three moments; a two-buffer step's load_at_rest also holds a canonical
      // state while it loads.
      const double bytes_per_cell = step.lattice_bytes_per_cell() + 12 + (step.buffers == 1 ? 0 : 4 * ch05::kDirections);
      session.add_problem({.name = name_of(c) + " " + step.source.id(),
                           .device_bytes = double(c.cells()) * bytes_per_cell,
                           .host_bytes = 4 * std::min(double(c.cells()), double(1 << 26)),  // a band of rows read back
                           .build = [run, &step, c, steps](const course::Seed&) { run->emplace(step, c, steps); },
                           .release = [run] { run->reset(); }});
      session.add({.group = "capacity " + name_of(c), .name = step.source.id(),
                   .prepare = [run] { (*run)->lattice->load_at_rest((*run)->channel); },
                   .run = [run] { (*run)->lattice->advance((*run)->steps, nullptr); },
                   .bytes = step.fewest_bytes_per_update() * double(c.cells()) * steps,
                   .rates = {{"MLUP", double(c.cells()) * steps / 1e6}},
                   .validate = [run, &step] { return (*run)->check(step.storage); },
                   .is_experiment = step.source.experiment});
    }
}

}  // namespace

int main(int argc, char** argv) try {
  const bool cpu = course::bench::on_cpu_backend();
  course::bench::Session session(argc, argv,
                                 {{"sizes", ""},  // chosen below: the main sizes, or with --all every one
                                  {"steps", cpu ? "2" : "20"},
                                  {"cpu-size", cpu ? "64x32" : "2048x2048"},
                                  {"flow", ""},
                                  {"accuracy", ""},
                                  {"widths", "24,48,96,192"},
                                  {"tau", "0.8"},
                                  {"only", ""},
                                  {"capacity", ""},
                                  {"vortex", ""}});
  // Every option is read, and refused if wrong, before anything runs, whichever mode reads it.
  const std::string main_sizes = cpu ? "64x32" : "2048x2048,8192x8192";
  const std::string every_size = cpu ? "64x32" : "256x256,1024x1024,2048x2048,4096x4096,8192x8192";
  const std::vector<Channel> sizes =
      parse_sizes(session.text("sizes").empty() ? (session.all() ? every_size : main_sizes) : session.text("sizes"));
  const int steps = int(session.integer("steps", 1000));
  const Channel cpu_channel = parse_size(session.text("cpu-size"));
  const std::vector<int> widths = parse_widths(session.text("widths"));
  const float tau = parse_tau(session.text("tau"));
  const std::vector<std::string> only = parse_only(session.text("only"));
  const std::vector<Channel> capacity = session.text("capacity").empty() ? std::vector<Channel>{} : parse_sizes(session.text("capacity"));
  const std::string mode = session.mode({{.option = "", .uses = {"sizes", "steps", "cpu-size"}, .times = true},
                                         {.option = "flow"},
                                         {.option = "vortex"},
                                         {.option = "accuracy", .uses = {"widths", "tau", "only"}},
                                         {.option = "capacity", .uses = {"steps"}, .times = true}});
  if (mode == "accuracy") {
    check_accuracy_steps(widths, tau);
    write_accuracy(session.text("accuracy"), widths, tau, only);
    return 0;
  }
  if (mode == "vortex") {
    write_vortex(session.text("vortex"));
    return 0;
  }
  if (mode == "flow") {
    write_flow(session.text("flow"));
    return 0;
  }
  const course::Seed seed = session.seed();
  std::printf("inputs from %s; tau %.2f, body force %g, %d time steps a run\n", seed.describe().c_str(), kTau, kForce, steps);

  if (mode == "capacity") {
    add_capacity_cases(session, capacity, steps);
    return session.run();
  }
  // Per channel, on the device: the starting and the stored state, the copies' two, and one
  // step's lattice, the largest. On the host: the state, a copy, and the reference's two in
  // float64.
  double lattice_bytes_per_cell = 0;
  for (const ch05::Step& step : ch05::steps()) lattice_bytes_per_cell = std::max(lattice_bytes_per_cell, step.lattice_bytes_per_cell());
  for (const Channel& c : sizes) {
    auto buffers = std::make_shared<std::optional<Buffers>>();
    session.add_problem({.name = name_of(c),
                         .device_bytes = double(c.cells()) * (4 * 9 * 4 + lattice_bytes_per_cell),
                         .host_bytes = double(c.cells()) * (2 * 9 * 4 + 2 * 9 * 8),
                         .build = [buffers, c, steps](const course::Seed& inputs) { buffers->emplace(c, steps, inputs); },
                         .release = [buffers] { buffers->reset(); }});
    for (const ch05::Step& step : ch05::steps()) {
      session.add({.group = name_of(c), .name = step.source.id(),
                   .prepare = [buffers, &step] {
                     Buffers& b = **buffers;
                     b.lattice_of(step).load(b.initial.data());
                   },
                   .run = [buffers] {
                     Buffers& b = **buffers;
                     b.lattice->advance(b.steps, nullptr);
                   },
                   .bytes = step.fewest_bytes_per_update() * double(c.cells()) * steps,
                   .rates = {{"MLUP", double(c.cells()) * steps / 1e6}},
                   .validate = [buffers, &step] {
                     Buffers& b = **buffers;
                     return b.check(b.lattice_of(step), step.storage);
                   },
                   .is_experiment = step.source.experiment, .family = "channel"});
    }
    // The copies' content is not checked.
    const auto halves = [](DeviceBuffer<float>& room) { return reinterpret_cast<std::uint16_t*>(room.data()); };
    const double updates = double(c.cells()) * steps;
    session.add({.group = name_of(c), .name = "stream copy, 4-byte values",
                 .run = [buffers, c, steps] { ch05::stream_copy_f32((*buffers)->copy_a.data(), (*buffers)->copy_b.data(), c, steps); },
                 .bytes = 72 * updates, .rates = {{"MLUP", updates / 1e6}}, .is_peer = true});
    session.add({.group = name_of(c), .name = "stream copy, 2-byte values",
                 .run = [buffers, c, steps, halves] {
                   ch05::stream_copy_16bit(halves((*buffers)->copy_a), halves((*buffers)->copy_b), c, steps);
                 },
                 .bytes = 36 * updates, .rates = {{"MLUP", updates / 1e6}}, .is_peer = true});
    if (c.nx % 2 == 0)
      session.add({.group = name_of(c), .name = "stream copy, 2-byte values in pairs",
                   .run = [buffers, c, steps, halves] {
                     ch05::stream_copy_16bit_pairs(halves((*buffers)->copy_a), halves((*buffers)->copy_b), c, steps);
                   },
                   .bytes = 36 * updates, .rates = {{"MLUP", updates / 1e6}}, .is_peer = true});
    if (c.nx % 4 == 0)
      session.add({.group = name_of(c), .name = "stream copy, 2-byte values in quads",
                   .run = [buffers, c, steps, halves] {
                     ch05::stream_copy_16bit_quads(halves((*buffers)->copy_a), halves((*buffers)->copy_b), c, steps);
                   },
                   .bytes = 36 * updates, .rates = {{"MLUP", updates / 1e6}}, .is_peer = true});
    session.add({.group = name_of(c), .name = "stream copy, 2-byte values two a thread",
                 .run = [buffers, c, steps, halves] {
                   ch05::stream_copy_16bit_two_a_thread(halves((*buffers)->copy_a), halves((*buffers)->copy_b), c, steps);
                 },
                 .bytes = 36 * updates, .rates = {{"MLUP", updates / 1e6}}, .is_peer = true});
  }

  // The paper's CPU schemes on the host, in the full record only: its two buffers, the moments
  // and the flags a cell (--cpu-size is checked either way).
  session.require_fits({.name = "the CPU schemes' --cpu-size=" + session.text("cpu-size"),
                        .host_bytes = double(cpu_channel.cells()) * (2 * 9 * 4 + 3 * 4 + 2 * 8)});
  if (!session.all()) return session.run();
  session.add_context("host_cpu", host_cpu());
  session.add_context("host_compiler", __VERSION__);
  for (const auto addressing : {ch05::Addressing::linear, ch05::Addressing::subscript}) {
    const char* name = addressing == ch05::Addressing::linear ? "linear" : "subscript";
    const int all = int(std::max(1u, std::thread::hardware_concurrency()));
    for (const int threads : {1, all}) {
      const double rate = cpu_scheme_rate(cpu_channel, addressing, threads, cpu ? 1 : 4);
      std::printf("the paper's CPU scheme, %s addressing, %s, %d thread%s: %.1f MLUPS\n", name,
                  name_of(cpu_channel).c_str(), threads, threads > 1 ? "s" : "", rate);
      session.add_context("cpu_MLUPS " + std::string(name) + " " + std::to_string(threads) + " threads " + name_of(cpu_channel),
                          std::to_string(rate));
    }
  }
  return session.run();
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
