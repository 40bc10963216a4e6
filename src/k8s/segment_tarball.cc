// See segment_tarball.h. The log is read 64 KiB at a time, decoded, inflated and unpacked as it
// comes: the memory held is a few buffers, never the log, its tarball or the unpacked directory.
// GNU tar's format (what `tar -czf` writes) with its long names, and POSIX ustar and pax names.
#include "k8s/segment_tarball.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "common/text.h"
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

constexpr size_t kChunk = 64 << 10;

// Where the tarball is in the log: the bytes between the last begin marker line and the end
// marker line after it (the experiment's own output comes before them). One pass, a line at a
// time, keeping no more of a line than a marker's length.
struct Body {
  std::streamoff begin = 0;
  std::streamoff end = 0;
};

Body find_body(std::istream& log, int index) {
  const std::string begin_marker = tarball_begin_marker(index);
  const std::string end_marker = tarball_end_marker(index);
  const size_t keep = std::max(begin_marker.size(), end_marker.size()) + 1;
  std::streamoff begin = -1, end = -1;  // -1: none (yet)
  std::string line;  // the current line's first `keep` bytes
  std::streamoff line_at = 0, at = 0;
  std::vector<char> chunk(kChunk);
  while (log.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || log.gcount() > 0) {
    const size_t got = static_cast<size_t>(log.gcount());
    for (size_t i = 0; i < got; ++i, ++at) {
      if (chunk[i] != '\n') {
        if (line.size() < keep) line += chunk[i];
        continue;
      }
      if (line == begin_marker) {
        begin = at + 1;
        end = -1;
      } else if (line == end_marker && begin >= 0 && end < 0) {
        end = line_at;
      }
      line.clear();
      line_at = at + 1;
    }
  }
  if (begin < 0) throw Refused("no tarball in its log");
  if (end < 0) throw Refused("tarball cut short (no end marker: the kubelet may have rotated the log)");
  return {begin, end};
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
  uint64_t files() const { return files_; }

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
      make_directories(place(name), name);
      sink_ = Sink::kSkip;
    } else if (type == '0' || type == '\0' || type == '7') {
      open_file(place(name), size, name);
    } else {
      throw Refused("the tarball holds a link or a special file ('" + printable(name) +
                    "'): refused");
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
        if (part != prefix_) {
          throw Refused("'" + printable(name) + "' is not under " + prefix_ + "/");
        }
        first = false;
      } else if (part == "..") {
        throw Refused("'" + printable(name) + "' climbs out of its directory");
      } else if (!part.empty() && part != ".") {
        under /= part;
      }
    }
    return under;
  }

  // A name that is a file in one member and a directory in another is refused, not a write error
  // (which would end the whole collection).
  void make_directories(const fs::path& path, const std::string& name) {
    std::error_code error;
    fs::create_directories(path, error);
    if (error) throw Refused("'" + printable(name) + "' is both a file and a directory");
  }

  void open_file(const fs::path& path, uint64_t size, const std::string& name) {
    if (path == root_) {
      throw Refused("'" + printable(name) + "' is a file where the segment's directory should be");
    }
    if (fs::is_directory(path)) {
      throw Refused("'" + printable(name) + "' is both a file and a directory");
    }
    if (++files_ > static_cast<uint64_t>(limits_.max_files)) {
      throw Refused("more than " + std::to_string(limits_.max_files) + " files");
    }
    bytes_ += size;
    if (bytes_ > static_cast<uint64_t>(limits_.max_bytes)) {
      throw Refused("more than " + std::to_string(limits_.max_bytes) + " bytes unpacked");
    }
    make_directories(path.parent_path(), name);
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

// A gzip stream inflated as its bytes come, into the tar reader.
class Gunzip {
 public:
  explicit Gunzip(TarUnpacker& tar) : tar_(tar), out_(kChunk) {
    if (inflateInit2(&zs_, 16 + MAX_WBITS) != Z_OK) throw std::runtime_error("zlib: out of memory");
  }
  ~Gunzip() { inflateEnd(&zs_); }
  Gunzip(const Gunzip&) = delete;
  Gunzip& operator=(const Gunzip&) = delete;

  void feed(const uint8_t* data, size_t size) {
    zs_.next_in = const_cast<Bytef*>(data);
    zs_.avail_in = static_cast<uInt>(size);
    while (!ended_ && (zs_.avail_in > 0 || output_full_)) {
      zs_.next_out = reinterpret_cast<Bytef*>(out_.data());
      zs_.avail_out = static_cast<uInt>(out_.size());
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        throw Refused(zs_.total_out == 0 ? "its tarball is not gzip"
                                          : "its gzip stream is corrupt");
      }
      output_full_ = zs_.avail_out == 0;
      tar_.feed(out_.data(), out_.size() - zs_.avail_out);
      ended_ = rc == Z_STREAM_END;  // what follows the stream is ignored, as gzip -d does
      if (rc == Z_BUF_ERROR) break;  // it needs more input
    }
  }

  bool ended() const { return ended_; }

 private:
  TarUnpacker& tar_;
  z_stream zs_{};
  std::vector<char> out_;
  bool output_full_ = false;  // inflate may hold more output for the same input
  bool ended_ = false;
};

// The base64 text of the body, decoded in whole quads (line breaks skipped) into the gzip reader.
void decode_body(std::istream& log, const Body& body, Gunzip& gunzip) {
  log.clear();
  log.seekg(body.begin);
  std::vector<char> chunk(kChunk);
  std::string quads;
  std::streamoff left = body.end - body.begin;
  while (left > 0) {
    const auto want = static_cast<std::streamsize>(std::min<std::streamoff>(left, kChunk));
    if (!log.read(chunk.data(), want)) throw std::runtime_error("cannot read the pod's log again");
    left -= want;
    for (std::streamsize i = 0; i < want; ++i) {
      if (chunk[i] != '\n' && chunk[i] != '\r') quads += chunk[i];
    }
    const size_t whole = left > 0 ? quads.size() / 4 * 4 : quads.size();
    std::vector<uint8_t> bytes;
    try {
      bytes = measure::base64_decode(std::string_view(quads).substr(0, whole));
    } catch (const std::runtime_error&) {
      throw Refused("its tarball is not base64");
    }
    quads.erase(0, whole);
    gunzip.feed(bytes.data(), bytes.size());
  }
}

}  // namespace

std::string unpack_segment_log(std::istream& log, int index, const fs::path& destination,
                               const TarballLimits& limits) {
  const fs::path partial = destination.string() + ".partial";
  std::string refused;
  try {
    const Body body = find_body(log, index);
    fs::remove_all(partial);
    fs::create_directories(partial);
    TarUnpacker tar(partial, "segment-" + std::to_string(index), limits);
    {
      Gunzip gunzip(tar);
      decode_body(log, body, gunzip);
      if (!gunzip.ended()) throw Refused("its gzip stream is cut short");
    }
    if (!tar.ended()) throw Refused("its tarball is cut short");
    if (tar.files() == 0) throw Refused("its tarball is empty");
    fs::rename(partial, destination);
    return "";
  } catch (const Refused& e) {
    refused = e.what();
  } catch (const std::exception& e) {
    // A write that failed (a full disk): this segment is missing, the others still merge.
    refused = "cannot unpack: " + printable(e.what());
  }
  std::error_code ignored;
  fs::remove_all(partial, ignored);
  return refused;
}

}  // namespace proofload::k8s
