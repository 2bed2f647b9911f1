#include "course/benchmark.hpp"

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>

#include "../bench/flush_l2.hpp"
#include "course/exercise.hpp"
#include "course/gpu.hpp"
#include "course/numbers.hpp"
#include "course/random.hpp"

namespace course::bench {

void refuse(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(2);
}

namespace {

// Reads one number from course_ceilings' flat JSON object: finite and above zero.
double json_number(const std::string& text, const std::string& key, const std::string& file) {
  std::smatch match;
  if (!std::regex_search(text, match, std::regex("\"" + key + "\"\\s*:\\s*([^,}\\s]*)")))
    refuse(file + ": has no \"" + key + "\": write the file with course_ceilings --out=" + file);
  const std::string number = match[1];
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !std::isfinite(value) || value <= 0)
    refuse(file + ": \"" + key + "\" must be a finite positive number, not " + (number.empty() ? "an empty value" : number));
  return value;
}

// The ceilings in `file`, as course_ceilings --out writes them; a problem names the file and
// what is wrong with it.
Ceilings read_ceilings(const std::string& file) {
  if (file.empty()) refuse("--ceilings needs a file: --ceilings=FILE, as course_ceilings --out=FILE writes it");
  std::error_code unused;
  if (std::filesystem::is_directory(file, unused)) refuse(file + ": is a folder, not course_ceilings' JSON file");
  std::ifstream in(file);
  if (!in) refuse(file + ": cannot read the ceilings file (" + std::strerror(errno) + ")");
  std::stringstream contents;
  contents << in.rdbuf();
  const std::string text = contents.str();
  const auto first = text.find_first_not_of(" \t\r\n"), last = text.find_last_not_of(" \t\r\n");
  if (first == std::string::npos) refuse(file + ": is empty: write it with course_ceilings --out=" + file);
  if (text[first] != '{' || text[last] != '}')
    refuse(file + ": is not a JSON object, so not course_ceilings' output: write it with course_ceilings --out=" + file);
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
  if (name == "--benchmark_repetitions") refuse("--benchmark_repetitions is not this harness's: give --repetitions=N");
  const auto found = taken.find(name);
  if (found == taken.end())
    refuse(name + " is not taken: the harness times and reports every case itself; of Google Benchmark's flags it "
           "takes " + kBenchmarkFlags);
  const Taken& flag = found->second;
  if (!has_value) refuse(name + " needs a value: " + name + "=" + (flag.only.empty() ? "..." : flag.only));
  if (!flag.only.empty() && value != flag.only)
    refuse(name + " takes only " + flag.only + " (" + flag.why + "), not '" + value + "'");
  if (name == "--benchmark_filter") {
    try {
      const std::regex filter(value, std::regex::extended);
    } catch (const std::regex_error&) {
      refuse("--benchmark_filter='" + value + "' is not a valid regular expression");
    }
  }
}

std::string commit() {
  if (const char* env = std::getenv("COURSE_GIT_COMMIT")) return env;
  return COURSE_GIT_COMMIT;
}

// "NVIDIA T4, sm_75": the device and, on CUDA, its architecture.
std::string describe_architecture(const gpuDeviceProp& prop) {
#if defined(COURSE_BACKEND_CUDA)
  return std::string(prop.name) + ", sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
#elif defined(COURSE_BACKEND_HIP)
  return std::string(prop.name) + ", " + prop.gcnArchName;
#else
  return prop.name;
#endif
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

// Whether Google Benchmark ran `run` without a time: a case the harness skipped or failed
// (SkipWithError). Version 1.8 renamed the field (error_occurred -> skipped): accept both.
template <class Run>
bool has_no_time(const Run& run) {
  if constexpr (requires { run.error_occurred; }) {
    return run.error_occurred;
  } else {
    return run.skipped;
  }
}

// Console output as usual, and the median/min/max of each case kept for the summary table. Runs
// without a time are left out of both: the summary gives their case's note instead.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  explicit SummaryReporter(bool quiet) : quiet_(quiet) {}
  std::map<std::string, Summary> summaries;

  void ReportRuns(const std::vector<Run>& all_runs) override {
    std::vector<Run> runs;
    std::copy_if(all_runs.begin(), all_runs.end(), std::back_inserter(runs), [](const Run& run) { return !has_no_time(run); });
    if (runs.empty()) return;
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

std::string case_id(const Case& c) { return c.group + "/" + c.name; }

// A case as the console shows it: peers and experiments marked.
std::string display_name(const Case& c) { return (c.is_peer ? "[peer] " : c.is_experiment ? "[experiment] " : "") + c.name; }

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0.0 : values[values.size() / 2];
}

// "16.4 GB", or "3.1 MB" below a gigabyte.
std::string memory_size(double bytes) { return bytes >= 1e9 ? fixed(bytes / 1e9, 1) + " GB" : fixed(bytes / 1e6, 1) + " MB"; }

// The value of `key` in a file of "key value" lines such as /proc/meminfo ("MemAvailable:  123 kB").
std::optional<double> number_in(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string name;
  double value = 0;
  while (in >> name >> value) {
    if (name == key) return value;
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return std::nullopt;
}

// The host's memory free now, as the device's is what it has free: what the kernel can give
// without swapping (MemAvailable), and no more than a memory cgroup's limit leaves (a container's).
double host_memory_free() {
  double bytes = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  if (const auto available_kB = number_in("/proc/meminfo", "MemAvailable:")) bytes = std::min(bytes, *available_kB * 1024);
  std::ifstream limit_file("/sys/fs/cgroup/memory.max"), used_file("/sys/fs/cgroup/memory.current");
  double limit = 0, used = 0;
  if (limit_file >> limit && used_file >> used) bytes = std::min(bytes, std::max(0.0, limit - used));  // "max": no limit
  return bytes;
}

// What a problem may hold: on a GPU, the device memory free when the session starts (after the
// runtime's context and the L2 flush buffer took theirs), and the host's RAM free; on the CPU
// backend the device's memory is the host's, so both needs together against the RAM free.
struct Memory {
  double device = 0;
  std::string device_has;  // "the NVIDIA H200 has 140.1 GB free"
  double host = 0;
};

Memory available_memory(const gpuDeviceProp& prop, std::optional<double> cap) {
  Memory memory{.host = host_memory_free()};
#if defined(COURSE_BACKEND_CUDA) || defined(COURSE_BACKEND_HIP)
  size_t free = 0, total = 0;
#if defined(COURSE_BACKEND_CUDA)
  GPU_CHECK(cudaMemGetInfo(&free, &total));
#else
  GPU_CHECK(hipMemGetInfo(&free, &total));
#endif
  memory.device = double(free);
  memory.device_has = std::string("the ") + prop.name + " has " + memory_size(memory.device) + " free";
#else
  memory.device = memory.host;
  memory.device_has = "this machine has " + memory_size(memory.host) + " of RAM free";
#endif
  if (cap && *cap < memory.device) {
    memory.device = *cap;
    memory.device_has = "COURSE_DEVICE_MEMORY_MB=" + fixed(*cap / 1e6, 0) + " allows " + memory_size(*cap);
  }
  return memory;
}

// Why `problem` cannot be built here ("needs ... ; ... has ..."), or "" when it fits.
std::string why_it_does_not_fit(const Problem& problem, const Memory& memory) {
  if (on_cpu_backend()) {
    const double bytes = problem.devices * problem.device_bytes + problem.host_bytes;
    const std::string whose = problem.devices > 1 ? "its " + std::to_string(problem.devices) + " devices' bytes and the host's"
                                                  : "its device and host bytes";
    return bytes > memory.device ? "needs " + memory_size(bytes) + " of memory (" + whose + ": one RAM on the CPU backend); " +
                                       memory.device_has
                                 : "";
  }
  if (problem.device_bytes > memory.device)
    return "needs " + memory_size(problem.device_bytes) + " of device memory; " + memory.device_has;
  if (problem.host_bytes > memory.host)
    return "needs " + memory_size(problem.host_bytes) + " of host memory; this machine has " + memory_size(memory.host) +
           " of RAM free";
  return "";
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

// The roofline bound of a case's work: the longest time any ceiling allows for it (bytes / copy,
// each rate / its ceiling), and the unit whose ceiling sets it; {0, ""} without ceilings.
struct Bound {
  double seconds = 0;
  std::string unit;
};
Bound roofline_bound(const Case& c, const std::optional<Ceilings>& ceilings) {
  Bound bound;
  if (!ceilings) return bound;
  std::vector<Rate> work = c.rates;
  work.push_back({"GB", c.bytes / 1e9});
  for (const Rate& rate : work)
    if (const double ceiling = ceiling_for(rate.unit, *ceilings); ceiling > 0 && rate.amount / ceiling > bound.seconds)
      bound = {rate.amount / ceiling, rate.unit};
  return bound;
}

// How a case that took `seconds` stands against the ceiling that binds its work: "0.853 of copy";
// without ceilings, its bandwidth.
std::string against_binding_ceiling(const Case& c, double seconds, const std::optional<Ceilings>& ceilings) {
  const Bound bound = roofline_bound(c, ceilings);
  if (bound.unit.empty()) return fixed(c.bytes / 1e9 / seconds, 1) + " GB/s";
  return fixed(bound.seconds / seconds, 3) + " " + ceiling_name(bound.unit);
}

// One group's table: median, min, max, then every rate per second and, where its unit has a
// ceiling, the fraction of it; where the group does work against a compute ceiling, the fraction
// of the roofline bound (the slowest of bytes / copy and work / its ceiling).
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
    }
    if (roofline) {
      const Bound bound = roofline_bound(c, ceilings);
      std::snprintf(cell, sizeof cell, " %11s", bound.seconds > 0 ? fixed(bound.seconds / seconds, 3).c_str() : "-");
      row += cell;
    }
    const std::string speedup = baseline_ms > 0 ? fixed(baseline_ms / s.median_ms, 2) + "x" : "-";
    std::printf("%-34s %10.4f %10.4f %10.4f%s %9s\n", display_name(c).c_str(), s.median_ms,
                s.min_ms, s.max_ms, row.c_str(), speedup.c_str());
  }
}

}  // namespace

