// Opening a file proofload reads back from a result directory (result.json, the windows journal,
// segment.jsonl, a soak's marks): the directory may come from anywhere (a pod's tarball, a shared
// disk), so only a regular file is opened. A symlink is not followed (one to /etc/passwd would be
// spliced into a result), a FIFO cannot hang the command, /dev/zero cannot fill memory. One
// implementation, so every reader refuses the same files with the same line.
#pragma once

#include <cstdint>
#include <cstdio>
#include <ext/stdio_filebuf.h>
#include <filesystem>
#include <istream>
#include <memory>
#include <string>

namespace proofload {

// No result proofload writes comes near this (a day's soak of 1 s windows is ~150 MB); past it
// a file is refused before a byte is parsed, rather than read into memory that may not be there.
constexpr int64_t kMaxRecordedFileBytes = int64_t{2} << 30;

// The open descriptor of `path` when it is a regular file (opened without following a symlink
// and without blocking on a FIFO); -1 when it does not exist. Throws UsageError with one line
// ("PATH is not a regular file (a symlink, a FIFO, a device or a directory)", "PATH is larger
// than N", or the errno's text) otherwise. The caller owns the descriptor.
int open_recorded_file(const std::filesystem::path& path,
                       int64_t max_bytes = kMaxRecordedFileBytes);

// open_recorded_file as a stdio stream ("rb"), nullptr when the file does not exist.
std::unique_ptr<std::FILE, int (*)(std::FILE*)> open_recorded_stdio(
    const std::filesystem::path& path, int64_t max_bytes = kMaxRecordedFileBytes);

// A line of a recorded line file (a journal, segment.jsonl), read with its length bounded:
// kLine and the line without its break; kEnd at the end of the file, or at a last line without
// a break (what a killed writer leaves; never half a record); kTooLong past max_bytes. Bytes
// are kept as they are, NULs too (such a line then fails to parse, never stops the reading).
enum class LineRead { kLine, kEnd, kTooLong };
LineRead read_recorded_line(std::FILE* file, std::string& line, size_t max_bytes);

// A drop-in for `std::ifstream in(path, std::ios::binary)` that opens with open_recorded_file:
// false (`!in`) when the file does not exist, throws UsageError when it is not a regular file.
class RecordedFileStream : public std::istream {
 public:
  explicit RecordedFileStream(const std::filesystem::path& path,
                              int64_t max_bytes = kMaxRecordedFileBytes);

 private:
  std::unique_ptr<__gnu_cxx::stdio_filebuf<char>> buffer_;
};

}  // namespace proofload
