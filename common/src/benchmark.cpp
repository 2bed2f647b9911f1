#include "course/benchmark.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <span>
#include <sstream>
#include <stdexcept>

#include "../bench/flush_l2.hpp"
#include "course/gpu.hpp"

namespace course::bench {
namespace {

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(2);
}

// Reads one number from the flat JSON that course_ceilings writes.
double json_number(const std::string& text, const std::string& key, const std::string& file) {
  std::smatch match;
  if (!std::regex_search(text, match, std::regex("\"" + key + "\"\\s*:\\s*([-+0-9.eE]+)")))
    usage_error(file + " has no \"" + key + "\": write it with course_ceilings --out=" + file);
  return std::stod(match[1]);
}

Ceilings read_ceilings(const std::string& file) {
  std::ifstream in(file);
  if (!in) usage_error("cannot read ceilings file " + file);
  std::stringstream text;
  text << in.rdbuf();
  return {json_number(text.str(), "copy_GBps", file), json_number(text.str(), "fma_GFLOPs", file),
          json_number(text.str(), "rsqrt_Gops", file)};
}

std::string commit() {
  if (const char* env = std::getenv("COURSE_GIT_COMMIT")) return env;
  return COURSE_GIT_COMMIT;
}

// What the JSON context says about the machine.
void describe_device(const gpuDeviceProp& prop) {
  benchmark::AddCustomContext("gpu", prop.name);
  benchmark::AddCustomContext("backend", COURSE_BACKEND_NAME);
  benchmark::AddCustomContext("multiprocessors", std::to_string(prop.multiProcessorCount));
  benchmark::AddCustomContext("l2_bytes", std::to_string(prop.l2CacheSize));
  benchmark::AddCustomContext("commit", commit());
#if defined(COURSE_BACKEND_CUDA)
  int driver = 0, sm_khz = 0, memory_khz = 0;
  GPU_CHECK(cudaDriverGetVersion(&driver));
  GPU_CHECK(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, 0));
  GPU_CHECK(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, 0));
  benchmark::AddCustomContext("driver", std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10));
  benchmark::AddCustomContext("sm_clock_max_MHz", std::to_string(sm_khz / 1000));
  benchmark::AddCustomContext("memory_clock_max_MHz", std::to_string(memory_khz / 1000));
#elif defined(COURSE_BACKEND_HIP)
  int driver = 0;
  GPU_CHECK(hipDriverGetVersion(&driver));
  benchmark::AddCustomContext("driver", std::to_string(driver));
  benchmark::AddCustomContext("sm_clock_max_MHz", std::to_string(prop.clockRate / 1000));
  benchmark::AddCustomContext("memory_clock_max_MHz", std::to_string(prop.memoryClockRate / 1000));
#endif
}

// Google Benchmark 1.8 renamed a run's error (error_occurred -> skipped): accept both.
template <class Run>
std::string run_error(const Run& run) {
  if constexpr (requires { run.error_occurred; }) {
    return run.error_occurred ? run.error_message : "";
  } else {
    return run.skipped ? run.skip_message : "";
  }
}

struct Summary {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  std::string error;
};

// Console output as usual, and the median/min/max of each case kept for the summary table.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  explicit SummaryReporter(bool quiet) : quiet_(quiet) {}
  std::map<std::string, Summary> summaries;

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      Summary& summary = summaries[run.run_name.function_name];
      if (const std::string error = run_error(run); !error.empty()) summary.error = error;
      const double ms = run.GetAdjustedRealTime();  // in the run's unit: milliseconds
      if (run.run_type == Run::RT_Iteration && summary.median_ms == 0) {
        summary.median_ms = summary.min_ms = summary.max_ms = ms;  // one repetition: no aggregates follow
      }
      if (run.aggregate_name == "median") summary.median_ms = ms;
      if (run.aggregate_name == "min") summary.min_ms = ms;
      if (run.aggregate_name == "max") summary.max_ms = ms;
    }
    if (!quiet_) ConsoleReporter::ReportRuns(runs);
  }
  bool ReportContext(const Context& context) override { return quiet_ || ConsoleReporter::ReportContext(context); }

 private:
  bool quiet_;
};

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

void sync_event(gpuEvent_t event) { GPU_CHECK(gpuEventSynchronize(event)); }

// The ceiling a rate's unit is measured against, in that unit per second; 0 when it has none.
// The same convention as profiling/results.py.
double ceiling_for(const std::string& unit, const Ceilings& ceilings) {
  if (unit == "GB") return ceilings.copy_GBps;
  if (unit == "GFLOP") return ceilings.fma_GFLOPs;
  if (unit == "Grsqrt") return ceilings.rsqrt_Gops;
  return 0.0;
}
const char* ceiling_name(const std::string& unit) {
  return unit == "GB" ? "of copy" : unit == "GFLOP" ? "of FMA" : unit == "Grsqrt" ? "of rsqrt" : "";
}

