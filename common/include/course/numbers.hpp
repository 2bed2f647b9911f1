// Whole numbers typed by a person: command-line options and the course's environment variables.
// The whole text must be a decimal number within [min, max]; "3x", "0x10", "", "-1" and values
// that would wrap around are refused rather than read as something else.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace course {

std::optional<std::uint64_t> parse_whole_number(std::string_view text, std::uint64_t min, std::uint64_t max);

// The variable `name` as such a number, nothing when it is unset. A value that is set but not a
// whole number within [min, max] stops the program: one line on stderr naming the variable and
// what it takes (`meaning`), exit status 2.
std::optional<std::uint64_t> environment_number(const char* name, std::uint64_t min, std::uint64_t max,
                                                const char* meaning);

}  // namespace course
