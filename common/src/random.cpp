#include "course/random.hpp"

#include <random>

#include "course/gpu.hpp"
#include "course/numbers.hpp"

namespace course {

std::string Seed::describe() const {
  return "seed " + std::to_string(value) + " (replay with " + replay_environment(*this) + ")";
}

std::string replay_environment(const Seed& seed) {
  std::string variables = "COURSE_SEED=" + std::to_string(seed.value);
#if defined(COURSE_BACKEND_CPU)
  if (const std::uint64_t shuffle = cpu::shuffle_seed(); shuffle != 0)
    variables += " COURSE_CPU_SHUFFLE=" + std::to_string(shuffle);
#endif
  return variables;
}

Seed fresh_seed() {
  if (const auto fixed = environment_number("COURSE_SEED", 0, UINT64_MAX, "the seed of a test's random inputs"))
    return {*fixed};
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
