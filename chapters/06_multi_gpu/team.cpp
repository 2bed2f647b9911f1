#include "team.hpp"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace ch06 {

Team::Team(const Problem& problem, const std::vector<int>& thicknesses, Communicator communicator) : problem_(problem) {
  if (thicknesses.empty()) throw std::invalid_argument("a team needs at least one rank");
  if (problem.nx < kRadius || problem.ny < kRadius)
    throw std::invalid_argument("the grid is " + std::to_string(problem.nx) + " x " + std::to_string(problem.ny) +
                                " across; its periodic images in x and y need at least " + std::to_string(kRadius) +
                                " points (the halo) each way");
  const int planes = std::accumulate(thicknesses.begin(), thicknesses.end(), 0);
  if (planes != problem.nz)
    throw std::invalid_argument("the slabs add up to " + std::to_string(planes) + " planes, not the grid's " +
                                std::to_string(problem.nz));
  const int ranks = static_cast<int>(thicknesses.size());
  for (int rank = 0; rank < ranks; ++rank)
    if (thicknesses[rank] < kRadius)
      throw std::invalid_argument("rank " + std::to_string(rank) + "'s slab would be " + std::to_string(thicknesses[rank]) +
                                  " planes thick, thinner than the halo (" + std::to_string(kRadius) +
                                  " planes): its neighbours' halos would reach past it; use fewer ranks or more planes");
  int devices = 0;
  GPU_CHECK(gpuGetDeviceCount(&devices));
  if (communicator == Communicator::nccl) {
    if (const auto& reason = course::nccl_unavailable_reason()) throw std::invalid_argument(*reason);
    if (ranks > devices)
      throw std::invalid_argument("NCCL needs a device per rank: " + std::to_string(ranks) + " ranks, " +
                                  std::to_string(devices) + " devices");
  }

  ranks_.resize(ranks);
  for (int rank = 0, z0 = 0; rank < ranks; z0 += thicknesses[rank++]) {
    Slab& slab = ranks_[rank].slab;
    slab.rank = rank;
    slab.ranks = ranks;
    slab.device = rank % devices;
    slab.z0 = z0;
    slab.grid = slab_grid(problem, thicknesses[rank]);
  }
  // Every worker exists before any thread starts: a running thread reads workers_, which a
  // push_back beside it could reallocate.
  for (int rank = 0; rank < ranks; ++rank) workers_.push_back(std::make_unique<Worker>());
  for (int rank = 0; rank < ranks; ++rank) workers_[rank]->thread = std::thread([this, rank] { serve(rank); });
  try {
    run([this](int rank) {
      Rank& r = ranks_[rank];
      for (int k = 0; k < 2; ++k) {
        r.arrays[k] = course::DeviceBuffer<float>(r.slab.grid.size);
        r.slab.field[k] = r.arrays[k].data();
      }
    });
    if (communicator == Communicator::nccl) {
      // NVLink multicast (NVLS) stays off: its objects can take a shared machine's GPUs out of
      // service, and point-to-point transfers do not use it.
      setenv("NCCL_NVLS_ENABLE", "0", 1);
      ncclUniqueId id;
      GPU_CHECK(ncclGetUniqueId(&id));
      run([&](int rank) { GPU_CHECK(ncclCommInitRank(&ranks_[rank].comm, size(), id, rank)); });
    }
  } catch (...) {
    stop_threads();
    throw;
  }
}

Team::~Team() {
  try {
    run([this](int rank) {
      if (ranks_[rank].comm != nullptr) GPU_CHECK(ncclCommDestroy(ranks_[rank].comm));
      for (auto& array : ranks_[rank].arrays) array = course::DeviceBuffer<float>();
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
}

std::vector<int> Team::even_split(int nz, int ranks) {
  std::vector<int> thicknesses(ranks, nz / ranks);
  for (int rank = 0; rank < nz % ranks; ++rank) ++thicknesses[rank];
  return thicknesses;
}

ncclComm_t Team::comm(int rank) const {
  if (ranks_[rank].comm == nullptr) throw std::logic_error("this team was made without NCCL (Communicator::nccl)");
  return ranks_[rank].comm;
}

void Team::serve(int rank) {
  for (;;) {
    workers_[rank]->go.acquire();
    if (job_ == nullptr) return;
    try {
      GPU_CHECK(gpuSetDevice(ranks_[rank].slab.device));
      (*job_)(rank);
    } catch (...) {
      const std::lock_guard lock(mutex_);
      if (!first_failure_) first_failure_ = std::current_exception();
      broken_ = true;
      turn_.notify_all();
    }
    finished_.release();
  }
}

void Team::run(const std::function<void(int rank)>& body) {
  job_ = &body;
  broken_ = false;
  arrived_ = 0;
  for (auto& worker : workers_) worker->go.release();  // publishes job_ to the workers
  for (int rank = 0; rank < size(); ++rank) finished_.acquire();
  if (first_failure_) std::rethrow_exception(std::exchange(first_failure_, nullptr));
}

void Team::barrier() {
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

void Team::set_state(const std::vector<float>& u, const std::vector<float>& previous) {
  const std::size_t plane = std::size_t(problem_.nx) * problem_.ny;
  run([&](int rank) {
    Rank& r = ranks_[rank];
    const Grid& g = r.slab.grid;
    r.slab.current = 0;
    for (int k = 0; k < 2; ++k) {
      const std::vector<float>& global = k == 0 ? u : previous;
      std::vector<float> local(g.size, std::numeric_limits<float>::quiet_NaN());
      for (int z = 0; z < g.dz; ++z)
        for (int y = 0; y < g.dy; ++y)
          for (int x = 0; x < g.dx; ++x) local[g.at(x, y, z)] = global[(r.slab.z0 + z) * plane + std::size_t(y) * g.dx + x];
      r.arrays[k].poison();
      r.arrays[k].copy_from(local);
    }
    GPU_CHECK(gpuDeviceSynchronize());  // the copy may still be landing when a stream of the step starts
  });
}

void Team::set_standing_mode(const StandingMode& mode) {
  const double theta = mode.theta(problem_);
  run([&](int rank) {
    Rank& r = ranks_[rank];
    r.slab.current = 0;
    for (int k = 0; k < 2; ++k) {
      r.arrays[k].poison();
      ch06::set_standing_mode(r.slab.field[k], r.slab.grid, problem_, r.slab.z0, mode, k == 0 ? 0.0 : theta, nullptr);
    }
    GPU_CHECK(gpuDeviceSynchronize());
  });
}

std::vector<float> Team::gather(int age) const {
  const std::size_t plane = std::size_t(problem_.nx) * problem_.ny;
  std::vector<float> global(plane * problem_.nz);
  for (const Rank& r : ranks_) {
    const Grid& g = r.slab.grid;
    const std::vector<float> local = r.arrays[(r.slab.current + age) % 2].to_host();
    for (int z = 0; z < g.dz; ++z)
      for (int y = 0; y < g.dy; ++y)
        for (int x = 0; x < g.dx; ++x) global[(r.slab.z0 + z) * plane + std::size_t(y) * g.dx + x] = local[g.at(x, y, z)];
  }
  return global;
}

int Team::rank_of_plane(int z) const {
  int rank = 0;
  while (z >= ranks_[rank].slab.z0 + ranks_[rank].slab.grid.dz) ++rank;
  return rank;
}

float Team::value_at(int x, int y, int z) const {
  const Slab& slab = ranks_[rank_of_plane(z)].slab;
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

Event::Event() { GPU_CHECK(gpuEventCreateWithFlags(&event_, gpuEventDisableTiming)); }

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
