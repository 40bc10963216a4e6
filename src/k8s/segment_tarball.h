// A segment's result directory as a pod printed it (job_manifest.h's log_results_script): the
// base64 gzip tarball between its markers in the pod's log, unpacked. The log comes from a
// cluster and is not trusted: everything is bounded (the unpacked bytes and files), only regular
// files and directories under `segment-I/` are written, and nothing else (links, devices, "..",
// absolute names) is accepted. Stateless, thread-safe for distinct destinations.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace proofload::k8s {

struct TarballLimits {
  int64_t max_bytes = int64_t{4} << 30;  // unpacked, all files together
  int64_t max_files = 100'000;
};

// Unpacks segment `index`'s tarball found in `log` into `destination` (which must not exist; it
// is created, and left absent on failure). Returns "" on success, else why not in a few words:
// "no tarball in its log", "tarball cut short (no end marker)", "not gzip", ...
std::string unpack_segment_log(std::string_view log, int index,
                               const std::filesystem::path& destination,
                               const TarballLimits& limits = {});

}  // namespace proofload::k8s
