// An HdrHistogram interval log as read back (report, tests, other tools' logs): the text, the
// base64 and the compressed histogram inside each line. A bad log is one std::runtime_error with
// its line, never a crash or an allocation the input's claimed sizes ask for.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "measure/hlog.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    for (const proofload::measure::HlogInterval& interval : proofload::measure::read_hlog(in)) {
      // What readers do next: percentiles of each interval's histogram.
      interval.histogram.value_at_percentile(99.9);
    }
  } catch (const std::runtime_error&) {
    // the one way a log may be refused
  }
  return 0;
}
