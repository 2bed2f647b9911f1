#include "course/testing.hpp"

#include <cstdint>
#include <cstring>
#include <map>
#include <set>

#include "course/gpu.hpp"

namespace course {

const std::optional<std::string>& device_unavailable_reason() {
  static const std::optional<std::string> reason = []() -> std::optional<std::string> {
    int count = 0;
    const gpuError_t status = gpuGetDeviceCount(&count);
    if (status == gpuSuccess && count > 0) return std::nullopt;
    return std::string("no " COURSE_BACKEND_NAME " device is available (") +
           (status == gpuSuccess ? "device count is 0" : gpuGetErrorString(status)) +
           "): these tests need a GPU; configure with the cpu preset to run them without one";
  }();
  return reason;
}

namespace {
class FunctionTest : public DeviceTest {
 public:
  explicit FunctionTest(std::function<void(const Seed&)> body) : body_(std::move(body)) {}
  void TestBody() override {
    const Seed seed = fresh_seed();
    SCOPED_TRACE(seed.describe());
    try {
      body_(seed);
    } catch (const Unsupported& lacking) {
      GTEST_SKIP() << lacking.what();
    }
  }

 private:
  std::function<void(const Seed&)> body_;
};

std::string chapter_and_file(const StepSource& step) { return std::string(step.chapter) + "/" + std::string(step.file); }
}  // namespace

std::string step_path(const StepSource& step) {
  return COURSE_TRACK "/" + chapter_and_file(step) + ".cu";
}

std::string edit_hint(const StepSource& step) { return "step source: " + step_path(step); }

std::string edit_hint(const StepSource& step, int part, const std::string& part_name) {
  return edit_hint(step) + ", part " + std::to_string(part) + " (" + part_name + ")";
}

std::map<std::string, std::string>& step_of_test() {
  static std::map<std::string, std::string> steps;
  return steps;
}

bool suite_tests_step(const std::string& suite, const StepSource& step) {
  step_of_test()[suite + ".*"] = chapter_and_file(step);
  return true;
}

namespace {
std::set<std::string>& host_suites() {
  static std::set<std::string> suites;
  return suites;
}
}  // namespace

bool suite_runs_on_host(const std::string& suite) { return host_suites().insert(suite).second; }
bool runs_on_host(const std::string& suite) { return host_suites().count(suite) != 0; }

std::string step_of(const std::string& suite, const std::string& name) {
  const auto& steps = step_of_test();
  if (const auto found = steps.find(suite + "." + name); found != steps.end()) return found->second;
  if (const auto found = steps.find(suite + ".*"); found != steps.end()) return found->second;
  return "";
}

void register_step_test(const StepSource& step, const std::string& suite, const std::string& name,
                        std::function<void(const Seed&)> body, std::source_location where) {
  step_of_test()[suite + "." + name] = chapter_and_file(step);
  register_device_test(
      suite, name,
      [hint = edit_hint(step), body = std::move(body)](const Seed& seed) {
        SCOPED_TRACE(hint);
        body(seed);
      },
      where);
}

void register_part_test(const StepSource& step, int part, const std::string& part_name, const std::string& suite,
                        const std::string& name, std::function<void(const Seed&)> body, std::source_location where) {
  step_of_test()[suite + "." + name] = chapter_and_file(step);
  register_device_test(
      suite, name,
      [hint = edit_hint(step, part, part_name), body = std::move(body)](const Seed& seed) {
        SCOPED_TRACE(hint);
        body(seed);
      },
      where);
}

void register_device_test(const std::string& suite, const std::string& name,
                          std::function<void(const Seed&)> body, std::source_location where) {
  ::testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, where.file_name(),
                          static_cast<int>(where.line()),
                          [body = std::move(body)]() -> DeviceTest* { return new FunctionTest(body); });
}

::testing::AssertionResult matches_reference(std::span<const float> got, std::span<const double> expected,
                                             Tolerance tolerance, std::vector<std::size_t> extents) {
  return matches_reference(compare(got, expected, tolerance, std::move(extents)));
}

::testing::AssertionResult matches_reference(const Comparison& comparison) {
  if (comparison.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << comparison.report();
}

namespace {
// Which elements of a whole grid array are interior points.
std::vector<char> interior_mask(std::size_t size, const Grid& g) {
  std::vector<char> is_interior(size, 0);
  for (int z = 0; z < g.dz; ++z)
    for (int y = 0; y < g.dy; ++y)
      for (int x = 0; x < g.dx; ++x) is_interior[g.at(x, y, z)] = 1;
  return is_interior;
}
}  // namespace

void poison_grid(DeviceBuffer<float>& array, const Grid& g) {
  const std::vector<char> is_interior = interior_mask(array.size(), g);
  std::vector<std::uint32_t> words(array.size());
  for (std::size_t n = 0; n < words.size(); ++n) words[n] = is_interior[n] ? kPoisonBits : kSentinelBits;
  std::vector<float> pattern(array.size());
  std::memcpy(pattern.data(), words.data(), words.size() * sizeof(float));
  array.copy_from(pattern);
}

::testing::AssertionResult halo_untouched(const std::vector<float>& array, const Grid& g) {
  const std::vector<char> is_interior = interior_mask(array.size(), g);
  std::size_t touched = 0, first = 0;
  for (std::size_t n = 0; n < array.size(); ++n) {
    std::uint32_t bits;
    std::memcpy(&bits, &array[n], sizeof bits);
    if (!is_interior[n] && bits != kSentinelBits && touched++ == 0) first = n;
  }
  if (touched == 0) return ::testing::AssertionSuccess();
  // Where, in the interior's coordinates: the halo and padding lie below 0 or at d and beyond.
  const long long row = static_cast<long long>(first) / g.pitch, plane_rows = g.dy + 2LL * g.hy;
  const long long x = static_cast<long long>(first) % g.pitch - g.lead, y = row % plane_rows - g.hy, z = row / plane_rows - g.hz;
  return ::testing::AssertionFailure() << touched << (touched == 1 ? " element" : " elements")
                                       << " outside the interior written (halo or padding), the first at [z=" << z
                                       << ", y=" << y << ", x=" << x << "] in the interior's coordinates, the interior being "
                                       << shape(g.interior_extents());
}

}  // namespace course
