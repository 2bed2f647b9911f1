// Comparison against a float64 reference: an element passes when |got - ref| <= atol + rtol*|ref|.
// NaN never passes, so an output element that a kernel forgot to write (poisoned) is a mismatch.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace course {

struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
};

struct Mismatch {
  std::size_t index;
  double got;
  double expected;
  double allowed = -1;  // the element's own bound, when it has one (check_within)
};

struct Comparison {
  std::size_t checked = 0;
  std::size_t mismatches = 0;
  std::vector<Mismatch> first;        // the first few, in memory order
  std::vector<std::size_t> extents;   // row-major extents, slowest first, for coordinates
  std::vector<std::string> axis_names;  // their names, slowest first (by default ..., z, y, x)
  Tolerance tolerance;
  bool ok() const { return mismatches == 0; }
  std::string report() const;         // count, tolerance, and the first mismatches by coordinate
  // Checks one element; `index` is its flat position in `extents` (for the report's coordinates).
  void check(std::size_t index, double got, double expected);
  // Checks one element against its own bound, |got - expected| <= allowed, for errors that an
  // error model gives per element.
  void check_within(std::size_t index, double got, double expected, double allowed);
  bool per_element_bounds = false;
};

// `extents` give the shape of `got`, slowest dimension first (e.g. {rows, cols}).
Comparison compare(std::span<const float> got, std::span<const double> expected, Tolerance tolerance,
                   std::vector<std::size_t> extents);

// Coordinates of a flat row-major index with the axes named, fastest last: "[y=3, x=17]"
// (`names`, slowest first, replace the default x, y, z: "[y=3, x=17, k=2]").
std::string coordinates(std::size_t index, std::span<const std::size_t> extents, std::span<const std::string> names = {});
// "64 x 31 (y, x)": the extents with the axes' names.
std::string shape(std::span<const std::size_t> extents, std::span<const std::string> names = {});

}  // namespace course
