// The ranks of a run: one host thread and one device each, all in this process, each with a z
// slab of the grid. A step's code runs on every rank's thread at once and sees its own slab, as
// one process per GPU would (README: how the same code goes past one machine). A Crew is one
// step's propagators, one per rank, on a team's slabs; the benchmark runs several on one team.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <semaphore>
#include <thread>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/nccl.hpp"
#include "wave.hpp"

namespace ch06 {

// One rank's share of the grid: planes [z0, z0 + grid.dz).
struct Slab {
  int rank = 0, ranks = 1;
  int device = 0;
  int z0 = 0;
  Grid grid{};
  float* field[2] = {};  // the two arrays the leapfrog alternates between, halos included
  int current = 0;       // field[current] holds u(n), field[1 - current] u(n-1)
  int up() const { return (rank + 1) % ranks; }            // the slab above, periodically
  int down() const { return (rank + ranks - 1) % ranks; }  // the slab below
};

enum class Communicator { none, nccl };

class Team {
 public:
  // Ranks with slabs of `thicknesses` planes, bottom to top, summing to problem.nz; rank r on
  // device r modulo the devices. Refuses, in one line (std::invalid_argument), a slab thinner
  // than the halo, a grid narrower than the halo in x or y, and, with Communicator::nccl, two
  // ranks on one device or a build without NCCL.
  Team(const Problem& problem, const std::vector<int>& thicknesses, Communicator communicator = Communicator::none);
  ~Team();
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  // nz planes as evenly as they go: the first nz % ranks slabs one plane thicker.
  static std::vector<int> even_split(int nz, int ranks);

  int size() const { return static_cast<int>(ranks_.size()); }
  const Problem& problem() const { return problem_; }
  Slab& slab(int rank) { return ranks_[rank].slab; }
  const Slab& slab(int rank) const { return ranks_[rank].slab; }
  ncclComm_t comm(int rank) const;

  // Runs body(rank) on every rank's thread, its device current, and returns when all have
  // returned; rethrows the first failure. A rank that fails breaks the barrier for the others.
  void run(const std::function<void(int rank)>& body);
  // Returns when every rank's thread has called it (inside run()).
  void barrier();

  // The state, as dense global arrays (x fastest, then y, then z): set with every halo poisoned
  // (NaN), which the steps must fill; read back from the interiors.
  void set_state(const std::vector<float>& u, const std::vector<float>& previous);
  std::vector<float> newest() const { return gather(0); }
  std::vector<float> older() const { return gather(1); }
  // u(0) = the mode, u(-1) = cos(theta) times it, computed on the devices; halos poisoned.
  void set_standing_mode(const StandingMode& mode);
  // The newest field at one global point, read alone.
  float value_at(int x, int y, int z) const;

 private:
  struct Rank {
    Slab slab;
    course::DeviceBuffer<float> arrays[2];
    ncclComm_t comm = nullptr;
  };
  std::vector<float> gather(int age) const;
  int rank_of_plane(int z) const;
  void serve(int rank);
  void stop_threads();

  // A rank's thread waits on its `go` for a job (job_, or none: stop), and releases `finished_`.
  struct Worker {
    std::thread thread;
    std::binary_semaphore go{0};
  };
  Problem problem_;
  std::vector<Rank> ranks_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::counting_semaphore<> finished_{0};
  const std::function<void(int)>* job_ = nullptr;
  std::mutex mutex_;  // the first failure and the barrier
  std::exception_ptr first_failure_;
  // The barrier: ranks arrived in this round, rounds completed, broken by a failed rank.
  std::condition_variable turn_;
  int arrived_ = 0;
  std::uint64_t rounds_ = 0;
  bool broken_ = false;
};

// Destructors cannot throw: a release that fails is said on stderr (an earlier error, reported
// where it happened, usually explains it). `call` names it.
void report_if_failed(gpuError_t status, const char* call);

// A non-blocking stream of the current device, destroyed with it. High priority: the GPU starts
// its blocks before those of low-priority streams that are waiting.
class Stream {
 public:
  enum class Priority { low, high };
  explicit Stream(Priority priority = Priority::low);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  operator gpuStream_t() const { return stream_; }

 private:
  gpuStream_t stream_ = nullptr;
};

// An event for ordering streams (no timing), destroyed with it.
class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  operator gpuEvent_t() const { return event_; }

 private:
  gpuEvent_t event_ = nullptr;
};

// One rank's time loop, made on its thread with its device current.
class Propagator {
 public:
  virtual ~Propagator() = default;
  // Advances the rank's slab `steps` steps: on entry the interiors of its two fields hold u(n)
  // and u(n-1) (field[current] and the other), their halos anything; on return, after a
  // synchronize, u(n+steps) and u(n+steps-1), with `current` naming the first.
  virtual void advance(int steps) = 0;
};

// The time loop of steps 00 to 03, all on `stream`: the state's halos, then per step the leapfrog
// over every plane into the older field, that field's halos, and the two fields' roles swapped;
// a synchronize at the end. `refresh_halos(b)` fills field b's halos: what the steps differ in.
template <class RefreshHalos>
void advance_on_one_stream(Slab& slab, const Problem& problem, int steps, gpuStream_t stream, RefreshHalos refresh_halos) {
  refresh_halos(slab.current);
  for (int step = 0; step < steps; ++step) {
    const int next = 1 - slab.current;
    leapfrog(slab.field[slab.current], slab.field[next], slab.grid, problem.courant2, all_planes(slab.grid), stream);
    refresh_halos(next);
    slab.current = next;
  }
  GPU_CHECK(gpuStreamSynchronize(stream));
}

class Crew;
using MakePropagator = std::unique_ptr<Propagator> (*)(Crew& crew, int rank);

// One step's propagators on a team, one per rank, made and destroyed on the ranks' threads.
class Crew {
 public:
  Crew(Team& team, MakePropagator make);
  ~Crew();
  Crew(const Crew&) = delete;
  Crew& operator=(const Crew&) = delete;

  Team& team() { return team_; }
  // Another rank's propagator, for steps whose ranks reach into each other's (in one process).
  template <class Step>
  Step& mate(int rank) {
    return static_cast<Step&>(*members_[rank]);
  }
  // Every rank's advance(steps), at once.
  void advance(int steps);

 private:
  Team& team_;
  std::vector<std::unique_ptr<Propagator>> members_;
};

}  // namespace ch06
