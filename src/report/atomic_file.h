// Whole-file writes that a crash or a full disk can never leave half done: readers see either
// the old content or the new. Thread-safe (no shared state; concurrent writers of one path race
// only on which complete file wins).
#pragma once

#include <filesystem>
#include <string_view>

namespace proofload::report {

// Writes a file piece by piece into a temporary file in the same directory; commit() fsyncs it,
// renames it over the target and fsyncs the directory. Destroyed without commit(), it removes
// the temporary file and leaves the target as it was. Throws std::runtime_error naming the path
// and the system's reason on failure. For files too large to build in memory first.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::filesystem::path path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(std::string_view content);
  void commit();

 private:
  [[noreturn]] void fail(int error);

  std::filesystem::path path_;
  std::filesystem::path temp_;
  int fd_ = -1;
};

// The one-shot form: the whole content at once.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace proofload::report
