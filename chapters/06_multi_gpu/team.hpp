// The ranks of a run, each with a device and a z slab of the grid, launched in one of two forms:
//   * threads: every rank a host thread of this process (a laptop, the CPU backend, one machine);
//   * processes: one rank per process, started by mpirun or srun (a build with MPI), the device
//     chosen by the rank's place on its node, NCCL's unique id broadcast over MPI: how production
//     codes run, and how a run goes past one machine (README: "Running as MPI processes").
// A step's code runs on every rank at once and sees its own slab, and reaches the other ranks
// only through the team (barrier, exchange_host, open_neighbours) and NCCL, so it runs unchanged
// in either form. A Crew is one step's propagators, one per rank this process runs, on a team's
// slabs; the benchmark runs several on one team.
#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <optional>
#include <string>
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

enum class Launch { threads, processes };
// processes when this process was started by mpirun or srun (the launcher's environment says so),
// else threads. A build without MPI started by mpirun refuses in one line (std::invalid_argument).
Launch launch();
// How many processes the launcher started (1 for threads), and this one's place among them.
int launched_processes();
int launched_rank();
// The device of a process, `node_rank` of the `node_processes` on its node, where it sees
// `devices`: its place on the node when the node has a device for each; device 0 when it sees one
// device (a launcher that binds a GPU to each process: srun --gpus-per-task=1, --gpu-bind); else a
// refusal in one line (std::invalid_argument).
int device_for_process(int node_rank, int node_processes, int devices);
// As processes, this process's device_for_process(), or, when any process is refused, that refusal
// on every process alike (std::invalid_argument); as threads, 0.
int launched_device();
// As processes, why they cannot each have a GPU of their own, if they cannot: processes of one
// node whose devices are the same GPU (mpirun -np 2 on a machine of one GPU, which
// device_for_process cannot tell from a launcher that bound a GPU to each). Every process must
// call it (collective); the answer is alike on all. Nothing as threads or on the CPU backend,
// whose processes each have devices of their own.
std::optional<std::string> processes_share_a_device();
// As processes, ends every process of the run (MPI_Abort): after a failure that may be this
// process's alone (say it first), which would leave the others waiting for it in a collective,
// and MPI_Finalize at exit waiting for them. As threads, or once MPI is finalised, returns.
void end_every_process();
// Rank 0's `value` on every process (as threads, `value`): what every process must agree on, a seed.
std::uint64_t from_rank_0(std::uint64_t value);
// Over every process (as threads, at once and the value itself): a barrier, and the largest value.
void wait_for_every_process();
double largest_of_processes(double value);
// Why, in the processes form, a rank cannot map its neighbours' device memory (step 02's peer
// copies need CUDA IPC handles): nothing when it can, or in the threads form.
std::optional<std::string> device_memory_not_shareable();

class Team {
 public:
  // Ranks with slabs of `thicknesses` planes, bottom to top, summing to problem.nz. As threads,
  // rank r on device r modulo the devices; as processes, one rank each (as many slabs as
  // processes), on launched_device(). Refuses, in one line (std::invalid_argument, on every
  // process alike), a slab thinner than the halo, a grid narrower than the halo in x or y, as
  // processes a slab count other than the process count or a process without a device
  // (device_for_process), and, with Communicator::nccl, two ranks on one device (as threads) or a
  // build without NCCL. NCCL's own failure to start fails every rank alike.
  Team(const Problem& problem, const std::vector<int>& thicknesses, Communicator communicator = Communicator::none);
  ~Team();
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  // nz planes as evenly as they go: the first nz % ranks slabs one plane thicker.
  static std::vector<int> even_split(int nz, int ranks);

  Launch form() const { return form_; }
  int size() const { return size_; }
  const Problem& problem() const { return problem_; }
  // The ranks this process runs: all of them as threads, its own as processes.
  std::vector<int> held() const;
  // A rank this process runs: its slab and NCCL communicator (std::logic_error for another's).
  Slab& slab(int rank) { return local(rank).slab; }
  const Slab& slab(int rank) const { return local(rank).slab; }
  ncclComm_t comm(int rank) const;

