// GoogleTest helpers: tests that skip (with the reason) when a GPU backend has no device, tables
// of steps x sizes registered as one test each, and the reference comparison as an assertion.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <vector>

#include "course/compare.hpp"
#include "course/random.hpp"

namespace course {

// Why kernels cannot run here (no device on a CUDA/HIP build), or nothing when they can.
const std::optional<std::string>& device_unavailable_reason();

class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto& reason = device_unavailable_reason()) GTEST_SKIP() << *reason;
  }
};

// Registers suite.name as a device test; body gets a fresh seed, printed if the test fails.
void register_device_test(const std::string& suite, const std::string& name,
                          std::function<void(const Seed&)> body,
                          std::source_location where = std::source_location::current());

::testing::AssertionResult matches_reference(std::span<const float> got, std::span<const double> expected,
                                             Tolerance tolerance, std::vector<std::size_t> extents);

}  // namespace course
