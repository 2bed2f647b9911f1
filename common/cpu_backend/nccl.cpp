// NCCL's point-to-point subset (course/nccl.hpp) on the CPU backend: the ranks of a communicator
// are host threads of this process, each on a device of its own, or, when this is one of
// several MPI processes (a build with MPI, started by mpirun), one rank a process, with MPI's
// rank numbers.
//
// A group (ncclGroupStart .. ncclGroupEnd, or one call outside a group) becomes one piece of
// its stream's work. When it runs, it posts all its calls, then waits until every one has met
// its match: the k-th receive from a rank takes that rank's k-th send to this one, as NCCL pairs
// them, and checks its size. A send completes only with its matching receive, as on a GPU, so a
// send outside a group waits for the peer's receive, and an exchange of sends and receives
// outside a group deadlocks here as it does on a GPU. In one process that is detected exactly:
// when every rank of a communicator waits in a call that nothing posted matches, none can ever
// go on, and each fails with one line naming the calls and where they were made. (Across
// processes, and for a deadlock of some ranks only, a wait that lasts a minute fails, saying
// which call never met its match.) While it waits, a group runs its peers' queued work itself
// (the work of their devices), so that their host threads need not be waiting for it.
// ncclCommAbort ends every wait of its communicator's ranks with an error: how a failing rank
// frees the others.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(COURSE_HAVE_MPI)
#include <mpi.h>
#endif

#include "course/nccl.hpp"
#include "streams.hpp"

namespace {

constexpr std::chrono::seconds kPatience{60};

// One posted send or receive, until it meets its match.
struct Posted {
  bool send;
  std::byte* buffer;  // read by a send, written by a receive
  std::size_t bytes;
  int peer;
  std::source_location where;
  bool matched = false;
  std::string failure;  // a receive whose send had another size
};

std::string describe(int rank, const Posted& p) {
  return "rank " + std::to_string(rank) + " in " + (p.send ? "ncclSend to" : "ncclRecv from") + " rank " +
         std::to_string(p.peer) + " at " + p.where.file_name() + ":" + std::to_string(p.where.line());
}

// The ranks of one unique id in this process, and their posted calls.
struct Clique {
  int size = 0;
  std::vector<int> devices;  // by rank; -1 until the rank joins
  int joined = 0;
  int destroyed = 0;
  std::string refused;  // why a rank's ncclCommInitRank failed: the others fail too
  std::map<std::pair<int, int>, std::deque<Posted*>> sends, receives;  // (from, to) -> posted, oldest first
  std::vector<std::vector<Posted*>> waiting;  // by rank: its posted calls not matched yet
  std::string failed;  // a deadlock or an abort: every wait of the clique ends with it
};

std::mutex cliques_mutex;
std::map<std::uint64_t, std::shared_ptr<Clique>>& cliques() {
  static std::map<std::uint64_t, std::shared_ptr<Clique>> by_id;
  return by_id;
}
std::atomic<std::uint64_t> next_id{1};

thread_local std::string last_error;

ncclResult_t fail(ncclResult_t result, std::string why) {
  last_error = std::move(why);
  return result;
}

std::size_t size_of(ncclDataType_t type) {
  switch (type) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
  }
  return 0;
}

// The calls between ncclGroupStart() and ncclGroupEnd() on this thread.
struct Group {
  int depth = 0;
  ncclComm_t comm = nullptr;
  gpuStream_t stream = nullptr;
  std::vector<Posted> calls;
};
thread_local Group group;

#if defined(COURSE_HAVE_MPI)
// Whether this process is one of several MPI processes: then each holds one rank.
bool across_processes() {
  int initialized = 0, finalized = 0, ranks = 1;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return false;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  return ranks > 1;
}
#endif

}  // namespace

struct ncclComm {
  std::shared_ptr<Clique> clique;  // null across processes
  int rank;
  int size;
#if defined(COURSE_HAVE_MPI)
  MPI_Comm mpi = MPI_COMM_NULL;  // across processes: a copy of MPI_COMM_WORLD of its own
#endif
};

