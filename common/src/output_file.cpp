#include "course/output_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <set>
#include <stdexcept>

namespace course {
namespace {

// Partial files still open, removed if the program dies through std::terminate.
std::mutex open_mutex;
std::set<std::string>& open_partials() {
  static std::set<std::string> paths;
  return paths;
}

void remove_partials_then_terminate() {
  remove_unfinished_outputs();
  if (const std::exception_ptr error = std::current_exception()) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
    } catch (...) {
    }
  }
  std::_Exit(1);
}

std::runtime_error cannot_write(const std::string& path, const std::string& why) {
  return std::runtime_error("cannot write " + path + ": " + why);
}

}  // namespace

void remove_unfinished_outputs() {
  for (const std::string& path : open_partials()) std::remove(path.c_str());
}

void exit_with_one_line_on_uncaught_exceptions() { std::set_terminate(remove_partials_then_terminate); }

OutputFile::OutputFile(std::string path)
    : path_(std::move(path)), partial_(path_ + ".partial-" + std::to_string(::getpid())) {
  if (path_.empty()) throw cannot_write("''", "an empty file name");
  FILE* probe = std::fopen(partial_.c_str(), "w");
  if (probe == nullptr) throw cannot_write(path_, std::strerror(errno));
  std::fclose(probe);
  exit_with_one_line_on_uncaught_exceptions();
  std::lock_guard lock(open_mutex);
  open_partials().insert(partial_);
}

OutputFile::~OutputFile() {
  if (!committed_) std::remove(partial_.c_str());
  std::lock_guard lock(open_mutex);
  open_partials().erase(partial_);
}

void OutputFile::write(const std::string& text) {
  FILE* file = std::fopen(partial_.c_str(), "w");
  if (file == nullptr) throw cannot_write(path_, std::strerror(errno));
  const bool written = std::fputs(text.c_str(), file) >= 0;
  if (std::fclose(file) != 0 || !written) throw cannot_write(path_, std::strerror(errno));
}

void OutputFile::commit() {
  if (std::rename(partial_.c_str(), path_.c_str()) != 0) throw cannot_write(path_, std::strerror(errno));
  committed_ = true;
}

}  // namespace course
