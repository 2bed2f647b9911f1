// The CPU backend's streams, events, graphs, devices and in-process NCCL: work on a stream runs
// only when something waits for it, events order streams, launches from several host threads
// (ranks) are safe, a captured graph replays its work, and ranks exchange buffers as NCCL's
// point-to-point calls do.
#include <gtest/gtest.h>

#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/gpu.hpp"
#include "course/nccl.hpp"

namespace {

using course::DeviceBuffer;

__global__ void fill(float* out, int n, float value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

__global__ void add_one(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.0f;
}

// A non-blocking stream, destroyed at the end of the scope.
struct Stream {
  gpuStream_t stream = nullptr;
  explicit Stream(int priority = 0) { GPU_CHECK(gpuStreamCreateWithPriority(&stream, gpuStreamNonBlocking, priority)); }
  ~Stream() { GPU_CHECK(gpuStreamDestroy(stream)); }
};

struct Event {
  gpuEvent_t event = nullptr;
  Event() { GPU_CHECK(gpuEventCreateWithFlags(&event, gpuEventDisableTiming)); }
  ~Event() { GPU_CHECK(gpuEventDestroy(event)); }
};

// Runs body(rank) on `ranks` threads, each on its own device, and rethrows the first failure.
void on_ranks(int ranks, const std::function<void(int)>& body) {
  std::vector<std::exception_ptr> errors(ranks);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < ranks; ++rank)
    threads.emplace_back([&, rank] {
      try {
        GPU_CHECK(gpuSetDevice(rank));
        body(rank);
      } catch (...) {
        errors[rank] = std::current_exception();
      }
    });
  for (std::thread& thread : threads) thread.join();
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

TEST(CpuStreams, WorkOnAStreamRunsOnlyWhenSomethingWaitsForIt) {
  constexpr int n = 1000;
  DeviceBuffer<float> out(n);
  out.poison();
  Stream s;
  course::launch(fill, {course::blocks_for(n, 128), 128, 0, s.stream}, out.data(), n, 2.0f);
  EXPECT_TRUE(std::isnan(out.to_host()[0])) << "the default stream does not wait for a non-blocking stream";
  GPU_CHECK(gpuStreamSynchronize(s.stream));
  EXPECT_EQ(out.to_host(), std::vector<float>(n, 2.0f));
}

TEST(CpuStreams, TheDefaultStreamWaitsForBlockingStreams) {
  constexpr int n = 100;
  DeviceBuffer<float> out(n);
  gpuStream_t blocking;
  GPU_CHECK(gpuStreamCreate(&blocking));
  course::launch(fill, {1, 128, 0, blocking}, out.data(), n, 3.0f);
  EXPECT_EQ(out.to_host(), std::vector<float>(n, 3.0f));
  GPU_CHECK(gpuStreamDestroy(blocking));
}

// Stream b adds one to what stream a filled in: right with the event between them, and, without
// it, wrong in at least one of the orders the seeds pick (as on a GPU, which may run b first).
TEST(CpuStreams, AnEventOrdersTwoStreamsAndItsAbsenceShows) {
  constexpr int n = 64;
  auto run = [&](bool with_event, std::uint64_t seed) {
    course::cpu::set_shuffle_seed(seed);
    DeviceBuffer<float> a_out(n), b_out(n);
    GPU_CHECK(gpuMemset(a_out.data(), 0, a_out.bytes()));
    Stream a, b;
    Event filled;
    course::launch(fill, {1, 64, 0, a.stream}, a_out.data(), n, 5.0f);
    GPU_CHECK(gpuEventRecord(filled.event, a.stream));
    if (with_event) GPU_CHECK(gpuStreamWaitEvent(b.stream, filled.event, 0));
    course::launch(add_one, {1, 64, 0, b.stream}, a_out.data(), b_out.data(), n);
    GPU_CHECK(gpuDeviceSynchronize());
    return b_out.to_host() == std::vector<float>(n, 6.0f);
  };
  bool always_right_without = true;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    EXPECT_TRUE(run(true, seed)) << "seed " << seed;
    always_right_without = always_right_without && run(false, seed);
  }
  course::cpu::set_shuffle_seed(0);
  EXPECT_FALSE(always_right_without) << "no order ran stream b before stream a: a missing wait would go unseen";
}

TEST(CpuStreams, LaunchesFromSeveralHostThreadsRunOneAtATime) {
  constexpr int n = 5000, kRanks = 4, kLaunches = 20;
  std::vector<std::vector<float>> results(kRanks);
  on_ranks(kRanks, [&](int rank) {
    DeviceBuffer<float> a(n), b(n);
    gpuStream_t blocking;  // ordered with the default stream, which the loop uses too
    GPU_CHECK(gpuStreamCreate(&blocking));
    course::launch(fill, {course::blocks_for(n, 256), 256, 0, blocking}, a.data(), n, float(rank));
    for (int k = 0; k < kLaunches; ++k) {  // a += 2, through b
      course::launch(add_one, {course::blocks_for(n, 256), 256, 0, blocking}, a.data(), b.data(), n);
      course::launch(add_one, {course::blocks_for(n, 256), 256}, b.data(), a.data(), n);
    }
    results[rank] = a.to_host();
    GPU_CHECK(gpuStreamDestroy(blocking));
  });
  for (int rank = 0; rank < kRanks; ++rank)
    EXPECT_EQ(results[rank], std::vector<float>(n, float(rank + 2 * kLaunches))) << "rank " << rank;
}

TEST(CpuStreams, ACapturedGraphRunsNothingUntilLaunchedThenReplaysItsWork) {
  constexpr int n = 300;
  DeviceBuffer<float> a(n), b(n);
  GPU_CHECK(gpuMemset(a.data(), 0, a.bytes()));
  Stream s, forked;
  Event fork, join;
  GPU_CHECK(gpuStreamBeginCapture(s.stream, gpuStreamCaptureModeThreadLocal));
  course::launch(add_one, {course::blocks_for(n, 128), 128, 0, s.stream}, a.data(), b.data(), n);
  GPU_CHECK(gpuEventRecord(fork.event, s.stream));
  GPU_CHECK(gpuStreamWaitEvent(forked.stream, fork.event, 0));  // joins the capture
  GPU_CHECK(gpuMemcpyAsync(a.data(), b.data(), b.bytes(), gpuMemcpyDeviceToDevice, forked.stream));
  GPU_CHECK(gpuEventRecord(join.event, forked.stream));
  GPU_CHECK(gpuStreamWaitEvent(s.stream, join.event, 0));
  gpuGraph_t graph;
  GPU_CHECK(gpuStreamEndCapture(s.stream, &graph));
  gpuGraphExec_t executable;
  GPU_CHECK(gpuGraphInstantiateWithFlags(&executable, graph, 0));
  EXPECT_EQ(a.to_host(), std::vector<float>(n, 0.0f)) << "capture ran the work";
  for (int launch = 0; launch < 3; ++launch) GPU_CHECK(gpuGraphLaunch(executable, s.stream));
  GPU_CHECK(gpuStreamSynchronize(s.stream));
  EXPECT_EQ(a.to_host(), std::vector<float>(n, 3.0f));
  GPU_CHECK(gpuGraphExecDestroy(executable));
  GPU_CHECK(gpuGraphDestroy(graph));
}

TEST(CpuStreams, ACaptureEndsOnlyWhenEveryForkedStreamHasJoined) {
  DeviceBuffer<float> a(64);
  Stream s, forked;
  Event fork;
  GPU_CHECK(gpuStreamBeginCapture(s.stream, gpuStreamCaptureModeThreadLocal));
  GPU_CHECK(gpuEventRecord(fork.event, s.stream));
  GPU_CHECK(gpuStreamWaitEvent(forked.stream, fork.event, 0));
  course::launch(fill, {1, 64, 0, forked.stream}, a.data(), 64, 1.0f);
  gpuGraph_t graph = nullptr;
  EXPECT_EQ(gpuStreamEndCapture(s.stream, &graph), gpuErrorStreamCaptureUnjoined);
  EXPECT_EQ(gpuGetLastError(), gpuErrorStreamCaptureUnjoined);
}

TEST(CpuStreams, EveryDeviceIsEveryOthersPeerOnce) {
  int devices = 0;
  GPU_CHECK(gpuGetDeviceCount(&devices));
  ASSERT_GE(devices, 4) << "the chapters run up to 4 ranks on the CPU backend, one device each";
  int can = -1;
  GPU_CHECK(gpuDeviceCanAccessPeer(&can, 0, 1));
  EXPECT_EQ(can, 1);
  GPU_CHECK(gpuDeviceCanAccessPeer(&can, 2, 2));
  EXPECT_EQ(can, 0) << "a device is not its own peer";
  on_ranks(1, [](int) {
    GPU_CHECK(gpuSetDevice(3));
    EXPECT_EQ(gpuDeviceEnablePeerAccess(2, 0), gpuSuccess);
    EXPECT_EQ(gpuDeviceEnablePeerAccess(2, 0), gpuErrorPeerAccessAlreadyEnabled);
    EXPECT_EQ(gpuGetLastError(), gpuErrorPeerAccessAlreadyEnabled);
    EXPECT_EQ(gpuDeviceEnablePeerAccess(3, 0), gpuErrorInvalidDevice);
    EXPECT_EQ(gpuSetDevice(kCpuDevices), gpuErrorInvalidDevice);
  });
}

// Each rank sends its values to both neighbours of a ring and receives theirs, in one group on a
// stream: the first receive gets the first send of that pair even when both neighbours are one
// rank (2 ranks) or the rank itself (1 rank).
TEST(CpuNccl, AGroupOfSendsAndReceivesMatchesThemByPeerAndOrder) {
  constexpr int n = 257;
  for (const int ranks : {1, 2, 3, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    ncclUniqueId id;
    GPU_CHECK(ncclGetUniqueId(&id));
    std::vector<std::vector<float>> from_below(ranks), from_above(ranks);
    on_ranks(ranks, [&](int rank) {
      ncclComm_t comm;
      GPU_CHECK(ncclCommInitRank(&comm, ranks, id, rank));
      const int up = (rank + 1) % ranks, down = (rank + ranks - 1) % ranks;
      DeviceBuffer<float> top(n), bottom(n), below(n), above(n);
      Stream s;
      course::launch(fill, {course::blocks_for(n, 128), 128, 0, s.stream}, top.data(), n, 10.0f * rank + 1);
      course::launch(fill, {course::blocks_for(n, 128), 128, 0, s.stream}, bottom.data(), n, 10.0f * rank + 2);
      GPU_CHECK(ncclGroupStart());
      GPU_CHECK(ncclSend(top.data(), n, ncclFloat, up, comm, s.stream));
      GPU_CHECK(ncclSend(bottom.data(), n, ncclFloat, down, comm, s.stream));
      GPU_CHECK(ncclRecv(below.data(), n, ncclFloat, down, comm, s.stream));
      GPU_CHECK(ncclRecv(above.data(), n, ncclFloat, up, comm, s.stream));
      GPU_CHECK(ncclGroupEnd());
      GPU_CHECK(gpuStreamSynchronize(s.stream));
      from_below[rank] = below.to_host();
      from_above[rank] = above.to_host();
      GPU_CHECK(ncclCommDestroy(comm));
    });
    for (int rank = 0; rank < ranks; ++rank) {
      const int up = (rank + 1) % ranks, down = (rank + ranks - 1) % ranks;
      EXPECT_EQ(from_below[rank], std::vector<float>(n, 10.0f * down + 1)) << "rank " << rank;
      EXPECT_EQ(from_above[rank], std::vector<float>(n, 10.0f * up + 2)) << "rank " << rank;
    }
  }
}

TEST(CpuNccl, AReceiveOfAnotherSizeThanItsSendFailsSayingSo) {
  ncclUniqueId id;
  GPU_CHECK(ncclGetUniqueId(&id));
  std::string failure;
  on_ranks(2, [&](int rank) {
    ncclComm_t comm;
    GPU_CHECK(ncclCommInitRank(&comm, 2, id, rank));
    DeviceBuffer<float> buffer(16);
    Stream s;
    if (rank == 0) {
      GPU_CHECK(ncclSend(buffer.data(), 16, ncclFloat, 1, comm, s.stream));
      GPU_CHECK(gpuStreamSynchronize(s.stream));
    } else {
      GPU_CHECK(ncclRecv(buffer.data(), 8, ncclFloat, 0, comm, s.stream));
      try {
        GPU_CHECK(gpuStreamSynchronize(s.stream));
      } catch (const std::runtime_error& error) {
        failure = error.what();
      }
    }
    GPU_CHECK(ncclCommDestroy(comm));
  });
  EXPECT_NE(failure.find("expected 32 bytes from rank 0, whose matching ncclSend sent 64"), std::string::npos) << failure;
}

TEST(CpuNccl, TwoRanksOnOneDeviceAreRefusedAsNcclRefusesThem) {
  ncclUniqueId id;
  GPU_CHECK(ncclGetUniqueId(&id));
  std::vector<ncclResult_t> results(2);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < 2; ++rank)
    threads.emplace_back([&, rank] {
      ncclComm_t comm = nullptr;
      results[rank] = ncclCommInitRank(&comm, 2, id, rank);  // both on device 0
      if (results[rank] == ncclSuccess) ncclCommDestroy(comm);
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_TRUE(results[0] == ncclInvalidUsage || results[1] == ncclInvalidUsage);
}

}  // namespace