namespace {

// Pairs the oldest unmatched send and receive of (from, to) while both exist; the caller holds
// cliques_mutex.
void match(Clique& clique, int from, int to) {
  auto& sends = clique.sends[{from, to}];
  auto& receives = clique.receives[{from, to}];
  while (!sends.empty() && !receives.empty()) {
    Posted& send = *sends.front();
    Posted& receive = *receives.front();
    sends.pop_front();
    receives.pop_front();
    if (send.bytes != receive.bytes)
      receive.failure = "ncclRecv: rank " + std::to_string(to) + " expected " + std::to_string(receive.bytes) +
                        " bytes from rank " + std::to_string(from) + ", whose matching ncclSend sent " + std::to_string(send.bytes);
    else if (send.bytes != 0)
      std::memcpy(receive.buffer, send.buffer, send.bytes);
    send.matched = receive.matched = true;
    std::erase(clique.waiting[from], &send);
    std::erase(clique.waiting[to], &receive);
  }
}

// Withdraws a failed group's calls that are still posted; the caller holds cliques_mutex.
void withdraw(Clique& clique, int rank, std::vector<Posted>& calls) {
  for (Posted& p : calls) {
    if (p.matched) continue;
    auto& queue = p.send ? clique.sends[{rank, p.peer}] : clique.receives[{p.peer, rank}];
    std::erase(queue, &p);
    std::erase(clique.waiting[rank], &p);
  }
}

gpuError_t failed(std::string why) {
  course::cpu::report_failure(std::move(why));
  return gpuErrorLaunchFailure;
}

// A group's work in one process, when its stream runs it.
gpuError_t run_group(ncclComm_t comm, std::vector<Posted> calls) {
  Clique& clique = *comm->clique;
  const int me = comm->rank;
  {
    const std::lock_guard lock(cliques_mutex);
    if (!clique.failed.empty()) return failed(clique.failed);
    for (Posted& p : calls) {
      clique.waiting[me].push_back(&p);
      if (p.send) {
        clique.sends[{me, p.peer}].push_back(&p);
      } else {
        clique.receives[{p.peer, me}].push_back(&p);
      }
    }
    for (const Posted& p : calls) p.send ? match(clique, me, p.peer) : match(clique, p.peer, me);
    // Every rank waits in a call nothing posted matches: no rank can post another, ever.
    if (std::all_of(clique.waiting.begin(), clique.waiting.end(), [](const auto& w) { return !w.empty(); })) {
      std::string why = "deadlock: every rank of the communicator waits in a call that no other call matches (";
      for (int rank = 0; rank < clique.size; ++rank) why += (rank ? "; " : "") + describe(rank, *clique.waiting[rank].front());
      clique.failed = why + "): a send completes only with its receive, so put the sends and receives of an exchange in one group (ncclGroupStart/End)";
    }
  }
  course::cpu::notify_progress();
  const auto deadline = std::chrono::steady_clock::now() + kPatience;
  for (;;) {
    std::vector<int> peers;
    {
      const std::lock_guard lock(cliques_mutex);
      if (!clique.failed.empty()) {
        withdraw(clique, me, calls);
        return failed(clique.failed);
      }
      if (clique.waiting[me].empty()) {
        for (const Posted& p : calls)
          if (!p.failure.empty()) return failed(p.failure);
        return gpuSuccess;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        const std::string why = describe(me, *clique.waiting[me].front()) + " waited " + std::to_string(kPatience.count()) +
                                " s for its match: does every send have its receive, in the same order, in a group?";
        withdraw(clique, me, calls);
        return failed(why);
      }
      for (const Posted* p : clique.waiting[me]) peers.push_back(clique.devices[p->peer]);
    }
    bool ran = false;
    for (const int device : peers) ran = ran || course::cpu::run_queued_work(device);
    if (!ran) course::cpu::wait_for_progress(std::chrono::milliseconds(10));
  }
}

#if defined(COURSE_HAVE_MPI)
// A group's work across processes: MPI's synchronous sends (complete only once their receive
// has begun) and receives, posted together, then waited for.
gpuError_t run_group_mpi(ncclComm_t comm, std::vector<Posted> calls) {
  std::vector<MPI_Request> requests(calls.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    Posted& p = calls[i];
    const int count = static_cast<int>(p.bytes);
    const int status = p.send ? MPI_Issend(p.buffer, count, MPI_BYTE, p.peer, 0, comm->mpi, &requests[i])
                              : MPI_Irecv(p.buffer, count, MPI_BYTE, p.peer, 0, comm->mpi, &requests[i]);
    if (status != MPI_SUCCESS) return failed(describe(comm->rank, p) + ": MPI could not post it");
  }
  std::vector<MPI_Status> statuses(calls.size());
  const auto deadline = std::chrono::steady_clock::now() + kPatience;
  for (int done = 0;;) {
    if (MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, statuses.data()) != MPI_SUCCESS)
      return failed("ncclRecv: rank " + std::to_string(comm->rank) + ": a message longer than its receive (MPI_ERR_TRUNCATE)");
    if (done) break;
    if (std::chrono::steady_clock::now() > deadline) {
      for (std::size_t i = 0; i < calls.size(); ++i)
        if (int one = 0; MPI_Test(&requests[i], &one, MPI_STATUS_IGNORE) == MPI_SUCCESS && !one)
          return failed(describe(comm->rank, calls[i]) + " waited " + std::to_string(kPatience.count()) +
                        " s for its match: does every send have its receive, in the same order, in a group?");
      return failed("rank " + std::to_string(comm->rank) + " waited " + std::to_string(kPatience.count()) + " s in a group");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  for (std::size_t i = 0; i < calls.size(); ++i) {
    int received = 0;
    if (calls[i].send) continue;
    MPI_Get_count(&statuses[i], MPI_BYTE, &received);
    if (static_cast<std::size_t>(received) != calls[i].bytes)
      return failed("ncclRecv: rank " + std::to_string(comm->rank) + " expected " + std::to_string(calls[i].bytes) +
                    " bytes from rank " + std::to_string(calls[i].peer) + ", whose matching ncclSend sent " + std::to_string(received));
  }
  return gpuSuccess;
}
#endif

ncclResult_t add_call(Posted call, ncclDataType_t type, std::size_t count, ncclComm_t comm, gpuStream_t stream) {
  const char* name = call.send ? "ncclSend" : "ncclRecv";
  if (comm == nullptr) return fail(ncclInvalidArgument, std::string(name) + ": no communicator");
  if (call.peer < 0 || call.peer >= comm->size)
    return fail(ncclInvalidArgument, std::string(name) + ": peer " + std::to_string(call.peer) + " is not a rank of a communicator of " +
                                         std::to_string(comm->size));
  if (size_of(type) == 0) return fail(ncclInvalidArgument, std::string(name) + ": unknown data type");
  if (count > 0 && call.buffer == nullptr) return fail(ncclInvalidArgument, std::string(name) + ": no buffer");
  call.bytes = count * size_of(type);
  const bool alone = group.depth == 0;
  if (alone) ncclGroupStart();
  if (!group.calls.empty() && (group.comm != comm || group.stream != stream))
    return fail(ncclInvalidUsage, std::string(name) + ": the calls of one group must share a communicator and a stream here");
  group.comm = comm;
  group.stream = stream;
  group.calls.push_back(call);
  return alone ? ncclGroupEnd() : ncclSuccess;
}

}  // namespace

const char* ncclGetLastError(ncclComm_t) { return last_error.c_str(); }

ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  *id = ncclUniqueId{};
  const std::uint64_t value = next_id++;
  std::memcpy(id->internal, &value, sizeof value);
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int ranks, ncclUniqueId id, int rank) {
  if (ranks < 1 || rank < 0 || rank >= ranks)
    return fail(ncclInvalidArgument, "ncclCommInitRank: rank " + std::to_string(rank) + " of " + std::to_string(ranks));
#if defined(COURSE_HAVE_MPI)
  if (across_processes()) {
    int world_rank = 0, world_size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (ranks != world_size || rank != world_rank)
      return fail(ncclInvalidUsage, "ncclCommInitRank: across MPI processes, the CPU backend's ranks are MPI_COMM_WORLD's (rank " +
                                        std::to_string(world_rank) + " of " + std::to_string(world_size) + "), not rank " +
                                        std::to_string(rank) + " of " + std::to_string(ranks));
    auto made = std::make_unique<ncclComm>(ncclComm{nullptr, rank, ranks});
    MPI_Comm_dup(MPI_COMM_WORLD, &made->mpi);  // collective, as NCCL's init: returns when every rank has joined
    MPI_Comm_set_errhandler(made->mpi, MPI_ERRORS_RETURN);
    *comm = made.release();
    return ncclSuccess;
  }
#endif
  std::uint64_t key = 0;
  std::memcpy(&key, id.internal, sizeof key);
  const int device = course::cpu::current_device();
  std::shared_ptr<Clique> clique;
  {
    const std::lock_guard lock(cliques_mutex);
    auto& slot = cliques()[key];
    if (!slot) {
      slot = std::make_shared<Clique>();
      slot->size = ranks;
      slot->devices.assign(ranks, -1);
      slot->waiting.resize(ranks);
    }
    clique = slot;
    auto refuse = [&](ncclResult_t result, std::string why) {
      clique->refused = why;
      return fail(result, "ncclCommInitRank: " + why);
    };
    if (clique->size != ranks) return refuse(ncclInvalidArgument, "ranks of one id disagree on their number");
    if (clique->devices[rank] != -1) return refuse(ncclInvalidUsage, "rank " + std::to_string(rank) + " joined twice");
    for (int other = 0; other < ranks; ++other)
      if (clique->devices[other] == device)  // as NCCL refuses it
        return refuse(ncclInvalidUsage, "ranks " + std::to_string(other) + " and " + std::to_string(rank) +
                                            " are both on device " + std::to_string(device));
    clique->devices[rank] = device;
    ++clique->joined;
  }
  course::cpu::notify_progress();
  const auto deadline = std::chrono::steady_clock::now() + kPatience;
  for (;;) {  // as NCCL's, the call returns when every rank has joined
    {
      const std::lock_guard lock(cliques_mutex);
      if (!clique->refused.empty()) return fail(ncclInvalidUsage, "ncclCommInitRank: another rank was refused: " + clique->refused);
      if (!clique->failed.empty()) return fail(ncclRemoteError, "ncclCommInitRank: " + clique->failed);
      if (clique->joined == clique->size) break;
    }
    if (std::chrono::steady_clock::now() > deadline)
      return fail(ncclSystemError, "ncclCommInitRank: the other ranks did not join within " + std::to_string(kPatience.count()) + " s");
    course::cpu::wait_for_progress(std::chrono::milliseconds(10));
  }
  *comm = new ncclComm{clique, rank, ranks};
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (comm == nullptr) return ncclSuccess;
#if defined(COURSE_HAVE_MPI)
  if (comm->mpi != MPI_COMM_NULL) MPI_Comm_free(&comm->mpi);
#endif
  if (comm->clique) {
    const std::lock_guard lock(cliques_mutex);
    Clique& clique = *comm->clique;
    for (const auto& [pair, sends] : clique.sends)
      if (pair.second == comm->rank && !sends.empty() && clique.failed.empty())
        std::fprintf(stderr, "warning: rank %d never received %zu message(s) that rank %d sent it\n", comm->rank,
                     sends.size(), pair.first);
    if (++clique.destroyed == clique.size) std::erase_if(cliques(), [&](const auto& entry) { return entry.second.get() == &clique; });
  }
  delete comm;
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (comm == nullptr) return ncclSuccess;
  if (comm->clique) {
    {
      const std::lock_guard lock(cliques_mutex);
      if (comm->clique->failed.empty())
        comm->clique->failed = "rank " + std::to_string(comm->rank) + " aborted the communicator (ncclCommAbort): another rank failed";
    }
    course::cpu::notify_progress();
  }
  return ncclCommDestroy(comm);
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) {
  *count = comm->size;
  return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  *rank = comm->rank;
  return ncclSuccess;
}

