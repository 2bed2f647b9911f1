// GoogleTest helpers: tests that skip (with the reason) when a GPU backend has no device, tables
// of steps x sizes registered as one test each (a step's failures name the file to edit), and the
// reference comparison and the untouched halo as assertions.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <vector>

#include "course/compare.hpp"
#include "course/device_buffer.hpp"
#include "course/grid3d.hpp"
#include "course/random.hpp"
#include "course/step.hpp"

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

// The same for a test of one step: its failures also say which file to edit
// ("step source: exercises/02_stencil/06_prefetch.cu").
void register_step_test(const StepSource& step, const std::string& suite, const std::string& name,
                        std::function<void(const Seed&)> body,
                        std::source_location where = std::source_location::current());

// The same for a test of one part of a step, a piece the student writes and can check alone (a
// copy plan, a rounding function, an exchange): its failures name the file and the part
// ("step source: exercises/03_seismic/08_async_ring.cu, part 2 (the waits)"), as its stub's
// TODO does ("// TODO: part 2 of 4, the waits: ...").
void register_part_test(const StepSource& step, int part, const std::string& part_name, const std::string& suite,
                        const std::string& name, std::function<void(const Seed&)> body,
                        std::source_location where = std::source_location::current());

// What a test of a step that is not in a table adds first: SCOPED_TRACE(edit_hint(step)), or
// SCOPED_TRACE(edit_hint(step, 2, "the waits")) for a test of one of its parts.
std::string edit_hint(const StepSource& step);
std::string edit_hint(const StepSource& step, int part, const std::string& part_name);

// Counts every test of `suite` (TEST or TEST_F) as a test of `step`, so that grading the step
// runs them: `const bool counted = course::suite_tests_step("FlaggedMatrix", kFlaggedStep);`.
bool suite_tests_step(const std::string& suite, const StepSource& step);

// Declares every test of `suite` a test of host code only (no kernel): with the CPU backend's
// threads shuffled (COURSE_CPU_SHUFFLE) they would run again for nothing, so they are left out
// there. `const bool host_only = course::suite_runs_on_host("SoftwareRsqrt");`
bool suite_runs_on_host(const std::string& suite);
bool runs_on_host(const std::string& suite);

// The step ("02_stencil/06_prefetch": its chapter and file) whose tests include suite.name, or ""
// for the chapter's other tests. The tests' main grades one step at a time by it
// (--course_step=CHAPTER/FILE, cmake/Chapter.cmake).
std::string step_of(const std::string& suite, const std::string& name);

::testing::AssertionResult matches_reference(std::span<const float> got, std::span<const double> expected,
                                             Tolerance tolerance, std::vector<std::size_t> extents);
::testing::AssertionResult matches_reference(const Comparison& comparison);

// Prepares a whole grid array for a kernel to write: its interior poisoned (a quiet NaN, so a
// point the kernel forgot fails the comparison), its halo and padding the sentinel (a signaling
// NaN, so any write there, `+=` included, changes the bits that halo_untouched checks).
void poison_grid(DeviceBuffer<float>& array, const Grid& grid);

// Every element of a whole grid array outside the interior still holds the sentinel, bit for bit.
::testing::AssertionResult halo_untouched(const std::vector<float>& array, const Grid& grid);

}  // namespace course
