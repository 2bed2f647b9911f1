#include "course/benchmark.hpp"

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>

#include "../bench/flush_l2.hpp"
#include "course/exercise.hpp"
#include "course/gpu.hpp"
#include "course/numbers.hpp"

namespace course::bench {
namespace {

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  remove_unfinished_outputs();
  std::exit(2);
}

// Reads one number from course_ceilings' flat JSON object: finite and above zero.
double json_number(const std::string& text, const std::string& key, const std::string& file) {
  std::smatch match;
  if (!std::regex_search(text, match, std::regex("\"" + key + "\"\\s*:\\s*([^,}\\s]*)")))
    usage_error(file + ": has no \"" + key + "\": write the file with course_ceilings --out=" + file);
  const std::string number = match[1];
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !std::isfinite(value) || value <= 0)
    usage_error(file + ": \"" + key + "\" must be a finite positive number, not " + (number.empty() ? "an empty value" : number));
  return value;
}

// The ceilings in `file`, as course_ceilings --out writes them; a problem names the file and
// what is wrong with it.
Ceilings read_ceilings(const std::string& file) {
  if (file.empty()) usage_error("--ceilings needs a file: --ceilings=FILE, as course_ceilings --out=FILE writes it");
  std::error_code unused;
  if (std::filesystem::is_directory(file, unused)) usage_error(file + ": is a folder, not course_ceilings' JSON file");
  std::ifstream in(file);
  if (!in) usage_error(file + ": cannot read the ceilings file (" + std::strerror(errno) + ")");
  std::stringstream contents;
  contents << in.rdbuf();
  const std::string text = contents.str();
  const auto first = text.find_first_not_of(" \t\r\n"), last = text.find_last_not_of(" \t\r\n");
  if (first == std::string::npos) usage_error(file + ": is empty: write it with course_ceilings --out=" + file);
  if (text[first] != '{' || text[last] != '}')
    usage_error(file + ": is not a JSON object, so not course_ceilings' output: write it with course_ceilings --out=" + file);
  return {json_number(text, "copy_GBps", file), json_number(text, "fma_GFLOPs", file),
          json_number(text, "rsqrt_Gops", file)};
}

constexpr const char* kBenchmarkFlags =
    "--benchmark_filter=REGEX, --benchmark_out=FILE.json and --benchmark_context=KEY=VALUE,...";

