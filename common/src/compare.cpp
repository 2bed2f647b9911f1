#include "course/compare.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <thread>

namespace course {

namespace {
constexpr std::size_t kShownMismatches = 8;
}

// The name of each axis: the caller's, or by default x, y, z, then w for a fourth, fastest last.
std::string axis_name(std::size_t axis, std::size_t rank, std::span<const std::string> names) {
  if (axis < names.size()) return names[axis];
  constexpr const char* spatial[] = {"x", "y", "z", "w"};
  const std::size_t from_fastest = rank - 1 - axis;
  return from_fastest < 4 ? spatial[from_fastest] : "d" + std::to_string(axis);
}

std::string coordinates(std::size_t index, std::span<const std::size_t> extents, std::span<const std::string> names) {
  std::vector<std::size_t> coordinate(extents.size());
  for (std::size_t d = extents.size(); d-- > 0;) {
    coordinate[d] = index % extents[d];
    index /= extents[d];
  }
  std::string text = "[";
  for (std::size_t d = 0; d < coordinate.size(); ++d)
    text += (d ? ", " : "") + axis_name(d, extents.size(), names) + "=" + std::to_string(coordinate[d]);
  return text + "]";
}

std::string shape(std::span<const std::size_t> extents, std::span<const std::string> names) {
  std::string text;
  for (std::size_t d = 0; d < extents.size(); ++d) text += (d ? " x " : "") + std::to_string(extents[d]);
  text += " (";
  for (std::size_t d = 0; d < extents.size(); ++d) text += (d ? ", " : "") + axis_name(d, extents.size(), names);
  return text + ")";
}

Comparison compare(std::span<const float> got, std::span<const double> expected, Tolerance tolerance,
                   std::vector<std::size_t> extents) {
  Comparison result;
  result.extents = std::move(extents);
  result.tolerance = tolerance;
  if (got.size() != expected.size()) {
    result.checked = got.size();
    result.mismatches = got.size() > expected.size() ? got.size() : expected.size();
    return result;
  }
  // A large output is checked in contiguous parts, one a hardware thread, each part's mismatches
  // in memory order; joined in order, the first ones stay the first in memory.
  constexpr std::size_t kPart = std::size_t{1} << 22;
  const std::size_t parts = std::clamp<std::size_t>(got.size() / kPart, 1, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<Comparison> found(parts, result);
  {
    std::vector<std::jthread> workers;
    for (std::size_t p = 0; p < parts; ++p)
      workers.emplace_back([&, p] {
        const std::size_t begin = got.size() * p / parts, end = got.size() * (p + 1) / parts;
        for (std::size_t i = begin; i < end; ++i) found[p].check(i, got[i], expected[i]);
      });
  }
  for (const Comparison& part : found) {
    result.checked += part.checked;
    result.mismatches += part.mismatches;
    for (const Mismatch& m : part.first)
      if (result.first.size() < kShownMismatches) result.first.push_back(m);
  }
  return result;
}

namespace {
// `shown` is the bound the report prints beside a mismatch, or -1 for the common tolerance.
void record(Comparison& c, std::size_t index, double got, double expected, double allowed, double shown) {
  ++c.checked;
  if (!(std::abs(got - expected) <= allowed)) {  // NaN fails too
    if (c.first.size() < kShownMismatches) c.first.push_back({index, got, expected, shown});
    ++c.mismatches;
  }
}
}  // namespace

void Comparison::check(std::size_t index, double got, double expected) {
  record(*this, index, got, expected, tolerance.atol + tolerance.rtol * std::abs(expected), -1);
}

void Comparison::check_within(std::size_t index, double got, double expected, double allowed) {
  record(*this, index, got, expected, allowed, allowed);
}

std::string Comparison::report() const {
  std::ostringstream text;
  text.precision(9);
  if (first.empty() && mismatches != 0) {
    text << "output has " << checked << " elements, reference a different number";
    return text.str();
  }
  text << mismatches << " of " << checked << " elements";
  if (!extents.empty()) text << " of the " << shape(extents, axis_names) << " output";
  text << " differ from the float64 reference by more than ";
  if (per_element_bounds)
    text << "their error bound";
  else
    text << "atol + rtol*|ref| (atol " << tolerance.atol << ", rtol " << tolerance.rtol << ")";
  for (const Mismatch& m : first) {
    text << "\n  " << (&m == &first.front() ? "first wrong element " : "at ") << coordinates(m.index, extents, axis_names) << ": got " << m.got << ", expected " << m.expected;
    if (m.allowed >= 0) text << " (bound " << m.allowed << ")";
  }
  if (mismatches > first.size()) text << "\n  ... and " << mismatches - first.size() << " more";
  return text.str();
}

}  // namespace course