// One group's table: median, min, max, then every rate per second and, where its unit has a
// ceiling, the fraction of it; where the group does work against a compute ceiling, the fraction
// of the roofline bound (the slowest of bytes / copy and work / its ceiling). Returns the
// number of failed cases.
int print_group(std::span<const Case> cases, const std::map<std::string, Summary>& summaries,
                const std::optional<Ceilings>& ceilings, double baseline_ms) {
  std::vector<std::string> units{"GB"};  // bytes first, then every other unit in order of appearance
  for (const Case& c : cases)
    for (const Rate& rate : c.rates)
      if (std::find(units.begin(), units.end(), rate.unit) == units.end()) units.push_back(rate.unit);
  const bool roofline = std::any_of(units.begin() + 1, units.end(), [](const std::string& u) { return *ceiling_name(u) != 0; });
  std::string header;
  char cell[64];
  for (const std::string& unit : units) {
    std::snprintf(cell, sizeof cell, " %11s", (unit + "/s").c_str());
    header += cell;
    if (*ceiling_name(unit)) {
      std::snprintf(cell, sizeof cell, " %9s", ceiling_name(unit));
      header += cell;
    }
  }
  if (roofline) header += " of roofline";
  std::printf("\n%-34s %10s %10s %10s%s %9s\n", cases.front().group.c_str(), "median ms", "min ms", "max ms",
              header.c_str(), "vs first");
  int failures = 0;
  for (const Case& c : cases) {
    const auto found = summaries.find(c.group + "/" + c.name);
    if (found == summaries.end()) continue;  // filtered out
    const Summary& s = found->second;
    if (!s.error.empty()) {
      std::printf("%-34s FAILED: %s\n", c.name.c_str(), s.error.c_str());
      ++failures;
      continue;
    }
    const double seconds = s.median_ms / 1e3;
    std::string row;
    double bound_seconds = 0;  // the roofline: the slowest ceiling for this case's work
    for (const std::string& unit : units) {
      double amount = unit == "GB" ? c.bytes / 1e9 : -1;
      for (const Rate& rate : c.rates)
        if (rate.unit == unit) amount = rate.amount;
      std::snprintf(cell, sizeof cell, " %11s", amount < 0 ? "" : fixed(amount / seconds, 1).c_str());
      row += cell;
      if (!*ceiling_name(unit)) continue;
      const double ceiling = ceilings ? ceiling_for(unit, *ceilings) : 0.0;
      std::snprintf(cell, sizeof cell, " %9s", amount < 0 || ceiling <= 0 ? "-" : fixed(amount / seconds / ceiling, 3).c_str());
      row += cell;
      if (amount > 0 && ceiling > 0) bound_seconds = std::max(bound_seconds, amount / ceiling);
    }
    if (roofline) {
      std::snprintf(cell, sizeof cell, " %11s", bound_seconds > 0 && ceilings ? fixed(bound_seconds / seconds, 3).c_str() : "-");
      row += cell;
    }
    const std::string speedup = baseline_ms > 0 ? fixed(baseline_ms / s.median_ms, 2) + "x" : "-";
    std::printf("%-34s %10.4f %10.4f %10.4f%s %9s\n", ((c.is_peer ? "[peer] " : "") + c.name).c_str(), s.median_ms,
                s.min_ms, s.max_ms, row.c_str(), speedup.c_str());
  }
  return failures;
}

}  // namespace

Session::Session(int argc, char** argv, std::map<std::string, std::string> defaults) : options_(std::move(defaults)) {
  benchmark::Initialize(&argc, argv);  // removes the --benchmark_* flags it knows
  repetitions_ = on_cpu_backend() ? 3 : 20;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto equals = arg.find('=');
    const std::string name = arg.substr(0, equals), value = equals == std::string::npos ? "" : arg.substr(equals + 1);
    if (name == "--warm-l2" && value.empty()) {
      warm_l2_ = true;
    } else if (name == "--quiet" && value.empty()) {
      quiet_ = true;
    } else if (name == "--repetitions") {
      repetitions_ = std::atoi(value.c_str());
      if (repetitions_ < 1) usage_error("--repetitions needs a positive number, not '" + value + "'");
    } else if (name == "--ceilings") {
      ceilings_ = read_ceilings(value);
    } else if (name.rfind("--", 0) == 0 && options_.count(name.substr(2)) && !value.empty()) {
      options_[name.substr(2)] = value;
    } else {
      std::string known = "--warm-l2, --quiet, --repetitions=N, --ceilings=FILE";
      for (const auto& [option, fallback] : options_) known += ", --" + option + "=" + fallback;
      usage_error("unknown option '" + arg + "'; this benchmark takes " + known +
                  " and Google Benchmark's --benchmark_* flags");
    }
  }
}

long long Session::integer(const std::string& name) const {
  const std::string& text = options_.at(name);
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || value <= 0)
    usage_error("--" + name + " needs a positive whole number, not '" + text + "'");
  return value;
}

