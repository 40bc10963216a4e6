// What `proofload k8s collect` reads of a pod: its tarball, as a hostile pod may send it. The
// input is the tar stream itself (gzipped here, so that mutations reach the tar headers) or,
// when it opens with gzip's magic, the gzip stream; either is put in a pod's log between its
// markers, base64, and unpacked into a fresh directory with small bounds. A refusal is a
// sentence with no control byte in it (it reaches a terminal); nothing lands outside the
// directory, and nothing half-unpacked is left beside it.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "k8s/segment_tarball.h"
#include "k8s/tarball_testing.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path root = [] {
    const fs::path dir = fs::temp_directory_path() / ("segment_tarball_fuzz." +
                                                      std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir;
  }();
  const std::string input(reinterpret_cast<const char*>(data), size);
  const bool gzipped = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  std::istringstream log(proofload::k8s::testing::pod_log(
      0, gzipped ? input : proofload::k8s::testing::gzip(input)));
  proofload::k8s::TarballLimits limits;
  limits.max_bytes = 1 << 20;
  limits.max_files = 64;
  const fs::path out = root / "out" / "segment-0";
  const std::string refused = proofload::k8s::unpack_segment_log(log, 0, out, limits);
  for (char c : refused) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) std::abort();  // raw on a terminal
  }
  if (fs::exists(out.string() + ".partial")) std::abort();
  if (!refused.empty() && fs::exists(out)) std::abort();
  // Only segment-0's directory, under out/: nothing beside it, nothing climbed out to root/.
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.path().filename() != "out") std::abort();
  }
  for (const auto& entry : fs::directory_iterator(root / "out")) {
    if (entry.path() != out) std::abort();
  }
  fs::remove_all(out);
  return 0;
}
