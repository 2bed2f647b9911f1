#include "team.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#if defined(COURSE_HAVE_MPI)
#include <mpi.h>
#endif

#include "course/exercise.hpp"

namespace ch06 {
namespace {

// The environment mpirun (Open MPI, MPICH's hydra) and srun (PMI-2, PMIx) give each process.
std::optional<int> launcher_variable(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::atoi(value);
}
bool started_by_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (launcher_variable(name)) return true;
  return false;
}

#if defined(COURSE_HAVE_MPI)
void finalize_mpi() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

// MPI, started on first use (the host calls it from one thread at a time), finalised at exit.
// MPI_COMM_WORLD's errors are fatal (MPI's default, set here so that no MPI_* call's status needs
// checking: a failed call ends every process with MPI's own message). An MPI that cannot give the
// thread level asked for is refused in one line, by every process alike.
void start_mpi() {
  static std::string refused;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    constexpr int kNeeded = MPI_THREAD_SERIALIZED;
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, kNeeded, &provided);
    std::atexit(finalize_mpi);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    if (provided < kNeeded)
      refused = "this MPI gives its processes thread level " + std::to_string(provided) +
                ", below MPI_THREAD_SERIALIZED (" + std::to_string(kNeeded) +
                "), which the ranks ask for: use an MPI built with thread support";
  }
  if (!refused.empty()) throw std::invalid_argument(refused);
}

// This process's place among those of its node, how many processes the node has, and the value
// each of them passed as `mine`, in the node's order (every process calls it together).
struct NodePlace {
  int rank = 0, processes = 1;
  std::vector<long long> told;
};
NodePlace node_place(long long mine = 0) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  NodePlace place;
  MPI_Comm_rank(node, &place.rank);
  MPI_Comm_size(node, &place.processes);
  place.told.resize(static_cast<std::size_t>(place.processes));
  MPI_Allgather(&mine, 1, MPI_LONG_LONG, place.told.data(), 1, MPI_LONG_LONG, node);
  MPI_Comm_free(&node);
  return place;
}

// The failure of the lowest world rank with one, on every process ("" when none).
std::string first_failure_everywhere(const std::string& mine) {
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int candidate = mine.empty() ? size : world_rank;
  int first = size;
  MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size) return "";
  int length = static_cast<int>(mine.size());
  MPI_Bcast(&length, 1, MPI_INT, first, MPI_COMM_WORLD);
  std::string message = world_rank == first ? mine : std::string(length, ' ');
  MPI_Bcast(message.data(), length, MPI_CHAR, first, MPI_COMM_WORLD);
  return message;
}
#endif

[[noreturn]] void no_mpi() {
  throw std::logic_error("this build runs its ranks as threads only (no MPI)");
}

}  // namespace

Launch launch() {
  if (!started_by_launcher()) return Launch::threads;
#if defined(COURSE_HAVE_MPI)
  start_mpi();
  return Launch::processes;
#else
  throw std::invalid_argument(
      "started by mpirun or srun, but this build has no MPI (CMake found none when it configured it): run it without "
      "mpirun, as one process whose ranks are threads, or install MPI (libopenmpi-dev openmpi-bin) and configure again");
#endif
}

int launched_processes() {
  if (launch() == Launch::threads) return 1;
  int size = 1;
#if defined(COURSE_HAVE_MPI)
  MPI_Comm_size(MPI_COMM_WORLD, &size);
#endif
  return size;
}

int launched_rank() {
  if (launch() == Launch::threads) return 0;
  int rank = 0;
#if defined(COURSE_HAVE_MPI)
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
  return rank;
}

