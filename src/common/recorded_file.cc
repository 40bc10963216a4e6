// See recorded_file.h.
#include "common/recorded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "common/units.h"
#include "common/usage_error.h"

namespace proofload {

int open_recorded_file(const std::filesystem::path& path, int64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever. It is
  // cleared once the file is known to be regular (where it changes nothing anyway).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT) return -1;
    if (error == ELOOP) {
      throw UsageError(path.string() + " is a symlink: proofload reads back only regular files");
    }
    throw UsageError("cannot read " + path.string() + ": " +
                     std::generic_category().message(error));
  }
  struct stat status {};
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    ::close(fd);
    throw UsageError(path.string() +
                     " is not a regular file (a FIFO, a device or a directory): proofload reads "
                     "back only regular files");
  }
  if (status.st_size > max_bytes) {
    ::close(fd);
    throw UsageError(path.string() + " is larger than " + bytes_text(max_bytes) +
                     ", more than proofload writes");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

std::unique_ptr<std::FILE, int (*)(std::FILE*)> open_recorded_stdio(
    const std::filesystem::path& path, int64_t max_bytes) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(nullptr, &std::fclose);
  const int fd = open_recorded_file(path, max_bytes);
  if (fd < 0) return file;
  file.reset(::fdopen(fd, "rb"));
  if (!file) {
    const int error = errno;
    ::close(fd);
    throw UsageError("cannot read " + path.string() + ": " +
                     std::generic_category().message(error));
  }
  return file;
}

LineRead read_recorded_line(std::FILE* file, std::string& line, size_t max_bytes) {
  line.clear();
  int c;
  while ((c = getc_unlocked(file)) != EOF) {
    if (c == '\n') return LineRead::kLine;
    if (line.size() == max_bytes) return LineRead::kTooLong;
    line.push_back(static_cast<char>(c));
  }
  return LineRead::kEnd;
}

RecordedFileStream::RecordedFileStream(const std::filesystem::path& path, int64_t max_bytes)
    : std::istream(nullptr) {
  const int fd = open_recorded_file(path, max_bytes);
  if (fd < 0) {
    setstate(std::ios::failbit);
    return;
  }
  // The buffer owns the descriptor from here (closes it when destroyed).
  buffer_ = std::make_unique<__gnu_cxx::stdio_filebuf<char>>(fd, std::ios::in | std::ios::binary,
                                                             size_t{64} * 1024);
  rdbuf(buffer_.get());
  clear();
}

}  // namespace proofload
