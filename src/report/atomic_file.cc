// write_file_atomically: temp file + fsync + rename (+ fsync of the directory, so the rename
// itself survives a power cut). Thread-safe: the temp name carries the pid and a counter.
#include "report/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace proofload::report {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, int error) {
  throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(error));
}

bool write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::filesystem::path temp_path_for(const std::filesystem::path& path) {
  static std::atomic<unsigned> counter{0};
  std::filesystem::path temp = path;
  // A leading dot keeps half-written files out of a casual `ls`.
  std::string name = ".";
  name += path.filename().string();
  name += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  temp.replace_filename(name);
  return temp;
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::filesystem::path path)
    : path_(std::move(path)), temp_(temp_path_for(path_)) {
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) ::proofload::report::fail(path_, errno);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_.c_str());
  }
}

void AtomicFileWriter::fail(int error) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(temp_.c_str());
  ::proofload::report::fail(path_, error);
}

void AtomicFileWriter::write(std::string_view content) {
  if (fd_ < 0) throw std::logic_error("AtomicFileWriter::write after commit or failure");
  if (!write_all(fd_, content)) fail(errno);
}

void AtomicFileWriter::commit() {
  if (fd_ < 0) throw std::logic_error("AtomicFileWriter::commit twice or after failure");
  if (::fsync(fd_) != 0) fail(errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temp_.c_str());
    ::proofload::report::fail(path_, error);
  }
  if (::rename(temp_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp_.c_str());
    ::proofload::report::fail(path_, error);
  }
  // The rename is durable only once the directory entry is: best effort (some filesystems
  // refuse fsync on a directory, and the content is already safe on disk).
  std::filesystem::path dir = path_.parent_path();
  if (dir.empty()) dir = ".";
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  AtomicFileWriter writer(path);
  writer.write(content);
  writer.commit();
}

}  // namespace proofload::report
