// The benchmark harness every chapter's benchmark uses, on top of Google Benchmark.
//
// A benchmark declares its problems (what a set of cases shares: a size's inputs and outputs) and
// the cases of each. The session reaches the problems in order: it builds one (allocates it and
// draws its inputs), runs each of its selected cases once and checks it, times the right ones,
// checks them again on fresh inputs, and releases it before the next; a problem that would not
// fit is skipped with one line. By default it times each step file's taught variant and the peers;
// --all adds the experiments (the other variants the chapter registers). Each case is timed with a device-event pair around its work,
// after one untimed warm-up launch, with L2 flushed before every timed run (unless --warm-l2),
// and with the whole device idle once its stop event has completed (work on another stream would
// escape the pair). Repetitions give the median, min and max. The console gets a summary table
// (median time, effective bandwidth and its fraction of the copy ceiling, each of the case's
// other rates and its fraction of its ceiling, the fraction of the roofline bound, and the
// speedup over the group's first taught step); --benchmark_out=FILE.json writes everything, with the
// GPU, backend, ceilings, sizes and commit in its context, for the plots and the README tables
// (profiling/results.py reads it).
#pragma once

#include <climits>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "course/output_file.hpp"
#include "course/random.hpp"

namespace course::bench {

// This machine's ceilings, as measured by course_ceilings (common/bench/ceilings.cu).
struct Ceilings {
  double copy_GBps = 0;  // device-to-device copy, bytes read + written per second
  double fma_GFLOPs = 0;
  double rsqrt_Gops = 0;
};

// A rate shown beside the bandwidth: `amount` units of work per run, reported per second.
// Two units are measured against a ceiling (the same convention as profiling/results.py):
// "GFLOP" against the FMA rate and "Grsqrt" against the reciprocal-square-root rate; any other
// unit ("MLUP" lattice updates, "passes") is a plain rate.
struct Rate {
  std::string unit;
  double amount = 0;
};
inline Rate flops(double count) { return {"GFLOP", count / 1e9}; }           // an FMA counts 2
inline Rate rsqrts(double count) { return {"Grsqrt", count / 1e9}; }         // reciprocal square roots

// What a set of cases shares: a size's inputs and outputs, its reference. The session builds it
// when it reaches the first of its cases and releases it after the last, so one problem at a
// time holds memory; `device_bytes` and `host_bytes` say how much, before anything is built.
struct Problem {
  std::string name;                        // "2048x2048, 100000 atoms": names it when it is skipped
  double device_bytes = 0;                 // the most it holds at once in a device's memory
  double host_bytes = 0;                   // and in the host's (the reference and read-backs included)
  // The devices it spreads over, each holding at most device_bytes (chapter 6's ranks): the
  // session looks at device 0's memory, but on the CPU backend, whose devices share the host's
  // RAM, every device's bytes count.
  int devices = 1;
  std::function<void(const Seed&)> build;  // allocates and draws the inputs from the seed
  std::function<void()> release;           // frees all that build() made
};

struct Case {
  std::string group;      // cases of one group share a table; the first taught step is the baseline
  std::string name;       // e.g. "02_tile_padded"
  std::function<void()> prepare;         // untimed, before every run: poison outputs, fresh state
  std::function<void()> run;             // the timed work: launches only, no synchronisation
  double bytes = 0;                      // the fewest bytes the problem must move (for GB/s)
  std::vector<Rate> rates;               // the work besides bytes: flops, rsqrts, lattice updates...
  std::function<std::string()> validate; // "" when the output is right, else what is wrong
  bool is_peer = false;                  // a library or copy the steps are compared against
  bool is_experiment = false;            // a variant its step file does not teach: timed only with --all
  // The cases of one family compute one thing at several sizes ("transpose"): --verdict times each
  // step once per family, at the largest size that fits. A case of no family ("", a sweep's) is
  // left out of the verdict.
  std::string family;
};

// A bad command line: one line, "error: " and `message`, on stderr, and exit code 2 (before
// anything is written: std::exit removes the partial output files).
[[noreturn]] void refuse(const std::string& message);

// A run of the chapter's benchmark program: timing its cases (`option` ""), or what one of its
// options asks for instead (--flow=FILE.csv: a figure's data). Session::mode says which was given.
struct Mode {
  std::string option;                // the chapter's option that chooses it, without "--"; "" for the benchmark
  std::vector<std::string> uses;     // the chapter's other options it reads
  bool times = false;                // whether it times cases: takes the harness's options (--repetitions, ...)
};

// True on the CPU backend, whose problems should be kept small.
constexpr bool on_cpu_backend() {
#if defined(COURSE_BACKEND_CPU)
  return true;
#else
  return false;
#endif
}

// How the processes of one run agree, where a run spreads over several (chapter 6's ranks as MPI
// processes, each timing its own device; the chapter supplies these, so the harness needs no MPI).
// The session calls them wherever a process would otherwise decide alone: a problem that does not
// fit its memory, a case that failed, was skipped or left work after its stop event, so that every
// process takes the same path and none waits in a collective for one that went another way; and
// around each timed run: every process starts its clock after a barrier, and the time reported is
// the slowest process's. The default is one process.
struct Processes {
  std::function<void()> barrier = [] {};                          // returns once every process has called it
  std::function<double(double)> max = [](double value) { return value; };  // the largest value of any process, on each
  // A failure this process may have met alone in the middle of a timed run, where the others wait
  // for it: ends every process after saying it (the default returns: the case fails as usual).
  std::function<void(const std::string& failure)> end_alone = [](const std::string&) {};
};

class Session {
 public:
  // Takes the course's options, --warm-l2, --repetitions=N, --ceilings=FILE, --all (the
  // experiments too), --quiet (one line as each case finishes, then the summary table), --verdict
  // (each taught step once per family of cases, at the largest size that fits, no peers: what
  // exercises/grade.py --bench times beside the solution) and the chapter's own (`defaults`, name -> default value), and of Google
  // Benchmark's flags those the harness does not set itself: --benchmark_filter, --benchmark_out
  // (JSON) and --benchmark_context; --help lists them. Unknown or repeated options and bad values:
  // one line and exit code 2, before anything is created. --benchmark_out=FILE is checked now and
  // written whole at the end, or not at all when a case failed.
  Session(int argc, char** argv, std::map<std::string, std::string> defaults);

