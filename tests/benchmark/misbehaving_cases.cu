// A benchmark whose one case misbehaves in a way the harness must catch after timing
// (tooling/benchmark_harness.py runs it):
//   --case=right               doubles its input: a control, timed and exit 0
//   --case=keeps_first_answer  doubles its input on its first run, then copies that first answer
//                              every run: right until the inputs change, so only the check on
//                              fresh inputs fails it
//   --case=other_stream        doubles its input on a stream of its own (GPU backends), so the
//                              event pair on the default stream times nothing; the device is
//                              still busy after the stop event
//   --case=unsupported         needs what no device has (course::Unsupported before any launch):
//                              skipped, saying why (and, nothing else being timed, exit 1)
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "course/benchmark.hpp"
#include "course/device_buffer.hpp"
#include "course/random.hpp"

namespace {

using course::DeviceBuffer;

constexpr std::size_t kCount = 1 << 16;

__global__ void double_it(const float* in, float* out, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = 2 * in[i];
}

// Doubles every element after spinning ~2 ms, long past the harness's threshold.
__global__ void double_it_slowly(const float* in, float* out, int count) {
#if !defined(COURSE_BACKEND_CPU)
  const long long start = clock64();
  while (clock64() - start < 4'000'000) {
  }
#endif
  for (int i = threadIdx.x; i < count; i += blockDim.x) out[i] = 2 * in[i];
}

void launch_double(const float* in, float* out) {
  course::launch(double_it, {dim3(course::blocks_for(kCount, 256)), dim3(256)}, in, out, int(kCount));
}

struct Buffers {
  std::vector<float> in;
  DeviceBuffer<float> d_in, d_out;
  explicit Buffers(const course::Seed& seed)
      : in(course::random_floats(kCount, seed)), d_in(std::span<const float>(in)), d_out(kCount) {}

  std::string doubled() const {
    const std::vector<float> out = d_out.to_host();
    for (std::size_t i = 0; i < kCount; ++i)
      if (out[i] != 2 * in[i])
        return "out[" + std::to_string(i) + "] = " + std::to_string(out[i]) + ", not " + std::to_string(2 * in[i]);
    return "";
  }
};

#if !defined(COURSE_BACKEND_CPU)
// A stream that does not wait for the default stream, nor the default stream for it. (The
// CPU backend has no streams: every launch finishes before it returns.)
#if defined(COURSE_BACKEND_CUDA)
using Stream = cudaStream_t;
#define gpuStreamCreateWithFlags cudaStreamCreateWithFlags
#define gpuStreamNonBlocking cudaStreamNonBlocking
#else
using Stream = hipStream_t;
#define gpuStreamCreateWithFlags hipStreamCreateWithFlags
#define gpuStreamNonBlocking hipStreamNonBlocking
#endif
Stream make_stream() {
  Stream stream = nullptr;
  GPU_CHECK(gpuStreamCreateWithFlags(&stream, gpuStreamNonBlocking));
  return stream;
}
#endif

}  // namespace

int main(int argc, char** argv) try {
  course::bench::Session session(argc, argv, {{"case", "right"}});
  const std::string which = session.text("case");
  auto buffers = std::make_shared<std::optional<Buffers>>();
  session.add_problem({.name = "a vector of 65536 floats", .device_bytes = 8.0 * kCount, .host_bytes = 8.0 * kCount,
                       .build = [buffers](const course::Seed& seed) { buffers->emplace(seed); },
                       .release = [buffers] { buffers->reset(); }});
  course::bench::Case c{.group = "double", .name = which, .prepare = [buffers] { (*buffers)->d_out.poison(); },
                        .bytes = 8.0 * kCount, .validate = [buffers] { return (*buffers)->doubled(); }};
  if (which == "right") {
    c.run = [buffers] { launch_double((*buffers)->d_in.data(), (*buffers)->d_out.data()); };
  } else if (which == "keeps_first_answer") {
    auto first_answer = std::make_shared<std::optional<DeviceBuffer<float>>>();
    c.run = [buffers, first_answer] {
      Buffers& b = **buffers;
      if (!*first_answer) {
        first_answer->emplace(kCount);
        launch_double(b.d_in.data(), (*first_answer)->data());
      }
      GPU_CHECK(gpuMemcpy(b.d_out.data(), (*first_answer)->data(), 4 * kCount, gpuMemcpyDeviceToDevice));
    };
  } else if (which == "unsupported") {
    c.run = [] { throw course::Unsupported("this case needs a unit no device has"); };
#if !defined(COURSE_BACKEND_CPU)
  } else if (which == "other_stream") {
    const Stream stream = make_stream();
    c.run = [buffers, stream] {
      double_it_slowly<<<1, 256, 0, stream>>>((*buffers)->d_in.data(), (*buffers)->d_out.data(), int(kCount));
      GPU_CHECK(gpuGetLastError());
    };
#endif
  } else {
    std::fprintf(stderr, "error: --case=%s: this backend has right, keeps_first_answer, unsupported%s\n", which.c_str(),
                 course::bench::on_cpu_backend() ? "" : ", other_stream");
    return 2;
  }
  session.add(std::move(c));
  return session.run();
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
