// A file written a line at a time as an experiment runs (a soak's windows.csv, a probe's
// per-second CSVs): each line is written whole and flushed, so a process killed at any moment
// leaves every finished line, and at most a torn last one that readers skip. One writer thread.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>

namespace proofload::report {

class LineFile {
 public:
  // Creates (or truncates) the file and writes `header` as its first line. Throws
  // std::runtime_error naming the file when it cannot be written.
  LineFile(const std::filesystem::path& path, const std::string& header);
  ~LineFile();
  LineFile(const LineFile&) = delete;
  LineFile& operator=(const LineFile&) = delete;
  // Writes `line` and a line break, then flushes. Throws std::runtime_error on I/O failure.
  void append(const std::string& line);

 private:
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
};

}  // namespace proofload::report
