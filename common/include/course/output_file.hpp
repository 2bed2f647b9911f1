// An output file that appears whole or not at all: it is written as a partial file beside NAME
// (NAME.partial-PID, its name cut short where NAME is so long that the suffix would not fit a
// file name), and renamed over NAME by commit(). Until then NAME is untouched; a partial file
// left uncommitted is removed whatever ends the program: an error, an exception, std::exit(),
// std::terminate, or SIGINT, SIGTERM or SIGHUP (then one line says which file was not written,
// and the program dies of that signal, as it would have). Only SIGKILL leaves it behind.
#pragma once

#include <string>

namespace course {

// From now on an uncaught exception (std::bad_alloc, say) ends the program with one line,
// "error: what()", exit status 1, and removes the partial files of OutputFiles still open.
void exit_with_one_line_on_uncaught_exceptions();

class OutputFile {
 public:
  // Checks now, before any work, that NAME can be written: not a folder, its folder one that
  // takes the partial file (which it creates). Else throws std::runtime_error("cannot write
  // NAME: why").
  explicit OutputFile(std::string path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  const std::string& partial_path() const { return partial_; }  // where the writer writes
  void write(const std::string& text);                          // the whole content, into partial_path()
  void commit();                                                // partial_path() becomes the file

 private:
  std::string path_, partial_;
  int slot_ = -1;  // its entry among the partial files a signal removes
  bool committed_ = false;
};

}  // namespace course
