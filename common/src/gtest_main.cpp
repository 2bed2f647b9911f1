// The course's test main: says what the tests run on (backend, device, thread order), and with
// --course_step=CHAPTER/FILE ("01_transpose/02_shared_tile") runs only the tests of one step
// file, or with --course_step=CHAPTER/none the chapter's tests that belong to no step;
// cmake/Chapter.cmake makes one CTest test of each. Exits with kSkipped (CTest's SKIP_RETURN_CODE)
// when there is no device, and fails when a filter selects no test: "PASSED 0 tests" is no pass;
// nor is a run that GoogleTest's options or environment (which ctest passes on) make run nothing
// or a part: --gtest_repeat=0 (GTEST_REPEAT=0) and sharding (GTEST_TOTAL_SHARDS) are refused.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
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

// Calls visit(suite.name, step) for every test of this program, `step` being
// course::step_of's "CHAPTER/FILE", or "" for a test of no step.
template <class Visit>
void for_each_test(Visit visit) {
  const ::testing::UnitTest& tests = *::testing::UnitTest::GetInstance();
  for (int s = 0; s < tests.total_test_suite_count(); ++s) {
    const ::testing::TestSuite& suite = *tests.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const std::string name = std::string(suite.name()) + "." + suite.GetTestInfo(t)->name();
      visit(name, course::step_of(suite.name(), suite.GetTestInfo(t)->name()));
    }
  }
}

// The filter that selects the tests of `file` in `chapter` ("none": of no step), without the
// host-only ones when the threads are shuffled (`host_only` counts those); empty when nothing matches.
std::string filter_for_step(const std::string& chapter, const std::string& file, int& host_only) {
  std::string filter;
  for_each_test([&](const std::string& name, const std::string& step) {
    if (step != (file == "none" ? "" : chapter + "/" + file)) return;
    if (threads_shuffled() && course::runs_on_host(name.substr(0, name.find('.')))) {
      ++host_only;
      return;
    }
    filter += (filter.empty() ? "" : ":") + name;
  });
  return filter;
}

// The chapters whose steps this program tests, e.g. {"03_seismic"}.
std::set<std::string> chapters_tested() {
  std::set<std::string> chapters;
  for_each_test([&](const std::string&, const std::string& step) {
    if (!step.empty()) chapters.insert(step.substr(0, step.find('/')));
  });
  return chapters;
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

// Where a GoogleTest flag came from, for its error: the command line, or the environment.
std::string flag_source(int argc, char** argv, const char* flag, const char* variable) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], flag, std::strlen(flag)) == 0) return argv[i];
  const char* value = std::getenv(variable);
  return std::string(variable) + "=" + (value ? value : "");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string repeat = flag_source(argc, argv, "--gtest_repeat", "GTEST_REPEAT");
  ::testing::InitGoogleTest(&argc, argv);
  if (GTEST_FLAG_GET(repeat) == 0) {
    std::fprintf(stderr, "error: %s runs no test, which would pass as if every test had: give 1 or more, or leave it out\n",
                 repeat.c_str());
    return 2;
  }
  if (const char* shards = std::getenv("GTEST_TOTAL_SHARDS")) {
    std::fprintf(stderr, "error: GTEST_TOTAL_SHARDS=%s runs a part of this program's tests, which would pass as if all "
                 "had: unset it and GTEST_SHARD_INDEX\n", shards);
    return 2;
  }
  constexpr const char* flag = "--course_step=";
  std::optional<std::string> step;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], flag, std::strlen(flag)) != 0) {
      std::fprintf(stderr, "error: unknown argument '%s'; the tests take GoogleTest's --gtest_* flags and --course_step=CHAPTER/FILE\n", argv[i]);
      return 2;
    }
    if (step) {
      std::fprintf(stderr, "error: --course_step is given twice\n");
      return 2;
    }
    step = argv[i] + std::strlen(flag);
  }
  if (step) {
    const auto slash = step->find('/');
    const std::string chapter = step->substr(0, slash), file = slash == std::string::npos ? "" : step->substr(slash + 1);
    if (chapter.empty() || file.empty()) {
      std::fprintf(stderr, "error: --course_step needs CHAPTER/FILE (e.g. 01_transpose/00_naive, or CHAPTER/none), not '%s'\n",
                   step->c_str());
      return 2;
    }
    if (GTEST_FLAG_GET(filter) != "*") {
      std::fprintf(stderr, "error: --course_step selects the tests itself: leave out --gtest_filter (or GTEST_FILTER)\n");
      return 2;
    }
    if (const std::set<std::string> chapters = chapters_tested(); !chapters.count(chapter)) {
      std::string tested;
      for (const std::string& name : chapters) tested += (tested.empty() ? "" : ", ") + name;
      std::fprintf(stderr, "error: --course_step=%s: this program tests %s, not %s\n", step->c_str(),
                   chapters.empty() ? "no chapter's steps" : tested.c_str(), chapter.c_str());
      return 1;
    }
    int host_only = 0;
    const std::string filter = filter_for_step(chapter, file, host_only);
    if (filter.empty() && host_only > 0) {
      std::printf("the %d tests selected run host code only: nothing to run again with shuffled threads (skipped)\n",
                  host_only);
      return kSkipped;
    }
    if (filter.empty()) {
      std::fprintf(stderr, "error: --course_step=%s: no test of this program belongs to that step\n", step->c_str());
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
  if (tests.test_to_run_count() == 0 && !GTEST_FLAG_GET(list_tests)) {  // "PASSED 0 tests" is no pass
    std::fprintf(stderr, "error: --gtest_filter='%s' selects none of this program's %d tests\n",
                 GTEST_FLAG_GET(filter).c_str(), tests.total_test_count());
    return 1;
  }
  if (status == 0 && tests.test_to_run_count() > 0 && tests.skipped_test_count() == tests.test_to_run_count())
    return kSkipped;  // nothing ran: a skip, never a pass
  return status;
}
