#include "course/output_file.hpp"

#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>

namespace course {
namespace {

// The partial files of the OutputFiles open now, kept where a signal handler can read them: a
// handler may neither allocate nor lock, so fixed slots of characters, each published by its
// state once written.
constexpr int kSlots = 16;
enum SlotState : int { kFree, kFilling, kOpen };
struct Slot {
  std::atomic<int> state{kFree};
  char partial[PATH_MAX];
  char name[PATH_MAX];  // the file it would have become, for the line a signal prints
};
Slot slots[kSlots];

// Removes every partial file still open; async-signal-safe.
void remove_partials() {
  for (Slot& slot : slots)
    if (slot.state.load(std::memory_order_acquire) == kOpen) unlink(slot.partial);
}

void say(const char* text) { [[maybe_unused]] const ssize_t written = write(STDERR_FILENO, text, std::strlen(text)); }

const char* signal_name(int signal_number) {
  return signal_number == SIGINT ? "SIGINT" : signal_number == SIGTERM ? "SIGTERM" : "SIGHUP";
}

// SIGINT, SIGTERM, SIGHUP: the partial files go, one line names the files not written, and the
// program dies of the signal, so that whoever sent it sees it did.
void remove_partials_then_die(int signal_number) {
  const char* separator = "";
  for (Slot& slot : slots) {
    if (slot.state.load(std::memory_order_acquire) != kOpen) continue;
    if (!*separator) {
      say("error: interrupted by ");
      say(signal_name(signal_number));
      say(": not written: ");
    }
    say(separator);
    say(slot.name);
    separator = ", ";
  }
  if (*separator) say("\n");
  remove_partials();
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

void remove_partials_then_terminate() {
  remove_partials();
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

// Once, when the first output file opens: std::exit() and the signals that ask a program to stop
// remove the partial files. A signal this process was started ignoring (a run in the background,
// nohup) stays ignored.
void remove_partials_however_the_program_ends() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::atexit(remove_partials);
    struct sigaction action {};
    action.sa_handler = remove_partials_then_die;
    sigemptyset(&action.sa_mask);
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&action.sa_mask, s);  // one handler at a time
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction current {};
      if (sigaction(s, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) sigaction(s, &action, nullptr);
    }
  });
  exit_with_one_line_on_uncaught_exceptions();
}

std::runtime_error cannot_write(const std::string& path, const std::string& why) {
  return std::runtime_error("cannot write " + path + ": " + why);
}

}  // namespace

void exit_with_one_line_on_uncaught_exceptions() { std::set_terminate(remove_partials_then_terminate); }

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw cannot_write("''", "an empty file name");
  struct stat info {};
  if (path_.back() == '/') throw cannot_write(path_, "it ends in '/': give a file name");
  if (stat(path_.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) throw cannot_write(path_, "it is a folder: give a file name");
  // NAME.partial-PID beside NAME, NAME cut short if the whole would be longer than a file name may be.
  const std::size_t slash = path_.rfind('/');
  const std::size_t name_start = slash == std::string::npos ? 0 : slash + 1;
  const std::string suffix = ".partial-" + std::to_string(::getpid());
  partial_ = path_.substr(0, name_start) + path_.substr(name_start, NAME_MAX - suffix.size()) + suffix;
  if (path_.size() >= PATH_MAX || partial_.size() >= PATH_MAX) throw cannot_write(path_, std::strerror(ENAMETOOLONG));

  for (int s = 0; s < kSlots && slot_ < 0; ++s) {
    int expected = kFree;
    if (slots[s].state.compare_exchange_strong(expected, kFilling)) slot_ = s;
  }
  if (slot_ < 0) throw std::logic_error("more than " + std::to_string(kSlots) + " output files open at once");
  Slot& slot = slots[slot_];
  std::memcpy(slot.partial, partial_.c_str(), partial_.size() + 1);
  std::memcpy(slot.name, path_.c_str(), path_.size() + 1);
  slot.state.store(kOpen, std::memory_order_release);  // before the file exists: a signal never misses it
  remove_partials_however_the_program_ends();
  FILE* probe = std::fopen(partial_.c_str(), "w");
  if (probe == nullptr) {
    const int error = errno;
    slot.state.store(kFree, std::memory_order_release);
    throw cannot_write(path_, std::strerror(error));
  }
  std::fclose(probe);
}

OutputFile::~OutputFile() {
  if (!committed_) {
    std::remove(partial_.c_str());
    slots[slot_].state.store(kFree, std::memory_order_release);
  }
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
  slots[slot_].state.store(kFree, std::memory_order_release);
}

}  // namespace course