std::uint64_t from_rank_0(std::uint64_t value) {
#if defined(COURSE_HAVE_MPI)
  if (launch() == Launch::processes) MPI_Bcast(&value, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
#endif
  return value;
}

void wait_for_every_process() {
#if defined(COURSE_HAVE_MPI)
  if (launch() == Launch::processes) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

double largest_of_processes(double value) {
#if defined(COURSE_HAVE_MPI)
  if (launch() == Launch::processes) MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
  return value;
}

int device_for_process(int node_rank, int node_processes, int devices) {
  if (node_processes <= devices) return node_rank;
  if (devices == 1) return 0;  // the launcher bound one device to each process
  throw std::invalid_argument("more ranks than devices: " + std::to_string(node_processes) + " processes on a node of " +
                              std::to_string(devices) + " devices (one process a GPU: fewer processes a node, or a "
                              "launcher that binds a GPU to each, such as srun --gpus-per-task=1)");
}

int launched_device() {
  if (launch() == Launch::threads) return 0;
#if defined(COURSE_HAVE_MPI)
  const NodePlace place = node_place();
  int devices = 0;
  std::string refused;
  int device = 0;
  if (const gpuError_t status = gpuGetDeviceCount(&devices); status != gpuSuccess) {
    refused = std::string("no device: ") + gpuGetErrorString(status);
  } else {
    try {
      device = device_for_process(place.rank, place.processes, devices);
    } catch (const std::invalid_argument& error) {
      refused = error.what();
    }
  }
  // Every process refuses alike, or none does: one that stopped alone would leave the others
  // waiting for it in their next collective.
  if (const std::string why = first_failure_everywhere(refused); !why.empty()) throw std::invalid_argument(why);
  return device;
#else
  no_mpi();
#endif
}

std::optional<std::string> processes_share_a_device() {
#if defined(COURSE_HAVE_MPI) && !defined(COURSE_BACKEND_CPU)
  if (launch() == Launch::threads) return std::nullopt;
  const int device = launched_device();  // refuses on every process alike, or on none
  // Every process of the node tells the others its device's PCI address (MIG instances of one GPU
  // share it, and count as one GPU), each joining every collective below whatever it found, so
  // that none waits for one that returned early; a process whose query failed tells an address no
  // GPU has.
  int devices = 0;
  gpuDeviceProp properties{};
  std::string refused;
  long long mine = -1 - launched_rank();
  if (const gpuError_t status = gpuGetDeviceCount(&devices); status != gpuSuccess)
    refused = std::string("gpuGetDeviceCount failed: ") + gpuGetErrorString(status);
  else if (const gpuError_t status = gpuGetDeviceProperties(&properties, device); status != gpuSuccess)
    refused = std::string("gpuGetDeviceProperties failed: ") + gpuGetErrorString(status);
  else
    mine = (static_cast<long long>(properties.pciDomainID) << 32) | (properties.pciBusID << 8) | properties.pciDeviceID;
  const NodePlace node = node_place(mine);
  const int copies = static_cast<int>(std::count(node.told.begin(), node.told.end(), mine));
  if (refused.empty() && copies > 1)
    refused = "more ranks than devices: " + std::to_string(node.processes) + " processes on a node of " + std::to_string(devices) +
              " devices, " + std::to_string(copies) + " of them on the same GPU (one process a GPU: fewer processes a "
              "node, or a launcher that binds a GPU to each, such as srun --gpus-per-task=1)";
  if (const std::string why = first_failure_everywhere(refused); !why.empty()) return why;
  return std::nullopt;
#else
  return std::nullopt;
#endif
}

void end_every_process() {
#if defined(COURSE_HAVE_MPI)
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized || launch() == Launch::threads) return;
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
#endif
}

std::optional<std::string> device_memory_not_shareable() {
#if defined(COURSE_BACKEND_CUDA)
#if defined(COURSE_HAVE_MPI)
  if (launch() == Launch::processes && launched_processes() > 1) {
    // IPC handles map memory within one machine only.
    int all_on_one = node_place().processes == launched_processes(), everywhere = 0;
    MPI_Allreduce(&all_on_one, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!everywhere)
      return "step 02's peer copies map the neighbours' memory through CUDA IPC handles, which reach within one machine "
             "only: run it on one node (steps 01 and 03-05 go past one machine)";
  }
#endif
  return std::nullopt;
#else
  if (launch() == Launch::threads) return std::nullopt;
  return "step 02 maps its neighbours' device memory through CUDA IPC handles; the " COURSE_BACKEND_NAME
         " backend's devices are its own process's memory, which no other process can map: run step 02 as threads "
         "(without mpirun)";
#endif
}

Team::Team(const Problem& problem, const std::vector<int>& thicknesses, Communicator communicator)
    : form_(launch()), problem_(problem) {
  if (thicknesses.empty()) throw std::invalid_argument("a team needs at least one rank");
  if (problem.nx < kRadius || problem.ny < kRadius)
    throw std::invalid_argument("the grid is " + std::to_string(problem.nx) + " x " + std::to_string(problem.ny) +
                                " across; its periodic images in x and y need at least " + std::to_string(kRadius) +
                                " points (the halo) each way");
  const int planes = std::accumulate(thicknesses.begin(), thicknesses.end(), 0);
  if (planes != problem.nz)
    throw std::invalid_argument("the slabs add up to " + std::to_string(planes) + " planes, not the grid's " +
                                std::to_string(problem.nz));
  size_ = static_cast<int>(thicknesses.size());
  for (int rank = 0; rank < size_; ++rank)
    if (thicknesses[rank] < kRadius)
      throw std::invalid_argument("rank " + std::to_string(rank) + "'s slab would be " + std::to_string(thicknesses[rank]) +
                                  " planes thick, thinner than the halo (" + std::to_string(kRadius) +
                                  " planes): its neighbours' halos would reach past it; use fewer ranks or more planes");
  int devices = 0;
  GPU_CHECK(gpuGetDeviceCount(&devices));
  if (communicator == Communicator::nccl)
    if (const auto& reason = course::nccl_unavailable_reason()) throw std::invalid_argument(*reason);
  int held = size_;
  int device_of_first = 0;
  if (form_ == Launch::processes) {
#if defined(COURSE_HAVE_MPI)
    if (launched_processes() != size_)
      throw std::invalid_argument(std::to_string(size_) + " slabs for " + std::to_string(launched_processes()) +
                                  " MPI processes: one rank a process (mpirun -np " + std::to_string(size_) + ")");
    first_ = launched_rank();
    held = 1;
    device_of_first = launched_device();
#endif
  } else if (communicator == Communicator::nccl && size_ > devices) {
    throw std::invalid_argument("NCCL needs a device per rank: " + std::to_string(size_) + " ranks, " +
                                std::to_string(devices) + " devices");
  }

  ranks_.resize(held);
  published_.resize(size_);
  for (int rank = 0, z0 = 0; rank < size_; z0 += thicknesses[rank++]) {
    if (rank < first_ || rank >= first_ + held) continue;
    Slab& slab = local(rank).slab;
    slab.rank = rank;
    slab.ranks = size_;
    slab.device = form_ == Launch::processes ? device_of_first : rank % devices;
    slab.z0 = z0;
    slab.grid = slab_grid(problem, thicknesses[rank]);
  }
  // NVLink multicast (NVLS) stays off: its objects can take a shared machine's GPUs out of
  // service, and point-to-point transfers do not use it. Set before any rank's thread starts,
  // since setenv beside a thread that reads the environment is a race.
  if (communicator == Communicator::nccl) setenv("NCCL_NVLS_ENABLE", "0", 1);
  if (form_ == Launch::threads) {
    // Every worker exists before any thread starts: a running thread reads workers_, which a
    // push_back beside it could reallocate.
    for (int rank = 0; rank < size_; ++rank) workers_.push_back(std::make_unique<Worker>());
    for (int rank = 0; rank < size_; ++rank) workers_[rank]->thread = std::thread([this, rank] { serve(rank); });
  }
  try {
    run([this](int rank) {
      Rank& r = local(rank);
      for (int k = 0; k < 2; ++k) {
        r.arrays[k] = course::DeviceBuffer<float>(r.slab.grid.size);
        r.slab.field[k] = r.arrays[k].data();
      }
    });
    if (communicator == Communicator::nccl) {
      const ncclUniqueId id = unique_id();
      run([&](int rank) { GPU_CHECK(ncclCommInitRank(&local(rank).comm, size(), id, rank)); });
    }
  } catch (...) {
    stop_threads();
    throw;
  }
}

ncclUniqueId Team::unique_id() const {
  ncclUniqueId id{};
  std::string failure;
  if (first_ == 0) {
    if (const ncclResult_t status = ncclGetUniqueId(&id); status != ncclSuccess)
      failure = std::string("ncclGetUniqueId failed: ") + ncclGetErrorString(status);
  }
  // As processes, rank 0's id, or its failure, on every rank: each fails alike instead of waiting
  // for an id that never comes.
  if (const std::string why = first_failure(failure); !why.empty()) throw std::runtime_error(why);
#if defined(COURSE_HAVE_MPI)
  if (form_ == Launch::processes) MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
#endif
  return id;
}

Team::~Team() {
  try {
    run([this](int rank) {
      Rank& r = local(rank);
#if defined(COURSE_BACKEND_CUDA)
      for (void* opened : r.opened) report_if_failed(cudaIpcCloseMemHandle(opened), "cudaIpcCloseMemHandle");
      for (gpuEvent_t opened : r.opened_events) report_if_failed(cudaEventDestroy(opened), "cudaEventDestroy");
#endif
      if (r.comm != nullptr) GPU_CHECK(ncclCommDestroy(r.comm));
      for (auto& array : r.arrays) array = course::DeviceBuffer<float>();
    });
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error while releasing a team's ranks: %s\n", error.what());
  }
  stop_threads();
}

void Team::stop_threads() {
  job_ = nullptr;  // no job: stop
  for (auto& worker : workers_) worker->go.release();
  for (auto& worker : workers_) worker->thread.join();
  workers_.clear();
}

std::vector<int> Team::even_split(int nz, int ranks) {
  std::vector<int> thicknesses(ranks, nz / ranks);
  for (int rank = 0; rank < nz % ranks; ++rank) ++thicknesses[rank];
  return thicknesses;
}

std::vector<int> Team::held() const {
  std::vector<int> ranks(ranks_.size());
  std::iota(ranks.begin(), ranks.end(), first_);
  return ranks;
}

Team::Rank& Team::local(int rank) {
  if (rank < first_ || rank >= first_ + static_cast<int>(ranks_.size()))
    throw std::logic_error("rank " + std::to_string(rank) + " runs in another process");
  return ranks_[rank - first_];
}
const Team::Rank& Team::local(int rank) const { return const_cast<Team*>(this)->local(rank); }

ncclComm_t Team::comm(int rank) const {
  if (local(rank).comm == nullptr) throw std::logic_error("this team was made without NCCL (Communicator::nccl)");
  return local(rank).comm;
}

void Team::abort_communicator(int rank) {
  Rank& r = local(rank);
  if (r.comm == nullptr) return;
  if (const ncclResult_t status = ncclCommAbort(std::exchange(r.comm, nullptr)); status != ncclSuccess)
    std::fprintf(stderr, "ncclCommAbort failed: %s\n", ncclGetErrorString(status));
}

void Team::serve(int rank) {
  for (;;) {
    workers_[rank]->go.acquire();
    if (job_ == nullptr) return;
    try {
      GPU_CHECK(gpuSetDevice(local(rank).slab.device));
      (*job_)(rank);
    } catch (...) {
      {
        const std::lock_guard lock(mutex_);
        if (!first_failure_) first_failure_ = std::current_exception();
        broken_ = true;
        turn_.notify_all();
      }
      abort_communicator(rank);  // on the CPU backend the ranks waiting for this one fail too (team.hpp)
    }
    finished_.release();
  }
}

void Team::run(const std::function<void(int rank)>& body) {
  if (form_ == Launch::processes) {
    try {
      GPU_CHECK(gpuSetDevice(local(first_).slab.device));
      body(first_);
    } catch (const std::invalid_argument&) {
      throw;  // refusals: every rank makes them alike
    } catch (const course::NotImplemented&) {
      throw;
    } catch (const course::Unsupported&) {
      throw;
    } catch (const std::exception& error) {
#if defined(COURSE_HAVE_MPI)
      std::fprintf(stderr, "error: rank %d of %d failed, ending the run (MPI_Abort): %s\n", first_, size_, error.what());
      std::fflush(stderr);
      abort_communicator(first_);
      MPI_Abort(MPI_COMM_WORLD, 1);
#endif
      throw;
    }
    return;
  }
  job_ = &body;
  broken_ = false;
  arrived_ = 0;
  for (auto& worker : workers_) worker->go.release();  // publishes job_ to the workers
  for (int rank = 0; rank < size(); ++rank) finished_.acquire();
  if (first_failure_) std::rethrow_exception(std::exchange(first_failure_, nullptr));
}

void Team::barrier() {
  if (form_ == Launch::processes) {
#if defined(COURSE_HAVE_MPI)
    MPI_Barrier(MPI_COMM_WORLD);
#endif
    return;
  }
  std::unique_lock lock(mutex_);
  const std::uint64_t round = rounds_;
  if (!broken_ && ++arrived_ == size()) {
    arrived_ = 0;
    ++rounds_;
    turn_.notify_all();
    return;
  }
  turn_.wait(lock, [&] { return rounds_ != round || broken_; });
  if (rounds_ == round) throw std::runtime_error("stopped at a barrier: another rank failed");
}

void Team::exchange_host(int rank, const float* to_below, const float* to_above, float* from_below, float* from_above,
                         std::size_t count) {
  const Slab& slab = local(rank).slab;
  if (form_ == Launch::processes) {
#if defined(COURSE_HAVE_MPI)
    const int n = static_cast<int>(count);
    // Two shifts round the ring, upward then downward; tags keep them apart when the rank below
    // is also the rank above (two ranks) or this one (one).
    MPI_Sendrecv(to_above, n, MPI_FLOAT, slab.up(), 0, from_below, n, MPI_FLOAT, slab.down(), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(to_below, n, MPI_FLOAT, slab.down(), 1, from_above, n, MPI_FLOAT, slab.up(), 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#else
    no_mpi();
#endif
    return;
  }
  published_[rank].to_below = to_below;
  published_[rank].to_above = to_above;
  barrier();  // every rank's messages are there
  std::memcpy(from_below, published_[slab.down()].to_above, count * sizeof(float));
  std::memcpy(from_above, published_[slab.up()].to_below, count * sizeof(float));
  barrier();  // every rank has taken its messages: their buffers may change
}

std::array<Team::Window, 2> Team::open_neighbours(int rank, const Window& mine) {
  const Slab& slab = local(rank).slab;
  if (form_ == Launch::threads) {
    published_[rank].window = mine;
    barrier();
    const std::array<Window, 2> neighbours{published_[slab.down()].window, published_[slab.up()].window};
    barrier();  // every rank has read the windows: they may change
    for (const Window& neighbour : neighbours) course::enable_peer_access(neighbour.device);  // slab.device is current
    return neighbours;
  }
  if (const auto why = device_memory_not_shareable()) throw course::Unsupported(*why);
#if defined(COURSE_BACKEND_CUDA) && defined(COURSE_HAVE_MPI)
  // The handles of each field and event, to both neighbours, over MPI; each opened here once.
  // A handle names a whole allocation: the opened pointer is its start, so each field's offset
  // into its allocation travels with it (the team's arrays start past a guard band).
  struct Handles {
    cudaIpcMemHandle_t field[2];
    std::size_t offset[2];
    cudaIpcEventHandle_t computed[2];
    Grid grid;
  } out{}, from[2]{};
  out.grid = mine.grid;
  const Rank& me = local(rank);
  for (int k = 0; k < 2; ++k) {
    if (mine.field[k] != me.arrays[k].data())
      throw std::invalid_argument("Team::open_neighbours: a window's fields must be the slab's own arrays");
    GPU_CHECK(cudaIpcGetMemHandle(&out.field[k], me.arrays[k].allocation()));
    out.offset[k] = me.arrays[k].allocation_offset();
    GPU_CHECK(cudaIpcGetEventHandle(&out.computed[k], mine.computed[k]));
  }
  MPI_Sendrecv(&out, sizeof out, MPI_BYTE, slab.up(), 2, &from[0], sizeof out, MPI_BYTE, slab.down(), 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&out, sizeof out, MPI_BYTE, slab.down(), 3, &from[1], sizeof out, MPI_BYTE, slab.up(), 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::array<Window, 2> neighbours{};
  for (int side = 0; side < 2; ++side) {
    const int peer = side == 0 ? slab.down() : slab.up();
    if (peer == rank) {  // one rank: its own memory, which a process cannot open through a handle
      neighbours[side] = mine;
      continue;
    }
    if (side == 1 && slab.down() == slab.up()) {  // two ranks: the one neighbour, opened once
      neighbours[1] = neighbours[0];
      continue;
    }
    for (int k = 0; k < 2; ++k) {
      void* field = nullptr;
      GPU_CHECK(cudaIpcOpenMemHandle(&field, from[side].field[k], cudaIpcMemLazyEnablePeerAccess));
      local(rank).opened.push_back(field);
      neighbours[side].field[k] = reinterpret_cast<float*>(static_cast<std::byte*>(field) + from[side].offset[k]);
      GPU_CHECK(cudaIpcOpenEventHandle(&neighbours[side].computed[k], from[side].computed[k]));
      local(rank).opened_events.push_back(neighbours[side].computed[k]);
    }
    neighbours[side].device = slab.device;  // mapped into this rank's device's address space
    neighbours[side].grid = from[side].grid;
  }
  return neighbours;
#else
  no_mpi();
#endif
}

void Team::set_state(const std::vector<float>& u, const std::vector<float>& previous) {
  const std::size_t plane = std::size_t(problem_.nx) * problem_.ny;
  run([&](int rank) {
    Rank& r = local(rank);
    const Grid& g = r.slab.grid;
    r.slab.current = 0;
    for (int k = 0; k < 2; ++k) {
      const std::vector<float>& global = k == 0 ? u : previous;
      std::vector<float> slab_values(g.size, std::numeric_limits<float>::quiet_NaN());
      for (int z = 0; z < g.dz; ++z)
        for (int y = 0; y < g.dy; ++y)
          for (int x = 0; x < g.dx; ++x) slab_values[g.at(x, y, z)] = global[(r.slab.z0 + z) * plane + std::size_t(y) * g.dx + x];
      r.arrays[k].poison();
      r.arrays[k].copy_from(slab_values);
    }
    GPU_CHECK(gpuDeviceSynchronize());  // the copy may still be landing when a stream of the step starts
  });
}

void Team::set_standing_mode(const StandingMode& mode) {
  const double theta = mode.theta(problem_);
  run([&](int rank) {
    Rank& r = local(rank);
    r.slab.current = 0;
    for (int k = 0; k < 2; ++k) {
      r.arrays[k].poison();
      ch06::set_standing_mode(r.slab.field[k], r.slab.grid, problem_, r.slab.z0, mode, k == 0 ? 0.0 : theta, nullptr);
    }
    GPU_CHECK(gpuDeviceSynchronize());
  });
}

Planes Team::held_planes() const {
  const Slab& last = ranks_.back().slab;
  return {ranks_.front().slab.z0, last.z0 + last.grid.dz};
}

std::vector<float> Team::gather(int age) const {
  const std::size_t plane = std::size_t(problem_.nx) * problem_.ny;
  const int z_first = held_planes().begin;
  std::vector<float> values(plane * (held_planes().end - z_first));
  for (const Rank& r : ranks_) {
    const Grid& g = r.slab.grid;
    const std::vector<float> slab_values = r.arrays[(r.slab.current + age) % 2].to_host();
    for (int z = 0; z < g.dz; ++z)
      for (int y = 0; y < g.dy; ++y)
        for (int x = 0; x < g.dx; ++x)
          values[(r.slab.z0 - z_first + z) * plane + std::size_t(y) * g.dx + x] = slab_values[g.at(x, y, z)];
  }
  return values;
}

std::vector<float> Team::whole(const std::vector<float>& held) const {
  if (form_ == Launch::threads) return held;
#if defined(COURSE_HAVE_MPI)
  const int mine = static_cast<int>(held.size());
  std::vector<int> counts(size_), offsets(size_);
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
  std::vector<float> everything(offsets.back() + counts.back());
  MPI_Allgatherv(held.data(), mine, MPI_FLOAT, everything.data(), counts.data(), offsets.data(), MPI_FLOAT, MPI_COMM_WORLD);
  return everything;
#else
  no_mpi();
#endif
}

std::string Team::first_failure(const std::string& mine) const {
  if (form_ == Launch::threads) return mine;
#if defined(COURSE_HAVE_MPI)
  return first_failure_everywhere(mine);
#else
  no_mpi();
#endif
}

int Team::rank_of_plane(int z) const {
  for (const Rank& r : ranks_)
    if (z >= r.slab.z0 && z < r.slab.z0 + r.slab.grid.dz) return r.slab.rank;
  throw std::logic_error("plane " + std::to_string(z) + " is held by another process");
}

float Team::value_at(int x, int y, int z) const {
  const Slab& slab = local(rank_of_plane(z)).slab;
  float value = 0;
  GPU_CHECK(gpuMemcpy(&value, slab.field[slab.current] + slab.grid.at(x, y, z - slab.z0), sizeof value, gpuMemcpyDeviceToHost));
  return value;
}

Stream::Stream(Priority priority) {
  int least = 0, greatest = 0;
  GPU_CHECK(gpuDeviceGetStreamPriorityRange(&least, &greatest));
  GPU_CHECK(gpuStreamCreateWithPriority(&stream_, gpuStreamNonBlocking, priority == Priority::high ? greatest : least));
}

void report_if_failed(gpuError_t status, const char* call) {
  if (status != gpuSuccess) std::fprintf(stderr, "%s failed in a destructor: %s\n", call, gpuGetErrorString(status));
}

Stream::~Stream() { report_if_failed(gpuStreamDestroy(stream_), "gpuStreamDestroy"); }

Event::Event(bool shared) {
#if defined(COURSE_BACKEND_CUDA)
  if (shared) {
    GPU_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming | cudaEventInterprocess));
    return;
  }
#endif
  (void)shared;
  GPU_CHECK(gpuEventCreateWithFlags(&event_, gpuEventDisableTiming));
}

Event::~Event() { report_if_failed(gpuEventDestroy(event_), "gpuEventDestroy"); }

Crew::Crew(Team& team, MakePropagator make) : team_(team), members_(team.size()) {
  team_.run([&](int rank) { members_[rank] = make(*this, rank); });
}

Crew::~Crew() {
  try {
    team_.run([&](int rank) { members_[rank].reset(); });
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error while releasing a step's propagators: %s\n", error.what());
  }
}

void Crew::advance(int steps) {
  team_.run([&](int rank) { members_[rank]->advance(steps); });
}

}  // namespace ch06