void Session::add(Case c) { cases_.push_back(std::move(c)); }

void Session::add_context(const std::string& key, const std::string& value) { benchmark::AddCustomContext(key, value); }

int Session::run() {
  int devices = 0;
  const gpuError_t status = gpuGetDeviceCount(&devices);
  if (status != gpuSuccess || devices == 0) {
    std::fprintf(stderr, "error: no %s device (%s); configure with the cpu preset to benchmark on the CPU backend\n",
                 COURSE_BACKEND_NAME, gpuGetErrorString(status));
    return kNoDevice;
  }
  gpuDeviceProp prop{};
  GPU_CHECK(gpuGetDeviceProperties(&prop, 0));
  describe_device(prop);
  benchmark::AddCustomContext("l2_flushed", warm_l2_ ? "no" : "yes");
  for (const auto& [name, value] : options_) benchmark::AddCustomContext(name, value);
  if (ceilings_) {
    benchmark::AddCustomContext("ceiling_copy_GBps", fixed(ceilings_->copy_GBps, 1));
    benchmark::AddCustomContext("ceiling_fma_GFLOPs", fixed(ceilings_->fma_GFLOPs, 1));
    benchmark::AddCustomContext("ceiling_rsqrt_Gops", fixed(ceilings_->rsqrt_Gops, 1));
  }

  L2Flusher flusher(warm_l2_ ? 0 : static_cast<size_t>(prop.l2CacheSize));
  gpuEvent_t start, stop;
  GPU_CHECK(gpuEventCreate(&start));
  GPU_CHECK(gpuEventCreate(&stop));

  for (Case& c : cases_) {
    auto body = [&c, &flusher, start, stop, warmed = false, validated = false](benchmark::State& state) mutable {
      try {
        if (!warmed) {  // module load, first-touch and cache warm-up stay out of the numbers
          if (c.prepare) c.prepare();
          c.run();
          GPU_CHECK(gpuDeviceSynchronize());
          warmed = true;
        }
        for (auto _ : state) {
          if (c.prepare) c.prepare();
          flusher.flush();
          GPU_CHECK(gpuEventRecord(start));
          c.run();
          GPU_CHECK(gpuEventRecord(stop));
          sync_event(stop);
          float ms = 0;
          GPU_CHECK(gpuEventElapsedTime(&ms, start, stop));
          state.SetIterationTime(ms / 1e3);
          state.counters["GB/s"] = c.bytes / 1e9 / (ms / 1e3);
          for (const Rate& rate : c.rates) state.counters[rate.unit + "/s"] = rate.amount / (ms / 1e3);
        }
        if (!validated && c.validate) {  // once, after timing: the timed runs computed this
          validated = true;
          if (const std::string problem = c.validate(); !problem.empty()) state.SkipWithError(problem.c_str());
        }
      } catch (const std::exception& error) {
        state.SkipWithError(error.what());
      }
    };
    auto* registered = benchmark::RegisterBenchmark((c.group + "/" + c.name).c_str(), body);
    registered->UseManualTime()
        ->Iterations(1)
        ->Repetitions(repetitions_)
        ->DisplayAggregatesOnly(true)
        ->Unit(benchmark::kMillisecond)
        ->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
        ->ComputeStatistics("max", [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); });
  }

  SummaryReporter reporter(quiet_);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  GPU_CHECK(gpuEventDestroy(start));
  GPU_CHECK(gpuEventDestroy(stop));

  // The summary: one table per group; speedups are over the group's first step (not a peer).
  std::printf("\n%s on %s (backend %s, commit %s, L2 %s)%s\n", "Summary", prop.name, COURSE_BACKEND_NAME,
              commit().c_str(), warm_l2_ ? "warm" : "flushed before each run",
              on_cpu_backend() ? "\nCPU backend: these times are not GPU times." : "");
  std::map<std::string, double> baseline_ms;
  for (const Case& c : cases_) {
    const auto found = reporter.summaries.find(c.group + "/" + c.name);
    if (!c.is_peer && found != reporter.summaries.end() && !baseline_ms.count(c.group))
      baseline_ms[c.group] = found->second.median_ms;
  }
  int failures = 0;
  for (std::size_t first = 0; first < cases_.size();) {
    std::size_t end = first;
    while (end < cases_.size() && cases_[end].group == cases_[first].group) ++end;
    failures += print_group({cases_.begin() + first, cases_.begin() + end}, reporter.summaries, ceilings_,
                            baseline_ms.count(cases_[first].group) ? baseline_ms[cases_[first].group] : 0.0);
    first = end;
  }
  if (!ceilings_) std::printf("\n(no --ceilings=FILE: run course_ceilings --out=ceilings.json for the 'of' columns)\n");
  return failures == 0 ? 0 : 1;
}

}  // namespace course::bench
