// A Prometheus text exposition as the prom: observer scrapes it from a server (which proofload
// never trusts): malformed lines are counted, never a crash; memory stays within the stated
// bounds whatever is sent.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "observe/prom_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  proofload::observe::parse_prom_text(text);
  proofload::observe::PromParseOptions filtered;
  filtered.family_prefixes = {"process_", "node_cpu"};
  filtered.max_series = 100;
  proofload::observe::parse_prom_text(text, filtered);
  return 0;
}
