#include "common/file_text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <system_error>

#include "common/units.h"
#include "common/usage_error.h"

namespace proofload {

std::string read_bounded_file(const std::string& path, std::string_view what, int64_t max_bytes) {
  auto fail_with = [&](int error) {
    throw UsageError("cannot read " + std::string(what) + " '" + path + "': " +
                     (error == EISDIR ? std::string("it is a directory")
                                      : std::generic_category().message(error)));
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_with(errno);
  struct stat status {};
  if (::fstat(fd, &status) != 0 || S_ISDIR(status.st_mode)) {
    const int error = S_ISDIR(status.st_mode) ? EISDIR : errno;
    ::close(fd);
    fail_with(error);
  }
  // The size fstat gives is a hint only (a pipe or /dev/zero says 0): the read is what is bounded.
  std::string content;
  if (S_ISREG(status.st_mode) && status.st_size <= max_bytes) {
    content.reserve(static_cast<size_t>(status.st_size));
  }
  std::array<char, 65536> buffer;
  while (true) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      fail_with(error);
    }
    if (static_cast<int64_t>(content.size()) + got > max_bytes) {
      ::close(fd);
      throw UsageError(std::string(what) + " '" + path + "' is larger than " +
                       bytes_text(max_bytes));
    }
    content.append(buffer.data(), static_cast<size_t>(got));
  }
  ::close(fd);
  return content;
}

}  // namespace proofload
