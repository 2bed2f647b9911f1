// NCCL's point-to-point subset (course/nccl.hpp) in one process: the ranks of a communicator are
// host threads, each on a device of its own.
//
// A group (ncclGroupStart .. ncclGroupEnd, or one call outside a group) becomes one piece of
// its stream's work. When it runs, its sends are posted first: each copies its buffer into the
// mailbox of its pair of ranks (the sender's data may change as soon as the send is done, as
// with NCCL). Then each receive takes the oldest message of its pair, so the k-th receive from a
// rank gets that rank's k-th send to it, as NCCL matches them, and checks its size. A receive
// whose message has not come runs the sender's queued work itself (the work of the sender's
// device), so the sender's host thread need not be waiting for it; a receive that waits a minute
// fails, saying which send never came.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "course/nccl.hpp"
#include "streams.hpp"

namespace {

constexpr std::chrono::seconds kPatience{60};

// The ranks of one unique id, and the messages between them.
struct Clique {
  int size = 0;
  std::vector<int> devices;  // by rank; -1 until the rank joins
  int joined = 0;
  int destroyed = 0;
  std::string refused;  // why a rank's ncclCommInitRank failed: the others fail too
  std::map<std::pair<int, int>, std::deque<std::vector<std::byte>>> mailbox;  // (from, to) -> messages, oldest first
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

struct Transfer {
  bool send;
  std::byte* buffer;  // read by a send, written by a receive
  std::size_t bytes;
  int peer;
};

// The calls between ncclGroupStart() and ncclGroupEnd() on this thread.
struct Group {
  int depth = 0;
  ncclComm_t comm = nullptr;
  gpuStream_t stream = nullptr;
  std::vector<Transfer> transfers;
};
thread_local Group group;

}  // namespace

struct ncclComm {
  std::shared_ptr<Clique> clique;
  int rank;
};

namespace {

// A group's work, when its stream runs it.
gpuError_t run_group(ncclComm_t comm, const std::vector<Transfer>& transfers) {
  Clique& clique = *comm->clique;
  {
    const std::lock_guard lock(cliques_mutex);
    for (const Transfer& t : transfers)
      if (t.send) clique.mailbox[{comm->rank, t.peer}].emplace_back(t.buffer, t.buffer + t.bytes);
  }
  course::cpu::notify_progress();
  for (const Transfer& t : transfers) {
    if (t.send) continue;
    const auto deadline = std::chrono::steady_clock::now() + kPatience;
    for (;;) {
      {
        const std::lock_guard lock(cliques_mutex);
        auto& messages = clique.mailbox[{t.peer, comm->rank}];
        if (!messages.empty()) {
          const std::vector<std::byte> message = std::move(messages.front());
          messages.pop_front();
          if (message.size() != t.bytes) {
            course::cpu::report_failure("ncclRecv: rank " + std::to_string(comm->rank) + " expected " +
                                        std::to_string(t.bytes) + " bytes from rank " + std::to_string(t.peer) +
                                        ", whose matching ncclSend sent " + std::to_string(message.size()));
            return gpuErrorLaunchFailure;
          }
          std::memcpy(t.buffer, message.data(), t.bytes);
          break;
        }
      }
      if (std::chrono::steady_clock::now() > deadline) {
        course::cpu::report_failure("ncclRecv: rank " + std::to_string(comm->rank) + " waited " +
                                    std::to_string(kPatience.count()) + " s for the matching ncclSend of rank " +
                                    std::to_string(t.peer) + ": does every send have its receive, in the same order?");
        return gpuErrorLaunchFailure;
      }
      if (!course::cpu::run_queued_work(clique.devices[t.peer])) course::cpu::wait_for_progress(std::chrono::milliseconds(10));
    }
  }
  return gpuSuccess;
}

ncclResult_t add_transfer(Transfer transfer, ncclDataType_t type, std::size_t count, ncclComm_t comm, gpuStream_t stream) {
  const char* call = transfer.send ? "ncclSend" : "ncclRecv";
  if (comm == nullptr) return fail(ncclInvalidArgument, std::string(call) + ": no communicator");
  if (transfer.peer < 0 || transfer.peer >= comm->clique->size)
    return fail(ncclInvalidArgument, std::string(call) + ": peer " + std::to_string(transfer.peer) + " is not a rank of a communicator of " +
                                         std::to_string(comm->clique->size));
  if (size_of(type) == 0) return fail(ncclInvalidArgument, std::string(call) + ": unknown data type");
  if (count > 0 && transfer.buffer == nullptr) return fail(ncclInvalidArgument, std::string(call) + ": no buffer");
  transfer.bytes = count * size_of(type);
  const bool alone = group.depth == 0;
  if (alone) ncclGroupStart();
  if (!group.transfers.empty() && (group.comm != comm || group.stream != stream))
    return fail(ncclInvalidUsage, std::string(call) + ": the calls of one group must share a communicator and a stream here");
  group.comm = comm;
  group.stream = stream;
  group.transfers.push_back(transfer);
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
      if (clique->joined == clique->size) break;
    }
    if (std::chrono::steady_clock::now() > deadline)
      return fail(ncclSystemError, "ncclCommInitRank: the other ranks did not join within " + std::to_string(kPatience.count()) + " s");
    course::cpu::wait_for_progress(std::chrono::milliseconds(10));
  }
  *comm = new ncclComm{clique, rank};
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (comm == nullptr) return ncclSuccess;
  {
    const std::lock_guard lock(cliques_mutex);
    Clique& clique = *comm->clique;
    for (const auto& [pair, messages] : clique.mailbox)
      if (pair.second == comm->rank && !messages.empty())
        std::fprintf(stderr, "warning: rank %d never received %zu message(s) that rank %d sent it\n", comm->rank,
                     messages.size(), pair.first);
    if (++clique.destroyed == clique.size) std::erase_if(cliques(), [&](const auto& entry) { return entry.second.get() == &clique; });
  }
  delete comm;
  return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) {
  *count = comm->clique->size;
  return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  *rank = comm->rank;
  return ncclSuccess;
}

ncclResult_t ncclSend(const void* buffer, std::size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                      gpuStream_t stream) {
  return add_transfer({true, static_cast<std::byte*>(const_cast<void*>(buffer)), 0, peer}, type, count, comm, stream);
}

ncclResult_t ncclRecv(void* buffer, std::size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                      gpuStream_t stream) {
  return add_transfer({false, static_cast<std::byte*>(buffer), 0, peer}, type, count, comm, stream);
}

ncclResult_t ncclGroupStart() {
  ++group.depth;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  if (group.depth == 0) return fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  if (--group.depth > 0 || group.transfers.empty()) return ncclSuccess;
  const ncclComm_t comm = std::exchange(group.comm, nullptr);
  std::vector<Transfer> transfers = std::move(group.transfers);
  group.transfers.clear();
  const gpuError_t status = course::cpu::submit(std::exchange(group.stream, nullptr),
                                                [comm, transfers = std::move(transfers)] { return run_group(comm, transfers); });
  if (status != gpuSuccess) return fail(ncclUnhandledCudaError, course::cpu::last_launch_failure());
  return ncclSuccess;
}
