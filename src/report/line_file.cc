// See line_file.h.
#include "report/line_file.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace proofload::report {

LineFile::LineFile(const std::filesystem::path& path, const std::string& header) : path_(path) {
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) {
    throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  }
  append(header);
}

LineFile::~LineFile() {
  if (file_ != nullptr) std::fclose(file_);
}

void LineFile::append(const std::string& line) {
  if (std::fputs(line.c_str(), file_) < 0 || std::fputc('\n', file_) < 0 ||
      std::fflush(file_) != 0) {
    throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(errno));
  }
}

}  // namespace proofload::report
