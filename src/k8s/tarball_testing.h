// Test support: pods' logs made member by member, for tarballs tar itself would never write (a
// file named as the segment's directory, a name that is a file and a directory, escape
// sequences in a name, gzip of nothing but zeros). Header-only; pure.
#pragma once

#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "k8s/job_manifest.h"
#include "measure/hlog.h"

namespace proofload::k8s::testing {

// One ustar member: its header (with its checksum) and its content padded to whole blocks.
// `type` is tar's: '0' a file, '5' a directory, '2' a symbolic link.
inline std::string tar_member(const std::string& name, char type, const std::string& content = "") {
  char header[512] = {};
  std::memcpy(header, name.data(), std::min<size_t>(name.size(), 100));
  std::snprintf(header + 100, 8, "%07o", 0644);
  std::snprintf(header + 124, 12, "%011llo", static_cast<unsigned long long>(content.size()));
  header[156] = type;
  std::memcpy(header + 257, "ustar\0" "00", 8);
  std::memset(header + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : header) sum += c;
  std::snprintf(header + 148, 8, "%06o", sum);
  std::string member(header, sizeof header);
  member += content;
  member.append((512 - content.size() % 512) % 512, '\0');
  return member;
}

inline std::string tar_end() { return std::string(1024, '\0'); }

inline std::string gzip(const std::string& bytes) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("zlib");
  }
  std::string out(deflateBound(&zs, bytes.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = static_cast<uInt>(bytes.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("zlib");
  return out;
}

// What a pod prints: `gzip` as base64 in lines of 76 (as base64(1)) between segment `index`'s
// markers.
inline std::string pod_log(int index, const std::string& gzip_bytes) {
  const std::string text = measure::base64_encode(
      reinterpret_cast<const uint8_t*>(gzip_bytes.data()), gzip_bytes.size());
  std::string log = tarball_begin_marker(index) + "\n";
  for (size_t at = 0; at < text.size(); at += 76) log += text.substr(at, 76) + "\n";
  return log + tarball_end_marker(index) + "\n";
}

}  // namespace proofload::k8s::testing