// Google Benchmark's flags, checked before it sees them: it answers a value it does not know with
// its usage and exit status 0, which would leave the output file behind. This harness times
// every case itself (one timed run a repetition after an untimed warm-up, in milliseconds) and
// prints its own summary, so the flags that set those would be silently overridden: refused.
void check_benchmark_flag(const std::string& name, const std::string& value, bool has_value) {
  struct Taken {
    std::string only;  // the one value it takes, "" for any
    std::string why;
  };
  static const std::map<std::string, Taken> taken = {
      {"--benchmark_filter", {}},
      {"--benchmark_out", {}},
      {"--benchmark_context", {}},
      {"--benchmark_out_format", {"json", "profiling/results.py reads the JSON"}},
      {"--benchmark_format", {"console", "the console shows the harness's summary; --benchmark_out=FILE.json writes JSON"}}};
  if (name == "--benchmark_repetitions") usage_error("--benchmark_repetitions is not this harness's: give --repetitions=N");
  const auto found = taken.find(name);
  if (found == taken.end())
    usage_error(name + " is not taken: the harness times and reports every case itself; of Google Benchmark's flags it "
                "takes " + kBenchmarkFlags);
  const Taken& flag = found->second;
  if (!has_value) usage_error(name + " needs a value: " + name + "=" + (flag.only.empty() ? "..." : flag.only));
  if (!flag.only.empty() && value != flag.only)
    usage_error(name + " takes only " + flag.only + " (" + flag.why + "), not '" + value + "'");
  if (name == "--benchmark_filter") {
    try {
      const std::regex filter(value, std::regex::extended);
    } catch (const std::regex_error&) {
      usage_error("--benchmark_filter='" + value + "' is not a valid regular expression");
    }
  }
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

struct Summary {
  double median_ms = 0, min_ms = 0, max_ms = 0;
};

// Console output as usual, and the median/min/max of each case kept for the summary table.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  explicit SummaryReporter(bool quiet) : quiet_(quiet) {}
  std::map<std::string, Summary> summaries;

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      Summary& summary = summaries[run.run_name.function_name];
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

// The first `count` lines of a report: a failed case's verdict and its first wrong element.
std::string first_lines(const std::string& text, int count) {
  std::size_t end = 0;
  for (int line = 0; line < count && end != std::string::npos; ++line) end = text.find('\n', end ? end + 1 : 0);
  return end == std::string::npos ? text : text.substr(0, end);
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
void print_group(std::span<const Case> cases, const std::map<std::string, Summary>& summaries,
                 const std::map<std::string, std::string>& notes, const std::optional<Ceilings>& ceilings,
                 double baseline_ms) {
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
  for (const Case& c : cases) {
    if (const auto note = notes.find(c.group + "/" + c.name); note != notes.end()) {
      std::printf("%-34s %s\n", c.name.c_str(), note->second.c_str());
      continue;
    }
    const auto found = summaries.find(c.group + "/" + c.name);
    if (found == summaries.end()) continue;  // filtered out
    const Summary& s = found->second;
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
}

}  // namespace

Session::Session(int argc, char** argv, std::map<std::string, std::string> defaults)
    : options_(std::move(defaults)), seed_(fresh_seed()) {
  exit_with_one_line_on_uncaught_exceptions();
  repetitions_ = on_cpu_backend() ? 3 : 20;
  std::string course_options = "--warm-l2, --quiet, --repetitions=N, --ceilings=FILE";
  for (const auto& [option, fallback] : options_) course_options += ", --" + option + "=" + (fallback.empty() ? "VALUE" : fallback);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf("usage: %s [OPTION]...\nthis benchmark's options: %s\nGoogle Benchmark's: %s\n", argv[0],
                  course_options.c_str(), kBenchmarkFlags);
      std::exit(0);
    }
  }
  // Every argument is checked before anything is created: the output file comes after.
  std::optional<std::string> out_path;
  std::set<std::string> given;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto equals = arg.find('=');
    const bool has_value = equals != std::string::npos;
    const std::string name = arg.substr(0, equals), value = has_value ? arg.substr(equals + 1) : "";
    if (!given.insert(name).second) usage_error(name + " is given twice");
    if (name.rfind("--benchmark_", 0) == 0) {
      check_benchmark_flag(name, value, has_value);
      if (name == "--benchmark_out") out_path = value;
    } else if (name == "--warm-l2" || name == "--quiet") {
      if (has_value) usage_error(name + " takes no value, not '" + arg + "'");
      (name == "--warm-l2" ? warm_l2_ : quiet_) = true;
    } else if (name == "--repetitions") {
      const auto count = parse_whole_number(value, 1, 10000);
      if (!count) usage_error("--repetitions needs a whole number from 1 to 10000, not '" + value + "'");
      repetitions_ = static_cast<int>(*count);
    } else if (name == "--ceilings") {
      ceilings_ = read_ceilings(value);
    } else if (const auto option = options_.find(name.substr(std::min<std::size_t>(2, name.size())));
               name.rfind("--", 0) == 0 && option != options_.end()) {
      if (value.empty()) usage_error(name + " needs a value: " + name + "=" + (option->second.empty() ? "VALUE" : option->second));
      option->second = value;
    } else {
      usage_error("unknown option '" + arg + "'; this benchmark takes " + course_options + ", and of Google Benchmark's flags " +
                  kBenchmarkFlags);
    }
  }
  if (out_path) {  // the JSON goes to a partial file, renamed when the run is whole
    try {
      json_out_ = std::make_unique<OutputFile>(*out_path);
    } catch (const std::exception& error) {
      usage_error(error.what());
    }
    json_out_flag_ = "--benchmark_out=" + json_out_->partial_path();
    for (int i = 1; i < argc; ++i)
      if (std::strncmp(argv[i], "--benchmark_out=", std::strlen("--benchmark_out=")) == 0) argv[i] = json_out_flag_.data();
  }
  benchmark::Initialize(&argc, argv);  // takes the --benchmark_* flags checked above
}

long long Session::integer(const std::string& name, long long max) const {
  const std::string& text = options_.at(name);
  const auto value = parse_whole_number(text, 1, static_cast<std::uint64_t>(max));
  if (!value) usage_error("--" + name + " needs a whole number from 1 to " + std::to_string(max) + ", not '" + text + "'");
  return static_cast<long long>(*value);
}

