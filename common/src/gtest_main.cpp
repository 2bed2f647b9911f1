// The course's test main: says which backend and device the tests run on before running them.
#include <gtest/gtest.h>

#include <cstdio>

#include "course/gpu.hpp"
#include "course/testing.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (const auto& reason = course::device_unavailable_reason()) {
    std::printf("backend %s: %s\n", COURSE_BACKEND_NAME, reason->c_str());
  } else {
    gpuDeviceProp prop{};
    GPU_CHECK(gpuGetDeviceProperties(&prop, 0));
    std::printf("backend %s on %s\n", COURSE_BACKEND_NAME, prop.name);
  }
  return RUN_ALL_TESTS();
}
