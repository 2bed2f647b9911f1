// course_ceilings: measures this machine's ceilings once, for every benchmark's "fraction of
// ceiling": device-to-device copy bandwidth (the runtime's memcpy and a 16-byte-per-thread copy
// kernel; bytes read + written), the FMA rate and the rsqrt rate, the copies between pinned host
// memory and the device (each way, bytes moved), what a halo exchange through the host can reach;
// with two devices or more, the peer copy between devices 0 and 1 (bytes moved, one way, then
// both ways at once), what a halo exchange between GPUs can reach.
//
//   course_ceilings [--out=FILE] [--megabytes=N]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/gpu.hpp"
#include "course/numbers.hpp"
#include "course/output_file.hpp"

namespace {

constexpr int kChains = 8;  // independent dependency chains per thread hide the pipeline latency

// One float4 per thread and no loop: blocks start in address order, so the copies in flight at
// any moment lie in one narrow window of memory, which DRAM serves best. On the H200 (537 MB)
// this kernel moved 4.21-4.23 TB/s, as fast as memcpy; with its blocks started in a scrambled
// order it fell to 3.92, and a grid-stride loop over 8 blocks per multiprocessor to 3.93-3.95.
__global__ void copy_float4(const float4* __restrict__ in, float4* __restrict__ out, size_t count) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i < count) out[i] = in[i];
}