Session::Session(int argc, char** argv, std::map<std::string, std::string> defaults)
    : options_(std::move(defaults)), seed_(fresh_seed()) {
  exit_with_one_line_on_uncaught_exceptions();
  repetitions_ = on_cpu_backend() ? 3 : 20;
  std::string course_options = "--all, --warm-l2, --quiet, --verdict, --repetitions=N, --ceilings=FILE";
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
  std::set<std::string> seen;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto equals = arg.find('=');
    const bool has_value = equals != std::string::npos;
    const std::string name = arg.substr(0, equals), value = has_value ? arg.substr(equals + 1) : "";
    if (!seen.insert(name).second) refuse(name + " is given twice");
    const bool chapter_option = name.rfind("--", 0) == 0 && options_.count(name.substr(2));
    (chapter_option ? given_ : harness_given_).push_back(chapter_option ? name.substr(2) : name);
    if (name.rfind("--benchmark_", 0) == 0) {
      check_benchmark_flag(name, value, has_value);
      if (name == "--benchmark_out") out_path = value;
    } else if (name == "--warm-l2" || name == "--quiet" || name == "--verdict" || name == "--all") {
      if (has_value) refuse(name + " takes no value, not '" + arg + "'");
      (name == "--warm-l2" ? warm_l2_ : name == "--quiet" ? quiet_ : name == "--verdict" ? verdict_ : all_) = true;
    } else if (name == "--repetitions") {
      const auto count = parse_whole_number(value, 1, 10000);
      if (!count) refuse("--repetitions needs a whole number from 1 to 10000, not '" + value + "'");
      repetitions_ = static_cast<int>(*count);
    } else if (name == "--ceilings") {
      ceilings_ = read_ceilings(value);
    } else if (const auto option = options_.find(name.substr(std::min<std::size_t>(2, name.size())));
               name.rfind("--", 0) == 0 && option != options_.end()) {
      if (value.empty()) refuse(name + " needs a value: " + name + "=" + (option->second.empty() ? "VALUE" : option->second));
      option->second = value;
    } else {
      refuse("unknown option '" + arg + "'; this benchmark takes " + course_options + ", and of Google Benchmark's flags " +
             kBenchmarkFlags);
    }
  }
  if (verdict_ && all_) refuse("--verdict times the taught steps only; --all does not go with it");
  if (out_path) {  // the JSON goes to a partial file, renamed when the run is whole
    try {
      json_out_ = std::make_unique<OutputFile>(*out_path);
    } catch (const std::exception& error) {
      refuse(error.what());
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
  if (!value) refuse("--" + name + " needs a whole number from 1 to " + std::to_string(max) + ", not '" + text + "'");
  return static_cast<long long>(*value);
}

std::optional<double> Session::device_memory_cap() {
  const auto megabytes = environment_number("COURSE_DEVICE_MEMORY_MB", 1, std::uint64_t{1} << 40,
                                            "the most device memory, in MB of 1e6 bytes, a benchmark may count on");
  if (!megabytes) return std::nullopt;
  return double(*megabytes) * 1e6;
}

void Session::add_problem(Problem problem) {
  for (const Problem& other : problems_)
    if (other.name == problem.name) refuse("two problems are named '" + problem.name + "' (a size given twice?)");
  problems_.push_back(std::move(problem));
}

void Session::add(Case c) {
  if (problems_.empty()) throw std::logic_error("Session::add(" + case_id(c) + "): declare its Problem first");
  for (const Case& other : cases_)
    if (case_id(other) == case_id(c))
      refuse("two cases are named '" + case_id(c) + "' (a size given twice?); their results would merge");
  cases_.push_back(std::move(c));
  problem_of_.push_back(problems_.size() - 1);
}

std::string Session::does_not_fit(const Problem& problem) const {
  gpuDeviceProp prop{};
  GPU_CHECK(gpuGetDeviceProperties(&prop, 0));
  return why_it_does_not_fit(problem, available_memory(prop, device_memory_cap_));
}

void Session::require_fits(const Problem& problem) const {
  if (const std::string why = does_not_fit(problem); !why.empty()) refuse(problem.name + " " + why);
}

bool Session::given(const std::string& name) const {
  if (!options_.count(name)) throw std::logic_error("Session::given(\"" + name + "\"): not one of the chapter's options");
  return std::find(given_.begin(), given_.end(), name) != given_.end();
}

std::string Session::mode(const std::vector<Mode>& modes) const {
  const auto named = [](const Mode& m) { return m.option.empty() ? std::string("the benchmark") : "--" + m.option; };
  const Mode* chosen = nullptr;
  for (const Mode& m : modes)
    if (!m.option.empty() && given(m.option)) {
      if (chosen) refuse(named(*chosen) + " and " + named(m) + " are runs of their own: give one of them");
      chosen = &m;
    }
  if (!chosen) {
    const auto timing = std::find_if(modes.begin(), modes.end(), [](const Mode& m) { return m.option.empty(); });
    if (timing == modes.end()) throw std::logic_error("Session::mode: no Mode with option \"\" (the benchmark)");
    chosen = &*timing;
  }
  for (const std::string& name : given_) {
    if (name == chosen->option || std::count(chosen->uses.begin(), chosen->uses.end(), name)) continue;
    const auto reader = std::find_if(modes.begin(), modes.end(), [&](const Mode& m) {
      return m.option == name || std::count(m.uses.begin(), m.uses.end(), name);
    });
    refuse("--" + name + (reader != modes.end() ? " is for " + named(*reader) : std::string(" is read by none of its runs")) +
           "; " + named(*chosen) + " does not read it");
  }
  if (!chosen->times && !harness_given_.empty())
    refuse(harness_given_.front() + " is for timing; " + named(*chosen) + " times nothing");
  return chosen->option;
}

void Session::add_context(const std::string& key, const std::string& value) { benchmark::AddCustomContext(key, value); }

namespace {

// What one case went through in run().
struct CaseRecord {
  bool selected = false;
  std::string note;  // why it has no time in the summary ("skipped: ...", "FAILED ..."); "" while it is fine
  int runs = 0;      // timed repetitions done
  // Per timed run: the event pair's time, the synchronise after the stop event, and a second
  // synchronise right after it (nothing left to wait for: what synchronising costs here and now).
  std::vector<double> event_ms, busy_after_ms, idle_sync_ms;
};

}  // namespace

// run()'s work, problem by problem: Google Benchmark calls body() for each repetition of each
// registered case, in order, so the first body of a problem's cases builds it and checks them
// all, and the first body of the next problem (or run(), after the last) finishes it.
struct Session::Timing {
  Session& session;
  L2Flusher flusher;
  gpuEvent_t start = nullptr, stop = nullptr;
  std::vector<CaseRecord> cases;
  std::vector<std::string> found_after_timing;  // "FAILED case after timing: ...", printed after the run
  int failures = 0;
  int registered = 0, finished = 0;    // cases handed to Google Benchmark, and those done
  std::optional<std::size_t> current;  // the problem being timed
  bool built = false;                  // whether it holds memory now

  Timing(Session& s, std::size_t l2_bytes) : session(s), flusher(l2_bytes), cases(s.cases_.size()) {
    GPU_CHECK(gpuEventCreate(&start));
    GPU_CHECK(gpuEventCreate(&stop));
  }
  ~Timing() {  // unchecked: a destructor cannot throw, and a failure here follows one already reported
    (void)gpuEventDestroy(start);
    (void)gpuEventDestroy(stop);
  }

  std::vector<std::size_t> selected_cases_of(std::size_t problem) const {
    std::vector<std::size_t> found;
    for (std::size_t i = 0; i < cases.size(); ++i)
      if (cases[i].selected && session.problem_of_[i] == problem) found.push_back(i);
    return found;
  }

  void fail(std::size_t i, const std::string& what) {  // before timing: said at once
    ++failures;
    cases[i].note = "FAILED (see above)";
    std::printf("FAILED %s: %s\n", case_id(session.cases_[i]).c_str(), first_lines(what, 2).c_str());
  }
  void fail_after_timing(std::size_t i, const std::string& what) {  // said after the run, with the others
    if (!cases[i].note.empty()) return;  // one failure a case is enough
    ++failures;
    cases[i].note = "FAILED after timing (see above)";
    found_after_timing.push_back("FAILED " + case_id(session.cases_[i]) + " after timing: " + first_lines(what, 2));
  }

  // Whether any process passed true (on every process alike).
  bool any(bool mine) const { return session.processes_.max(mine ? 1.0 : 0.0) > 0; }

  // Case `i`'s verdict made alike on every process: a case another process failed fails here too,
  // else one it skipped is skipped, so that all run the same cases (each of which may wait in a
  // collective for the others).
  void agree_on(std::size_t i, bool timed) {
    const std::string& note = cases[i].note;
    const double mine = note.rfind("FAILED", 0) == 0 ? 2 : note.empty() ? 0 : 1;
    const double worst = session.processes_.max(mine);
    if (worst <= mine) return;
    if (worst == 1) {
      cases[i].note.clear();
      skip(i, "skipped on another process (its line says why)");
    } else if (timed) {
      fail_after_timing(i, "failed on another process (its line says why)");
    } else {
      cases[i].note.clear();
      fail(i, "failed on another process (its line says why)");
    }
  }

  // A stub, or a step this device cannot run, is skipped, saying why.
  void skip(std::size_t i, const char* why) {
    cases[i].note = std::string("skipped: ") + why;
    std::printf("skipped %s: %s\n", case_id(session.cases_[i]).c_str(), why);
  }

  // One run of case `i`, checked: "" when its output is right. A stub's NotImplemented and a
  // device's Unsupported pass through.
  std::string run_once_and_check(std::size_t i) {
    const Case& c = session.cases_[i];
    try {
      if (c.prepare) c.prepare();
      c.run();
      GPU_CHECK(gpuDeviceSynchronize());
      return c.validate ? c.validate() : std::string();
    } catch (const NotImplemented&) {
      throw;
    } catch (const Unsupported&) {
      throw;
    } catch (const std::exception& error) {
      return error.what();
    }
  }

  // Builds problem `problem` from the run's seed and checks its selected cases: a stub is
  // skipped, a wrong case fails; only the others are timed. The problem before it is finished.
  void enter(std::size_t problem) {
    if (current == problem) return;
    if (current) finish();
    current = problem;
    const Problem& p = session.problems_[problem];
    progress("building " + p.name + ", then checking each of its cases once before timing");
    std::string failure;
    try {
      p.build(session.seed_);
    } catch (const std::exception& error) {
      failure = error.what();
    }
    if (any(!failure.empty())) {
      p.release();
      std::printf("FAILED %s: could not build it: %s\n", p.name.c_str(),
                  failure.empty() ? "another process could not (its line says why)" : failure.c_str());
      for (const std::size_t i : selected_cases_of(problem)) {
        ++failures;
        cases[i].note = "FAILED (see above)";
      }
      return;
    }
    built = true;
    for (const std::size_t i : selected_cases_of(problem)) {
      try {
        if (const std::string wrong = run_once_and_check(i); !wrong.empty()) fail(i, wrong);
      } catch (const NotImplemented& stub) {
        skip(i, stub.what());
      } catch (const Unsupported& lacking) {
        skip(i, lacking.what());
      }
      agree_on(i, false);
      if (cases[i].note.empty()) progress("  checked " + display_name(session.cases_[i]));
    }
  }

  // --quiet: what the session is doing between timed cases, so that it is never silent for long.
  void progress(const std::string& line) const {
    if (!session.quiet_) return;
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }

  // Builds the current problem again from a fresh seed and checks every case timed on it once
  // more (a step that kept its first answer fails here), then releases it.
  void finish() {
    const std::size_t problem = *current;
    current.reset();
    if (!built) return;
    built = false;
    const Problem& p = session.problems_[problem];
    std::vector<std::size_t> timed;
    for (const std::size_t i : selected_cases_of(problem))
      if (cases[i].note.empty() && cases[i].runs == session.repetitions_ && session.cases_[i].validate) timed.push_back(i);
    if (!timed.empty()) {
      // Derived from the run's seed, so that COURSE_SEED replays the fresh inputs too.
      const Seed fresh{session.seed_.value + 0x9E3779B97F4A7C15ull * (problem + 1)};
      const std::string inputs = "on fresh inputs from seed " + std::to_string(fresh.value) + " (the run replays with " +
                                 replay_environment(session.seed_) + ")";
      progress("building " + p.name + " again on fresh inputs, then checking each timed case on them");
      std::string failure;
      try {
        p.release();
        p.build(fresh);
      } catch (const std::exception& error) {
        failure = error.what();
      }
      if (any(!failure.empty())) {
        if (failure.empty()) failure = "another process could not (its line says why)";
        for (const std::size_t i : timed) fail_after_timing(i, "could not build " + p.name + " " + inputs + ": " + failure);
      } else {
        for (const std::size_t i : timed) {
          try {
            if (const std::string wrong = run_once_and_check(i); !wrong.empty()) fail_after_timing(i, inputs + ": " + wrong);
          } catch (const std::exception& error) {  // a stub's or a device's refusal, now: the step changed its answer
            fail_after_timing(i, inputs + ": " + error.what());
          }
          agree_on(i, true);
          if (cases[i].note.empty()) progress("  checked again " + display_name(session.cases_[i]));
        }
      }
    }
    p.release();
  }

  // After the last timed run of case `i`: its output checked, and the device's work after the
  // stop event weighed. Work the case left on another stream makes the synchronise after the stop
  // event longer than the idle one that follows it, on every run; the medians decide, so one
  // slow synchronise (the host descheduled) is not a failure, and neither is a slow driver when
  // other processes share the GPU (ctest --parallel), which slows both synchronises alike. An
  // excess over max(10% of the timed median, 50 us) would leave out a tenth or more of the work.
  void after_last_run(std::size_t i) {
    const Case& c = session.cases_[i];
    CaseRecord& record = cases[i];
    if (c.validate)
      if (const std::string wrong = c.validate(); !wrong.empty()) fail_after_timing(i, "the last timed run's output: " + wrong);
    const double event_ms = median(record.event_ms);
    const double busy_ms = median(record.busy_after_ms) - median(record.idle_sync_ms);
    if (busy_ms > std::max(0.1 * event_ms, 0.05))
      fail_after_timing(i, "work ran outside the timed stream (another stream?): the device was busy " + fixed(busy_ms, 3) +
                               " ms (median, beyond an idle synchronise) after the stop event of a " + fixed(event_ms, 3) +
                               " ms timed run");
    agree_on(i, true);
  }

  // --quiet: one line as each case finishes, so that a long run is never silent for long.
  void report_finished(std::size_t i) {
    const Case& c = session.cases_[i];
    const CaseRecord& record = cases[i];
    ++finished;
    const std::string progress = "[" + std::to_string(finished) + "/" + std::to_string(registered) + "]";
    if (!record.note.empty()) {
      std::printf("%-9s %-40s %s: %s\n", progress.c_str(), display_name(c).c_str(), c.group.c_str(), record.note.c_str());
    } else {
      const double ms = median(record.event_ms);
      std::printf("%-9s %-40s %s: %.4f ms, %s\n", progress.c_str(), display_name(c).c_str(),
                  c.group.c_str(), ms, against_binding_ceiling(c, ms / 1e3, session.ceilings_).c_str());
    }
    std::fflush(stdout);
  }

  // One repetition of case `i`.
  void body(benchmark::State& state, std::size_t i) {
    enter(session.problem_of_[i]);
    CaseRecord& record = cases[i];
    if (!record.note.empty()) {  // skipped or failed: Google Benchmark gets no time, the summary the note
      state.SkipWithError(record.note.c_str());
      return;
    }
    const Case& c = session.cases_[i];
    try {
      if (record.runs == 0) {  // module load, first-touch and cache warm-up stay out of the numbers
        if (c.prepare) c.prepare();
        c.run();
        GPU_CHECK(gpuDeviceSynchronize());
      }
      for (auto _ : state) {
        if (c.prepare) c.prepare();
        flusher.flush();
        session.processes_.barrier();  // every process starts its clock together
        GPU_CHECK(gpuEventRecord(start));
        c.run();
        GPU_CHECK(gpuEventRecord(stop));
        sync_event(stop);
        const auto stopped = std::chrono::steady_clock::now();
        GPU_CHECK(gpuDeviceSynchronize());  // whatever the case started beside the timed stream
        const auto drained = std::chrono::steady_clock::now();
        GPU_CHECK(gpuDeviceSynchronize());
        const auto idle = std::chrono::steady_clock::now();
        record.busy_after_ms.push_back(std::chrono::duration<double, std::milli>(drained - stopped).count());
        record.idle_sync_ms.push_back(std::chrono::duration<double, std::milli>(idle - drained).count());
        float own_ms = 0;
        GPU_CHECK(gpuEventElapsedTime(&own_ms, start, stop));
        const double ms = session.processes_.max(own_ms);  // the slowest process's
        record.event_ms.push_back(ms);
        state.SetIterationTime(ms / 1e3);
        state.counters["GB/s"] = c.bytes / 1e9 / (ms / 1e3);
        for (const Rate& rate : c.rates) state.counters[rate.unit + "/s"] = rate.amount / (ms / 1e3);
      }
      if (++record.runs == session.repetitions_) {
        after_last_run(i);
        if (session.quiet_) report_finished(i);
      }
    } catch (const std::invalid_argument& error) {  // a refusal: every process makes it alike
      fail_after_timing(i, error.what());
      state.SkipWithError(record.note.c_str());
    } catch (const std::exception& error) {
      session.processes_.end_alone("FAILED " + case_id(c) + ": " + error.what());
      fail_after_timing(i, error.what());
      state.SkipWithError(record.note.c_str());
    }
  }
};

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
  if (const std::string why = why_kernels_cannot_run_here(); !why.empty()) {
    std::fprintf(stderr, "error: this build has no code for the %s (%s): configure for its architecture "
                 "(the cuda and hip presets build for this machine's GPU)\n", describe_architecture(prop).c_str(), why.c_str());
    return 2;
  }
  describe_device(prop);
  benchmark::AddCustomContext("l2_flushed", warm_l2_ ? "no" : "yes");
  benchmark::AddCustomContext("selection", all_ ? "all: taught steps, experiments, peers" : "taught steps and peers");
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
  Timing timing(*this, warm_l2_ ? 0 : static_cast<size_t>(prop.l2CacheSize));
  bool any = false, experiments_only = false;
  for (std::size_t i = 0; i < cases_.size(); ++i) {
    const bool matches = std::regex_search(case_id(cases_[i]), selector) != negated;
    const bool wanted = all_ || !cases_[i].is_experiment;
    experiments_only |= matches && !wanted;
    any |= timing.cases[i].selected = matches && wanted;
  }
  if (!any) {
    std::fprintf(stderr, "error: --benchmark_filter='%s' selects none of the %zu %s (e.g. '%s')%s\n",
                 benchmark::GetBenchmarkFilter().c_str(), cases_.size(), all_ ? "cases" : "cases of taught steps and peers",
                 cases_.empty() ? "" : case_id(cases_.front()).c_str(),
                 experiments_only ? "; it selects experiments, which run with --all"
                 : all_           ? ""
                                  : "; --all adds the experiments and the chapter's other sizes and sweeps");
    return 2;
  }
  // Why each problem does not fit ("" when it does), alike on every process: each weighs its own
  // memory, and a problem one process skips, the others cannot build without it.
  const Memory memory = available_memory(prop, device_memory_cap_);
  std::vector<std::string> unfit(problems_.size());
  for (std::size_t p = 0; p < problems_.size(); ++p) {
    unfit[p] = why_it_does_not_fit(problems_[p], memory);
    if (timing.any(!unfit[p].empty()) && unfit[p].empty()) unfit[p] = "does not fit another process's memory (its line says why)";
  }
  if (verdict_) {
    // --verdict (exercises/grade.py --bench): each step case once per family, where it moves the
    // most bytes of all the problems that fit (the first such on a tie), and no peers, so that a
    // student's run and the solution's time the same cases.
    std::map<std::pair<std::string, std::string>, std::size_t> chosen;  // (family, name) -> its case
    for (std::size_t i = 0; i < cases_.size(); ++i) {
      const Case& c = cases_[i];
      const bool fits = unfit[problem_of_[i]].empty();
      if (!timing.cases[i].selected || c.is_peer || c.family.empty() || !fits) continue;
      const auto [found, inserted] = chosen.emplace(std::pair(c.family, c.name), i);
      if (!inserted && c.bytes > cases_[found->second].bytes) found->second = i;
    }
    for (std::size_t i = 0; i < cases_.size(); ++i) {
      const auto found = chosen.find(std::pair(cases_[i].family, cases_[i].name));
      timing.cases[i].selected = found != chosen.end() && found->second == i;
    }
  }

  // Problems that would not fit are skipped now, each in one line; the others' cases are
  // registered, in order, so that Google Benchmark reaches the problems one after the other.
  if (device_memory_cap_) benchmark::AddCustomContext("device_memory_cap_MB", fixed(*device_memory_cap_ / 1e6, 0));
  std::vector<bool> skipped(problems_.size(), false);
  for (std::size_t p = 0; p < problems_.size(); ++p) {
    if (timing.selected_cases_of(p).empty()) continue;
    if (const std::string& why = unfit[p]; !why.empty()) {
      skipped[p] = true;
      std::printf("skipped %s: %s\n", problems_[p].name.c_str(), why.c_str());
      benchmark::AddCustomContext("skipped " + problems_[p].name, why);
    }
  }
  int& registered = timing.registered;
  for (std::size_t i = 0; i < cases_.size(); ++i) {
    if (!timing.cases[i].selected || skipped[problem_of_[i]]) continue;
    ++registered;
    benchmark::RegisterBenchmark(case_id(cases_[i]).c_str(), [&timing, i](benchmark::State& state) { timing.body(state, i); })
        ->UseManualTime()
        ->Iterations(1)
        ->Repetitions(repetitions_)
        ->DisplayAggregatesOnly(true)
        ->Unit(benchmark::kMillisecond)
        ->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
        ->ComputeStatistics("max", [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); });
  }

  SummaryReporter reporter(quiet_);
  // "." : every case registered is one the course's filter selected.
  if (registered > 0) benchmark::RunSpecifiedBenchmarks(&reporter, nullptr, ".");
  if (timing.current) timing.finish();
  benchmark::Shutdown();
  for (const std::string& line : timing.found_after_timing) std::printf("%s\n", line.c_str());

  // The summary: one table per group, but none for a group whose problem was skipped (its line
  // said so); speedups are over the group's first taught step.
  std::printf("\n%s on %s (backend %s, commit %s, L2 %s)%s\n", "Summary", prop.name, COURSE_BACKEND_NAME,
              commit().c_str(), warm_l2_ ? "warm" : "flushed before each run",
              on_cpu_backend() ? "\nCPU backend: these times are not GPU times." : "");
  std::map<std::string, std::string> notes;
  std::map<std::string, double> baseline_ms;
  int timed = 0;
  for (std::size_t i = 0; i < cases_.size(); ++i) {
    const Case& c = cases_[i];
    if (!timing.cases[i].note.empty()) notes[case_id(c)] = timing.cases[i].note;
    timed += timing.cases[i].runs == repetitions_;
    const auto found = reporter.summaries.find(case_id(c));
    if (!c.is_peer && !c.is_experiment && found != reporter.summaries.end() && !baseline_ms.count(c.group))
      baseline_ms[c.group] = found->second.median_ms;
  }
  for (std::size_t first = 0; first < cases_.size();) {
    std::size_t end = first;
    bool shown = false;
    for (; end < cases_.size() && cases_[end].group == cases_[first].group; ++end) shown |= !skipped[problem_of_[end]];
    if (shown)
      print_group({cases_.begin() + first, cases_.begin() + end}, reporter.summaries, notes, ceilings_,
                  baseline_ms.count(cases_[first].group) ? baseline_ms[cases_[first].group] : 0.0);
    first = end;
  }
  if (!ceilings_) std::printf("\n(no --ceilings=FILE: run course_ceilings --out=ceilings.json for the 'of' columns)\n");
  if (timing.failures > 0) {
    std::fprintf(stderr, "error: %d case%s failed (inputs from %s)%s\n", timing.failures, timing.failures == 1 ? "" : "s",
                 seed_.describe().c_str(), json_out_ ? "; no JSON written" : "");
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
