// The float64 reference: the time step of lbm.hpp written as plainly as possible, in double,
// on the host (rows shared among the host's cores). Every step is checked against it.
#pragma once

#include <vector>

#include "lbm.hpp"

namespace ch05 {

struct ReferenceFields {
  std::vector<double> rho, ux, uy;  // row-major (y, x)
};

// Advances `f` (canonical layout) `steps` time steps; `fields`, when given, gets the moments
// of the last one.
void reference_advance(const Channel& channel, std::vector<double>& f, int steps, ReferenceFields* fields = nullptr);

}  // namespace ch05