void Session::require_memory(double device_bytes, double host_bytes, const std::string& problem) const {
  int devices = 0;
  if (gpuGetDeviceCount(&devices) == gpuSuccess && devices > 0) {
    gpuDeviceProp prop{};
    GPU_CHECK(gpuGetDeviceProperties(&prop, 0));
    if (device_bytes > double(prop.totalGlobalMem))
      usage_error(problem + " needs " + fixed(device_bytes / 1e9, 1) + " GB of device memory; " + prop.name + " has " +
                  fixed(double(prop.totalGlobalMem) / 1e9, 1) + " GB");
  }
  const double host_memory = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  if (host_bytes > host_memory)
    usage_error(problem + " needs " + fixed(host_bytes / 1e9, 1) + " GB of host memory; this machine has " +
                fixed(host_memory / 1e9, 1) + " GB");
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

  // Which cases the filter selects (Google Benchmark's rule: a regex, "-" in front negates it).
  std::string filter = benchmark::GetBenchmarkFilter();
  const bool negated = !filter.empty() && filter.front() == '-';
  if (negated) filter.erase(0, 1);
  const std::regex selector(filter.empty() || filter == "all" ? "." : filter, std::regex::extended);
  std::vector<Case*> selected;
  for (Case& c : cases_)
    if (std::regex_search(c.group + "/" + c.name, selector) != negated) selected.push_back(&c);
  if (selected.empty()) {
    std::fprintf(stderr, "error: --benchmark_filter='%s' selects none of the %zu cases (e.g. '%s')\n",
                 benchmark::GetBenchmarkFilter().c_str(), cases_.size(),
                 cases_.empty() ? "" : (cases_.front().group + "/" + cases_.front().name).c_str());
    return 2;
  }

  // Every selected case runs once and is checked before any timing: a step not written yet is
  // skipped, a wrong one fails (with the seed), and only the right ones are timed.
  std::map<std::string, std::string> notes;  // case -> why it was not timed
  int failures = 0;
  const std::string replay = "inputs from " + seed_.describe();
  for (Case* c : selected) {
    const std::string id = c->group + "/" + c->name;
    std::string problem;
    try {
      if (c->prepare) c->prepare();
      c->run();
      GPU_CHECK(gpuDeviceSynchronize());
      if (c->validate) problem = c->validate();
    } catch (const NotImplemented& stub) {
      notes[id] = std::string("skipped: ") + stub.what();
      std::printf("skipped %s: %s\n", id.c_str(), stub.what());
      continue;
    } catch (const std::exception& error) {
      problem = error.what();
    }
    if (problem.empty()) continue;
    ++failures;
    notes[id] = "FAILED (see above)";
    std::printf("FAILED %s: %s\n", id.c_str(), first_lines(problem, 2).c_str());
  }

  L2Flusher flusher(warm_l2_ ? 0 : static_cast<size_t>(prop.l2CacheSize));
  gpuEvent_t start, stop;
  GPU_CHECK(gpuEventCreate(&start));
  GPU_CHECK(gpuEventCreate(&stop));

  std::map<std::string, std::string> late_failures;  // wrong only after timing: reported, never a crash
  int timed = 0;
  for (Case* selected_case : selected) {
    Case& c = *selected_case;
    if (notes.count(c.group + "/" + c.name)) continue;
    ++timed;
    auto body = [&c, &flusher, &late_failures, start, stop, warmed = false, validated = false](benchmark::State& state) mutable {
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
          if (std::string problem = c.validate(); !problem.empty()) late_failures[c.group + "/" + c.name] = problem;
        }
      } catch (const std::exception& error) {
        late_failures[c.group + "/" + c.name] = error.what();
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
  if (timed > 0) benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  GPU_CHECK(gpuEventDestroy(start));
  GPU_CHECK(gpuEventDestroy(stop));
  for (const auto& [id, problem] : late_failures) {
    ++failures;
    notes[id] = "FAILED after timing (see above)";
    std::printf("FAILED %s after timing: %s\n", id.c_str(), first_lines(problem, 2).c_str());
  }

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
  for (std::size_t first = 0; first < cases_.size();) {
    std::size_t end = first;
    while (end < cases_.size() && cases_[end].group == cases_[first].group) ++end;
    print_group({cases_.begin() + first, cases_.begin() + end}, reporter.summaries, notes, ceilings_,
                baseline_ms.count(cases_[first].group) ? baseline_ms[cases_[first].group] : 0.0);
    first = end;
  }
  if (!ceilings_) std::printf("\n(no --ceilings=FILE: run course_ceilings --out=ceilings.json for the 'of' columns)\n");
  if (failures > 0) {
    std::fprintf(stderr, "error: %d case%s failed (%s)%s\n", failures, failures == 1 ? "" : "s", replay.c_str(),
                 json_out_ ? "; no JSON written" : "");
    return 1;
  }
  if (timed == 0) {
    std::fprintf(stderr, "error: nothing to time: every selected case was skipped%s\n", json_out_ ? "; no JSON written" : "");
    return 1;
  }
  if (json_out_) json_out_->commit();
  return 0;
}

}  // namespace course::bench
