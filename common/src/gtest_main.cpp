// The course's test main: says what the tests run on (backend, device, thread order), and with
// --course_step=CHAPTER/FILE ("01_transpose/02_shared_tile") runs only the tests of one step
// file, or with --course_step=CHAPTER/none the chapter's tests that belong to no step;
// cmake/Chapter.cmake makes one CTest test of each. Exits with kSkipped (CTest's SKIP_RETURN_CODE) when there is no device.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "course/gpu.hpp"
#include "course/testing.hpp"

namespace {

constexpr int kSkipped = 77;

bool threads_shuffled() {
#if defined(COURSE_BACKEND_CPU)
  return course::cpu::shuffle_seed() != 0;
#else
  return false;
#endif
}

// The filter that selects the tests of `step` ("none": of no step), without host-only tests when
// the threads are shuffled; empty when nothing matches. `host_only` counts those left out.
std::string filter_for_step(const std::string& step, int& host_only) {
  std::string filter;
  const ::testing::UnitTest& tests = *::testing::UnitTest::GetInstance();
  for (int s = 0; s < tests.total_test_suite_count(); ++s) {
    const ::testing::TestSuite& suite = *tests.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const std::string name = suite.GetTestInfo(t)->name();
      const std::string file = course::step_file_of(suite.name(), name);
      if (file != (step == "none" ? "" : step)) continue;
      if (threads_shuffled() && course::runs_on_host(suite.name())) {
        ++host_only;
        continue;
      }
      filter += (filter.empty() ? "" : ":") + std::string(suite.name()) + "." + name;
    }
  }
  return filter;
}

void describe_thread_order() {
#if defined(COURSE_BACKEND_CPU)
  if (const std::uint64_t seed = course::cpu::shuffle_seed(); seed != 0)
    std::printf("threads of a block shuffled between barriers (COURSE_CPU_SHUFFLE=%llu)\n",
                static_cast<unsigned long long>(seed));
  else
    std::printf("threads of a block run in order (COURSE_CPU_SHUFFLE=<seed> shuffles them)\n");
#endif
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::string step;
  for (int i = 1; i < argc; ++i) {
    constexpr const char* flag = "--course_step=";
    if (std::strncmp(argv[i], flag, std::strlen(flag)) != 0) {
      std::fprintf(stderr, "error: unknown argument '%s'; the tests take GoogleTest's --gtest_* flags and --course_step=FILE\n", argv[i]);
      return 2;
    }
    step = argv[i] + std::strlen(flag);
  }
  if (!step.empty()) {
    const auto slash = step.find('/');
    const std::string chapter = step.substr(0, slash), file = slash == std::string::npos ? "" : step.substr(slash + 1);
    int host_only = 0;
    const std::string filter = filter_for_step(file, host_only);
    if (filter.empty() && host_only > 0) {
      std::printf("the %d tests selected run host code only: nothing to run again with shuffled threads (skipped)\n",
                  host_only);
      return kSkipped;
    }
    if (file.empty() || filter.empty()) {
      std::fprintf(stderr, "error: --course_step=%s: no test of this program belongs to that step\n", step.c_str());
      return 1;
    }
    GTEST_FLAG_SET(filter, filter);
    if (file != "none") std::printf("grading %s\n", course::step_path({chapter, file, ""}).c_str());
  }
  if (const auto& reason = course::device_unavailable_reason()) {
    std::printf("backend %s: %s\n", COURSE_BACKEND_NAME, reason->c_str());
  } else {
    gpuDeviceProp prop{};
    GPU_CHECK(gpuGetDeviceProperties(&prop, 0));
    std::printf("backend %s on %s\n", COURSE_BACKEND_NAME, prop.name);
    describe_thread_order();
  }
  const int status = RUN_ALL_TESTS();
  const ::testing::UnitTest& tests = *::testing::UnitTest::GetInstance();
  if (status == 0 && tests.test_to_run_count() > 0 && tests.skipped_test_count() == tests.test_to_run_count())
    return kSkipped;  // nothing ran: a skip, never a pass
  return status;
}
