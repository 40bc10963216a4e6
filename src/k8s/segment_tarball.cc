// See segment_tarball.h. The tarball is read as it is inflated, 64 KiB at a time: the memory
// held is the log (bounded by the caller) and its decoded bytes, never the unpacked directory.
// GNU tar's format (what `tar -czf` writes) with its long names, and POSIX ustar and pax names.
#include "k8s/segment_tarball.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "k8s/job_manifest.h"
#include "measure/hlog.h"

namespace proofload::k8s {
namespace {

namespace fs = std::filesystem;

constexpr size_t kBlock = 512;
constexpr uint64_t kMaxNameBytes = 64 << 10;  // a long name's or a pax header's record

struct Refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The text between the last begin marker line and the end marker line after it (the
// experiment's own output comes before them).
std::string_view between_markers(std::string_view log, int index) {
  const std::string begin = tarball_begin_marker(index) + "\n";
  const std::string end = "\n" + tarball_end_marker(index) + "\n";
  size_t at = log.rfind("\n" + begin);
  if (at != std::string_view::npos) {
    at += 1;
  } else if (log.substr(0, begin.size()) == begin) {
    at = 0;
  } else {
    throw Refused("no tarball in its log");
  }
  const size_t body = at + begin.size();
  const size_t stop = log.find(end, body - 1);  // body - 1: the begin line's own line break
  if (stop == std::string_view::npos) {
    throw Refused("tarball cut short (no end marker: the kubelet may have rotated the log)");
  }
  return log.substr(body, stop + 1 - body);
}

uint64_t octal_field(const char* field, size_t width) {
  uint64_t value = 0;
  size_t i = 0;
  while (i < width && field[i] == ' ') ++i;
  for (; i < width && field[i] >= '0' && field[i] <= '7'; ++i) {
    if (value > (uint64_t{1} << 60)) throw Refused("a size in the tarball is too large");
    value = value * 8 + static_cast<uint64_t>(field[i] - '0');
  }
  if (i < width && field[i] != '\0' && field[i] != ' ') throw Refused("a malformed tar header");
  return value;
}

std::string c_string(const char* field, size_t width) {
  return std::string(field, strnlen(field, width));
}

// Writes what a tar stream holds under `root`, for member names under `prefix`/.
class TarUnpacker {
 public:
  TarUnpacker(fs::path root, std::string prefix, const TarballLimits& limits)
      : root_(std::move(root)), prefix_(std::move(prefix)), limits_(limits) {}

  void feed(const char* data, size_t size) {
    while (size > 0 && !ended_) {
      size_t used = 0;
      if (data_left_ > 0) {
        used = static_cast<size_t>(std::min<uint64_t>(data_left_, size));
        take_data(data, used);
      } else if (pad_left_ > 0) {
        used = static_cast<size_t>(std::min<uint64_t>(pad_left_, size));
        pad_left_ -= used;
      } else {
        used = std::min(kBlock - header_fill_, size);
        std::memcpy(header_ + header_fill_, data, used);
        header_fill_ += used;
        if (header_fill_ == kBlock) {
          header_fill_ = 0;
          read_header();
        }
      }
      data += used;
      size -= used;
    }
  }

  bool ended() const { return ended_; }

 private:
  enum class Sink { kFile, kName, kPax, kSkip };

  void read_header() {
    if (std::all_of(header_, header_ + kBlock, [](char c) { return c == '\0'; })) {
      ended_ = ++zero_blocks_ == 2;
      return;
    }
    zero_blocks_ = 0;
    uint64_t sum = 0;
    for (size_t i = 0; i < kBlock; ++i) {
      sum += i >= 148 && i < 156 ? ' ' : static_cast<unsigned char>(header_[i]);
    }
    if (sum != octal_field(header_ + 148, 8)) throw Refused("a tar header's checksum is wrong");
    const uint64_t size = octal_field(header_ + 124, 12);
    const char type = header_[156];
    std::string name = c_string(header_, 100);
    if (std::memcmp(header_ + 257, "ustar\0", 6) == 0 && header_[345] != '\0') {
      name = c_string(header_ + 345, 155) + "/" + name;
    }
    if (!next_name_.empty()) name = std::exchange(next_name_, "");
    data_left_ = size;
    pad_left_ = (kBlock - size % kBlock) % kBlock;
    meta_.clear();
    if (type == 'L' || type == 'x') {
      if (size > kMaxNameBytes) throw Refused("a tar name record is too large");
      sink_ = type == 'L' ? Sink::kName : Sink::kPax;
    } else if (type == 'g') {
      sink_ = Sink::kSkip;
    } else if (type == '5') {
      fs::create_directories(place(name));
      sink_ = Sink::kSkip;
    } else if (type == '0' || type == '\0' || type == '7') {
      open_file(place(name), size);
    } else {
      throw Refused("the tarball holds a link or a special file ('" + name + "'): refused");
    }
    if (data_left_ == 0) end_entry();
  }

  // Where a member goes: only under prefix_/, with no ".." and never absolute.
  fs::path place(const std::string& name) {
    fs::path under = root_;
    bool first = true;
    size_t begin = 0;
    while (begin <= name.size()) {
      const size_t slash = std::min(name.find('/', begin), name.size());
      const std::string part = name.substr(begin, slash - begin);
      begin = slash + 1;
      if (first) {
        if (part != prefix_) throw Refused("'" + name + "' is not under " + prefix_ + "/");
        first = false;
      } else if (part == "..") {
        throw Refused("'" + name + "' climbs out of its directory");
      } else if (!part.empty() && part != ".") {
        under /= part;
      }
    }
    return under;
  }

  void open_file(const fs::path& path, uint64_t size) {
    if (++files_ > static_cast<uint64_t>(limits_.max_files)) {
      throw Refused("more than " + std::to_string(limits_.max_files) + " files");
    }
    bytes_ += size;
    if (bytes_ > static_cast<uint64_t>(limits_.max_bytes)) {
      throw Refused("more than " + std::to_string(limits_.max_bytes) + " bytes unpacked");
    }
    fs::create_directories(path.parent_path());
    file_.open(path, std::ios::binary | std::ios::trunc);
    if (!file_) throw std::runtime_error("cannot write " + path.string());
    sink_ = Sink::kFile;
  }

  void take_data(const char* data, size_t size) {
    if (sink_ == Sink::kFile) {
      file_.write(data, static_cast<std::streamsize>(size));
    } else if (sink_ != Sink::kSkip) {
      meta_.append(data, size);
    }
    data_left_ -= size;
    if (data_left_ == 0) end_entry();
  }

  void end_entry() {
    if (sink_ == Sink::kFile) {
      file_.close();
      if (!file_) throw std::runtime_error("cannot write under " + root_.string());
    } else if (sink_ == Sink::kName) {
      next_name_ = meta_.substr(0, meta_.find('\0'));
    } else if (sink_ == Sink::kPax) {
      // Records "LENGTH key=value\n"; only the path matters here.
      for (size_t at = 0; at < meta_.size();) {
        const size_t space = meta_.find(' ', at);
        const size_t length = std::strtoul(meta_.c_str() + at, nullptr, 10);
        if (space == std::string::npos || length == 0 || at + length > meta_.size()) break;
        const std::string record = meta_.substr(space + 1, at + length - space - 2);
        if (record.rfind("path=", 0) == 0) next_name_ = record.substr(5);
        at += length;
      }
    }
    sink_ = Sink::kSkip;
  }

  fs::path root_;
  std::string prefix_;
  TarballLimits limits_;
  char header_[kBlock] = {};
  size_t header_fill_ = 0;
  uint64_t data_left_ = 0;  // bytes of the current member still to come
  uint64_t pad_left_ = 0;   // padding to the next block after them
  Sink sink_ = Sink::kSkip;
  std::ofstream file_;
  std::string meta_;       // a long name's or pax header's bytes
  std::string next_name_;  // the name they give the next member
  uint64_t files_ = 0;
  uint64_t bytes_ = 0;
  int zero_blocks_ = 0;
  bool ended_ = false;
};

void gunzip_into(const std::vector<uint8_t>& gzip, TarUnpacker& tar) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw std::runtime_error("zlib: out of memory");
  struct End {
    z_stream* zs;
    ~End() { inflateEnd(zs); }
  } end{&zs};
  zs.next_in = const_cast<Bytef*>(gzip.data());
  zs.avail_in = static_cast<uInt>(gzip.size());
  std::vector<char> chunk(64 << 10);
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk.data());
    zs.avail_out = static_cast<uInt>(chunk.size());
    const int rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      throw Refused(zs.total_out == 0 ? "its tarball is not gzip" : "its gzip stream is corrupt");
    }
    tar.feed(chunk.data(), chunk.size() - zs.avail_out);
    if (rc == Z_STREAM_END) return;
    if (zs.avail_in == 0 && zs.avail_out != 0) throw Refused("its gzip stream is cut short");
  }
}

}  // namespace

std::string unpack_segment_log(std::string_view log, int index, const fs::path& destination,
                               const TarballLimits& limits) {
  const fs::path partial = destination.string() + ".partial";
  try {
    std::string base64;
    for (char c : between_markers(log, index)) {
      if (c != '\n' && c != '\r') base64 += c;
    }
    std::vector<uint8_t> gzip;
    try {
      gzip = measure::base64_decode(base64);
    } catch (const std::runtime_error&) {
      throw Refused("its tarball is not base64");
    }
    fs::remove_all(partial);
    fs::create_directories(partial);
    TarUnpacker tar(partial, "segment-" + std::to_string(index), limits);
    gunzip_into(gzip, tar);
    if (!tar.ended()) throw Refused("its tarball is cut short");
    fs::rename(partial, destination);
    return "";
  } catch (const Refused& e) {
    std::error_code ignored;
    fs::remove_all(partial, ignored);
    return e.what();
  }
}

}  // namespace proofload::k8s