  // The chapter's option `name` as a whole number from 1 to `max`, else one line and exit code 2.
  long long integer(const std::string& name, long long max = INT_MAX) const;
  const std::string& text(const std::string& name) const { return options_.at(name); }
  // Whether --all was given: the full record. The experiments are then timed too, and a benchmark
  // widens its default problems to every size and sweep its chapter records (the main job,
  // profiling/benchmark_all.sh, runs without it: the taught steps on each chapter's main sizes).
  bool all() const { return all_; }
  // The seed of this run's random inputs (COURSE_SEED replays it), printed with every failure.
  const Seed& seed() const { return seed_; }
  // Whether the chapter's option `name` was given (not left at its default).
  bool given(const std::string& name) const;
  // Which of `modes` this run is (the option that chose it, "" for the benchmark), checked before
  // any work: two modes given, a chapter option the chosen mode does not read, or one of the
  // harness's options (--benchmark_out, --repetitions, --quiet, ...) with a mode that times
  // nothing, would be ignored or lost: each stops the program with one line (exit code 2).
  std::string mode(const std::vector<Mode>& modes) const;
  // A line of the JSON's context (and of nothing else): a measurement made outside the cases.
  void add_context(const std::string& key, const std::string& value);
  // Why `problem` would not fit (the memory run() weighs every problem against, the same
  // COURSE_DEVICE_MEMORY_MB cap), "" when it does: for work outside the cases, such as a mode
  // that times nothing or a measurement the context records.
  std::string does_not_fit(const Problem& problem) const;
  // Stops with one line naming the problem (exit code 2) when it would not fit.
  void require_fits(const Problem& problem) const;

  // The processes of this run, when there are several (see Processes); before run().
  void set_processes(Processes processes) { processes_ = std::move(processes); }

  // Declares a problem: the cases added after it, up to the next problem, share it.
  void add_problem(Problem problem);
  // A case of the last problem declared. A second case of the same group and name stops the
  // program with one line (exit code 2): its results would merge with the first's.
  void add(Case c);
  // Reaches the problems in order. A problem that does not fit is skipped with one line (the
  // device's memory is what it has free at the start, or COURSE_DEVICE_MEMORY_MB when that is
  // less, and the host's the RAM free; on the CPU backend every device's bytes and the host's
  // together against the RAM free). Then,
  // for each problem: build it; check every selected case once (a step not written yet, a
  // student's stub, is skipped with its reason; a wrong output fails its case, with the seed);
  // time the right ones; check the output of each timed case's last run, and again after the
  // problem is built anew from a fresh seed (a step that keeps an old answer fails there), and
  // fail a case whose work was still running after its stop event; release it. Then prints the
  // summary. Returns the process exit code: 0 when a case was timed and none failed; 1 if a case
  // failed or none could be timed; 2 if the filter selects no case; kNoDevice when there is no
  // device to run on.
  int run();
  static constexpr int kNoDevice = 77;  // what test drivers read as "skipped" (CTest's SKIP_RETURN_CODE)

 private:
  struct Timing;  // run()'s work, problem by problem (benchmark.cpp)

  // COURSE_DEVICE_MEMORY_MB, the most device memory the session may count on (how a test has a
  // small GPU); unset: no cap. Anything but a whole number of MB stops the program (exit code 2).
  static std::optional<double> device_memory_cap();

  std::map<std::string, std::string> options_;
  std::vector<std::string> given_;          // the chapter's options given, in the order given
  std::vector<std::string> harness_given_;  // the harness's options given (--repetitions, --benchmark_out, ...)
  std::optional<Ceilings> ceilings_;
  std::optional<double> device_memory_cap_ = device_memory_cap();
  std::vector<Problem> problems_;
  std::vector<Case> cases_;
  std::vector<std::size_t> problem_of_;  // cases_[i] belongs to problems_[problem_of_[i]]
  int repetitions_ = 0;
  bool warm_l2_ = false;
  bool quiet_ = false;
  bool verdict_ = false;  // --verdict: each step once per family, at its largest size that fits
  bool all_ = false;      // --all: the experiments as well as the taught steps and the peers
  Seed seed_;
  Processes processes_;
  std::unique_ptr<OutputFile> json_out_;
  std::string json_out_flag_;  // --benchmark_out=<the partial file>, handed to Google Benchmark
};

}  // namespace course::bench
