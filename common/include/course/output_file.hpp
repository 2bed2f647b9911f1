// An output file that appears whole or not at all: it is written as NAME.partial-PID beside NAME,
// and renamed over NAME by commit(). Until then NAME is untouched; an output left uncommitted
// (an error, an exception, std::terminate) is removed.
#pragma once

#include <string>

namespace course {

// From now on an uncaught exception (std::bad_alloc, say) ends the program with one line,
// "error: what()", exit status 1, and removes the partial files of OutputFiles still open.
void exit_with_one_line_on_uncaught_exceptions();

// Removes the partial files of OutputFiles still open: for a program about to std::exit().
void remove_unfinished_outputs();

class OutputFile {
 public:
  // Checks now, before any work, that the folder takes the file: else throws
  // std::runtime_error("cannot write NAME: why").
  explicit OutputFile(std::string path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  const std::string& partial_path() const { return partial_; }  // where the writer writes
  void write(const std::string& text);                          // the whole content, into partial_path()
  void commit();                                                // partial_path() becomes the file

 private:
  std::string path_, partial_;
  bool committed_ = false;
};

}  // namespace course