ncclResult_t ncclSend(const void* buffer, std::size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                      gpuStream_t stream, std::source_location where) {
  return add_call({true, static_cast<std::byte*>(const_cast<void*>(buffer)), 0, peer, where}, type, count, comm, stream);
}

ncclResult_t ncclRecv(void* buffer, std::size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                      gpuStream_t stream, std::source_location where) {
  return add_call({false, static_cast<std::byte*>(buffer), 0, peer, where}, type, count, comm, stream);
}

ncclResult_t ncclGroupStart() {
  ++group.depth;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  if (group.depth == 0) return fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  if (--group.depth > 0 || group.calls.empty()) return ncclSuccess;
  const ncclComm_t comm = std::exchange(group.comm, nullptr);
  std::vector<Posted> calls = std::move(group.calls);
  group.calls.clear();
  course::cpu::Work work = [comm, calls = std::move(calls)] {
#if defined(COURSE_HAVE_MPI)
    if (!comm->clique) return run_group_mpi(comm, calls);
#endif
    return run_group(comm, calls);
  };
  const gpuError_t status = course::cpu::submit(std::exchange(group.stream, nullptr), std::move(work));
  if (status != gpuSuccess) return fail(ncclUnhandledCudaError, course::cpu::last_launch_failure());
  return ncclSuccess;
}
