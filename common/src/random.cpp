#include "course/random.hpp"

#include <cstdlib>
#include <random>

namespace course {

std::string Seed::describe() const {
  return "seed " + std::to_string(value) + " (replay with COURSE_SEED=" + std::to_string(value) + ")";
}

Seed fresh_seed() {
  if (const char* fixed = std::getenv("COURSE_SEED")) return {std::strtoull(fixed, nullptr, 10)};
  std::random_device device;
  return {(std::uint64_t{device()} << 32) | device()};
}

std::vector<float> random_floats(std::size_t count, Seed seed, int stream, float low, float high) {
  std::seed_seq sequence{static_cast<std::uint32_t>(seed.value), static_cast<std::uint32_t>(seed.value >> 32),
                         static_cast<std::uint32_t>(stream)};
  std::mt19937 engine(sequence);
  std::uniform_real_distribution<float> uniform(low, high);
  std::vector<float> values(count);
  for (float& value : values) value = uniform(engine);
  return values;
}

}  // namespace course
