#include "course/testing.hpp"

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
    body_(seed);
  }

 private:
  std::function<void(const Seed&)> body_;
};
}  // namespace

void register_device_test(const std::string& suite, const std::string& name,
                          std::function<void(const Seed&)> body, std::source_location where) {
  ::testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, where.file_name(),
                          static_cast<int>(where.line()),
                          [body = std::move(body)]() -> DeviceTest* { return new FunctionTest(body); });
}

::testing::AssertionResult matches_reference(std::span<const float> got, std::span<const double> expected,
                                             Tolerance tolerance, std::vector<std::size_t> extents) {
  const Comparison comparison = compare(got, expected, tolerance, std::move(extents));
  if (comparison.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << comparison.report();
}

}  // namespace course