  // Runs body(rank) for every rank this process runs (as threads, each on its own thread), its
  // device current, and returns when all have returned; rethrows the first failure. A rank that
  // fails breaks the barrier for the others and aborts its own NCCL communicator. On the CPU
  // backend that fails the ranks waiting for it in NCCL too; on GPUs, as threads, it does not:
  // their NCCL kernels wait on their own communicators, and the run can hang (aborting theirs from
  // the failed thread would free them, but would also free communicators their threads are still
  // using; untested here, with no GPU). As processes, a failure other than a
  // refusal every rank makes alike (std::invalid_argument, course::NotImplemented,
  // course::Unsupported) ends the whole run with one line (MPI_Abort).
  void run(const std::function<void(int rank)>& body);
  // Returns when every rank has called it (inside run()).
  void barrier();
  // Inside run(), rank `rank`'s halo exchange through host memory (step 01), as MPI_Sendrecv:
  // sends `to_below` to the rank below and `to_above` to the rank above, and receives the rank
  // below's to_above into `from_below` and the rank above's to_below into `from_above`, `count`
  // floats each; returns when all four are done. Every rank calls it together.
  void exchange_host(int rank, const float* to_below, const float* to_above, float* from_below, float* from_above,
                     std::size_t count);
  // What a rank lets its neighbours reach (step 02): its two fields and an event each, recorded
  // once the field holds its new planes; its device and its slab's layout.
  struct Window {
    float* field[2] = {};
    gpuEvent_t computed[2] = {};
    int device = 0;
    Grid grid{};
  };
  // Inside run(), every rank together: publishes rank `rank`'s window and returns its
  // neighbours', {below, above}, usable on its device until the team is destroyed. As threads
  // they are the neighbours' own pointers and events, with peer access on where the devices have
  // a direct path; as processes, CUDA IPC handles opened in this process, which turns peer access
  // on itself (device_memory_not_shareable() says when that cannot be).
  std::array<Window, 2> open_neighbours(int rank, const Window& mine);

  // The state, as dense global arrays (x fastest, then y, then z): set with every halo poisoned
  // (NaN), which the steps must fill; read back from the interiors of the planes this process
  // holds (held_planes(): every plane as threads, its rank's slab as processes).
  void set_state(const std::vector<float>& u, const std::vector<float>& previous);
  Planes held_planes() const;
  std::vector<float> newest() const { return gather(0); }
  std::vector<float> older() const { return gather(1); }
  // The whole grid from every process's held planes (MPI_Allgatherv; as threads, `held` itself).
  std::vector<float> whole(const std::vector<float>& held) const;
  // u(0) = the mode, u(-1) = cos(theta) times it, computed on the devices; halos poisoned.
  void set_standing_mode(const StandingMode& mode);
  // The newest field at one global point of the held planes, read alone.
  float value_at(int x, int y, int z) const;

  // Reductions over the processes (as threads, the value itself), outside run(): the first
  // non-empty failure of any rank (validation), rank 0's value (a seed).
  std::string first_failure(const std::string& mine) const;
  std::uint64_t from_rank_0(std::uint64_t value) const { return ch06::from_rank_0(value); }

 private:
  struct Rank {
    Slab slab;
    course::DeviceBuffer<float> arrays[2];
    ncclComm_t comm = nullptr;
    // Neighbours' memory and events opened through IPC handles, closed and destroyed with the team.
    std::vector<void*> opened;
    std::vector<gpuEvent_t> opened_events;
  };
  Rank& local(int rank);
  const Rank& local(int rank) const;
  std::vector<float> gather(int age) const;
  int rank_of_plane(int z) const;
  void serve(int rank);
  void stop_threads();
  void abort_communicator(int rank);  // a failed rank's
  ncclUniqueId unique_id() const;      // rank 0's, on every rank

  Launch form_ = Launch::threads;
  int size_ = 0;
  int first_ = 0;  // the first rank this process runs (its own, as processes)
  // Threads: what each rank publishes for exchange_host and open_neighbours, read after a barrier.
  struct Published {
    const float* to_below = nullptr;
    const float* to_above = nullptr;
    Window window;
  };
  std::vector<Published> published_;

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

// An event for ordering streams (no timing), destroyed with it; `shared` lets another process
// wait on it through a CUDA IPC handle (Team::open_neighbours, as processes).
class Event {
 public:
  explicit Event(bool shared = false);
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
  // Every held rank's advance(steps), at once.
  void advance(int steps);

 private:
  Team& team_;
  std::vector<std::unique_ptr<Propagator>> members_;
};

}  // namespace ch06
