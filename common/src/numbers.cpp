#include "course/numbers.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace course {

std::optional<std::uint64_t> parse_whole_number(std::string_view text, std::uint64_t min, std::uint64_t max) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;  // no sign, no space
  const auto [stop, error] = std::from_chars(text.data(), end, value, 10);
  if (error != std::errc{} || stop != end || value < min || value > max) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> environment_number(const char* name, std::uint64_t min, std::uint64_t max,
                                                const char* meaning) {
  const char* text = std::getenv(name);
  if (text == nullptr) return std::nullopt;
  if (const auto value = parse_whole_number(text, min, max)) return value;
  std::fprintf(stderr, "error: %s='%s': %s takes a whole number from %llu to %llu (%s); unset it or fix it\n", name,
               text, name, static_cast<unsigned long long>(min), static_cast<unsigned long long>(max), meaning);
  std::exit(2);
}

}  // namespace course