__global__ void fma_chains(float* out, int iterations, float b, float c) {
  float a[kChains];
  for (int k = 0; k < kChains; ++k) a[k] = threadIdx.x + k;
  for (int i = 0; i < iterations; ++i)
    for (int k = 0; k < kChains; ++k) a[k] = fmaf(a[k], b, c);
  float sum = 0;
  for (int k = 0; k < kChains; ++k) sum += a[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

__global__ void rsqrt_chains(float* out, int iterations) {
  float x[kChains];
  for (int k = 0; k < kChains; ++k) x[k] = 1.0f + threadIdx.x + k;
  for (int i = 0; i < iterations; ++i)
    for (int k = 0; k < kChains; ++k) x[k] = rsqrtf(x[k]);
  float sum = 0;
  for (int k = 0; k < kChains; ++k) sum += x[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Copies `bytes` from device 0 to device 1 and, with `both_ways`, from 1 to 0 at the same time,
// each on a blocking stream of device 0, so that events on the default stream bracket them.
// Peer access is turned on first where the devices have it (NVLink, or PCIe peer to peer).
class PeerCopy {
 public:
  explicit PeerCopy(std::size_t bytes) : bytes_(bytes) {
    for (int device : {1, 0}) {
      GPU_CHECK(gpuSetDevice(device));
      course::enable_peer_access(1 - device);
      buffers_[device][0] = course::DeviceBuffer<std::byte>(bytes);
      buffers_[device][1] = course::DeviceBuffer<std::byte>(bytes);
    }
    for (gpuStream_t& stream : streams_) GPU_CHECK(gpuStreamCreate(&stream));
  }
  ~PeerCopy() {  // unchecked: a destructor cannot throw, and a failure here follows one already reported
    for (gpuStream_t stream : streams_) (void)gpuStreamDestroy(stream);
  }
  void run(bool both_ways) {
    GPU_CHECK(gpuMemcpyPeerAsync(buffers_[1][0].data(), 1, buffers_[0][1].data(), 0, bytes_, streams_[0]));
    if (both_ways) GPU_CHECK(gpuMemcpyPeerAsync(buffers_[0][0].data(), 0, buffers_[1][1].data(), 1, bytes_, streams_[1]));
  }

 private:
  std::size_t bytes_;
  course::DeviceBuffer<std::byte> buffers_[2][2];  // [device][destination, source]
  gpuStream_t streams_[2] = {};
};

// Page-locked host memory, which the device's copy engines reach directly (a pageable buffer is
// staged through one of the driver's own first).
class PinnedBytes {
 public:
  explicit PinnedBytes(std::size_t bytes) { GPU_CHECK(gpuMallocHost(&data_, bytes)); }
  ~PinnedBytes() { (void)gpuFreeHost(data_); }  // unchecked, as PeerCopy's
  PinnedBytes(const PinnedBytes&) = delete;
  PinnedBytes& operator=(const PinnedBytes&) = delete;
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
};

// Median of `repetitions` event-timed runs of `work`, after one warm-up run, in seconds.
double median_seconds(const std::function<void()>& work, int repetitions) {
  gpuEvent_t start, stop;
  GPU_CHECK(gpuEventCreate(&start));
  GPU_CHECK(gpuEventCreate(&stop));
  work();
  GPU_CHECK(gpuDeviceSynchronize());
  std::vector<double> seconds;
  for (int r = 0; r < repetitions; ++r) {
    GPU_CHECK(gpuEventRecord(start));
    work();
    GPU_CHECK(gpuEventRecord(stop));
    GPU_CHECK(gpuEventSynchronize(stop));
    float ms = 0;
    GPU_CHECK(gpuEventElapsedTime(&ms, start, stop));
    seconds.push_back(ms / 1e3);
  }
  GPU_CHECK(gpuEventDestroy(start));
  GPU_CHECK(gpuEventDestroy(stop));
  std::nth_element(seconds.begin(), seconds.begin() + repetitions / 2, seconds.end());
  return seconds[repetitions / 2];
}

constexpr const char* kUsage = "usage: course_ceilings [--out=FILE] [--megabytes=N]";

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr, "error: %s (%s)\n", problem.c_str(), kUsage);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) try {
#if defined(COURSE_BACKEND_CPU)
  size_t megabytes = 64;
  const int iterations = 64, repetitions = 3;
#else
  size_t megabytes = 1024;
  const int iterations = 4096, repetitions = 20;
#endif
  // Every argument, and what the device can hold, is checked before the output file is made.
  std::optional<std::string> out_path;
  bool megabytes_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("%s\n", kUsage);
      return 0;
    }
    if (arg.rfind("--out=", 0) == 0) {
      if (out_path) usage("--out is given twice");
      out_path = arg.substr(6);
    } else if (arg.rfind("--megabytes=", 0) == 0) {
      if (megabytes_given) usage("--megabytes is given twice");
      const auto value = course::parse_whole_number(arg.substr(12), 1, 1 << 20);
      if (!value) usage("--megabytes needs a whole number from 1 to 1048576, not '" + arg.substr(12) + "'");
      megabytes = *value;
      megabytes_given = true;
    } else {
      usage("unknown or malformed option '" + arg + "'");
    }
  }
  int devices = 0;
  if (gpuGetDeviceCount(&devices) != gpuSuccess || devices == 0) usage("no " COURSE_BACKEND_NAME " device found");
  gpuDeviceProp prop{};
  GPU_CHECK(gpuGetDeviceProperties(&prop, 0));
  if (prop.totalGlobalMem != 0 && 2 * megabytes * 1000 * 1000 > prop.totalGlobalMem)
    usage("--megabytes=" + std::to_string(megabytes) + " needs twice that on the device, which has " +
          std::to_string(prop.totalGlobalMem / 1000000) + " MB");
  // Written whole at the end; until then a partial file, removed if anything fails.
  const auto json_file = out_path ? std::make_unique<course::OutputFile>(*out_path) : nullptr;

  const size_t count = megabytes * 1000 * 1000 / sizeof(float4);
  course::DeviceBuffer<float4> in(count), out(count);
  GPU_CHECK(gpuMemset(in.data(), 0, in.bytes()));
  const double bytes = 2.0 * in.bytes();
  const double memcpy_GBps =
      bytes / 1e9 / median_seconds([&] { GPU_CHECK(gpuMemcpy(out.data(), in.data(), in.bytes(), gpuMemcpyDeviceToDevice)); }, repetitions);
  const unsigned threads = 256;
  const double kernel_GBps = bytes / 1e9 / median_seconds([&] {
    course::launch(copy_float4, {course::blocks_for(count, threads), threads}, in.data(), out.data(), count);
  }, repetitions);

  const unsigned blocks = static_cast<unsigned>(prop.multiProcessorCount) * 8;

  course::DeviceBuffer<float> sink(size_t{blocks} * threads);
  const double lanes = static_cast<double>(blocks) * threads * kChains * iterations;
  const double fma_GFLOPs = 2 * lanes / 1e9 / median_seconds([&] {
    course::launch(fma_chains, {blocks, threads}, sink.data(), iterations, 0.999f, 0.001f);
  }, repetitions);
  const double rsqrt_Gops = lanes / 1e9 / median_seconds([&] {
    course::launch(rsqrt_chains, {blocks, threads}, sink.data(), iterations);
  }, repetitions);

  // Far past the size where the rate levels off, and small enough to pin on a laptop.
  const std::size_t host_bytes = std::min<std::size_t>(in.bytes(), std::size_t{256} << 20);
  const PinnedBytes host(host_bytes);
  const double host_to_device_GBps = host_bytes / 1e9 / median_seconds([&] {
    GPU_CHECK(gpuMemcpy(in.data(), host.data(), host_bytes, gpuMemcpyHostToDevice));
  }, repetitions);
  const double device_to_host_GBps = host_bytes / 1e9 / median_seconds([&] {
    GPU_CHECK(gpuMemcpy(host.data(), in.data(), host_bytes, gpuMemcpyDeviceToHost));
  }, repetitions);

  std::string peer;  // the peer copy's lines of the JSON, with two devices or more
  if (devices >= 2) {
    PeerCopy copy(in.bytes());
    const double one_way = in.bytes() / 1e9 / median_seconds([&] { copy.run(false); }, repetitions);
    const double both_ways = 2 * in.bytes() / 1e9 / median_seconds([&] { copy.run(true); }, repetitions);
    char lines[160];
    std::snprintf(lines, sizeof lines, ",\n  \"peer_GBps\": %.1f,\n  \"peer_both_ways_GBps\": %.1f", one_way, both_ways);
    peer = lines;
  }

  char json[1024];
  std::snprintf(json, sizeof json,
                "{\n  \"gpu\": \"%s\",\n  \"backend\": \"%s\",\n  \"copy_bytes\": %.0f,\n"
                "  \"memcpy_GBps\": %.1f,\n  \"copy_kernel_GBps\": %.1f,\n  \"copy_GBps\": %.1f,\n"
                "  \"fma_GFLOPs\": %.1f,\n  \"rsqrt_Gops\": %.1f,\n"
                "  \"host_to_device_GBps\": %.1f,\n  \"device_to_host_GBps\": %.1f%s\n}\n",
                prop.name, COURSE_BACKEND_NAME, bytes, memcpy_GBps, kernel_GBps, std::max(memcpy_GBps, kernel_GBps),
                fma_GFLOPs, rsqrt_Gops, host_to_device_GBps, device_to_host_GBps, peer.c_str());
  std::fputs(json, stdout);
  if (json_file) {
    json_file->write(json);
    json_file->commit();
  }
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
