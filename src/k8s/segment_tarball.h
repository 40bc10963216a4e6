// A segment's result directory as a pod printed it (job_manifest.h's log_results_script): the
// base64 gzip tarball between its markers in the pod's log, unpacked. The log comes from a
// cluster and is not trusted: everything is bounded (the unpacked bytes and files), only regular
// files and directories under `segment-I/` are written, and nothing else (links, devices, "..",
// absolute names) is accepted. The log is read from a stream, 64 KiB at a time, never held whole
// (a pod's log can be hundreds of MB). Stateless, thread-safe for distinct destinations.
#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>

namespace proofload::k8s {

struct TarballLimits {
  int64_t max_bytes = int64_t{4} << 30;  // unpacked, all files together
  int64_t max_files = 100'000;
};

// Unpacks segment `index`'s tarball found in `log` (seekable: it is read twice, once to find the
// markers) into `destination` (which must not exist; it is created, and left absent on failure,
// with no `.partial` beside it). Returns "" on success, else why not in a few words: "no tarball
// in its log", "tarball cut short (no end marker)", "not gzip", "its tarball is empty", ...; a
// member's name quoted in it is printable() (common/text.h), safe on a terminal.
std::string unpack_segment_log(std::istream& log, int index,
                               const std::filesystem::path& destination,
                               const TarballLimits& limits = {});

}  // namespace proofload::k8s
