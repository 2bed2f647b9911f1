// Seeded random inputs: every test draws a fresh seed, prints it when it fails, and takes
// COURSE_SEED=<n> from the environment to replay a failure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace course {

struct Seed {
  std::uint64_t value;
  std::string describe() const;  // "seed 123 (replay with COURSE_SEED=123 COURSE_CPU_SHUFFLE=7)"
};

// The environment that replays a run with this seed: "COURSE_SEED=123", and on the CPU backend
// with shuffled threads also "COURSE_CPU_SHUFFLE=7".
std::string replay_environment(const Seed& seed);

Seed fresh_seed();

// Uniform in [low, high); a different stream for each `stream` so inputs of one test differ.
std::vector<float> random_floats(std::size_t count, Seed seed, int stream = 0, float low = -1.0f,
                                 float high = 1.0f);

}  // namespace course
