// A routes file as `serve --routes FILE` takes it: parsed, then turned into the server's
// handler (route matching, behaviours, the lifecycle store). A bad file must be one UsageError.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/usage_error.h"
#include "serve/route_handler.h"
#include "serve/routes/routes_yaml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const proofload::serve::RouteTable table =
        proofload::serve::parse_routes_yaml(text, "fuzz-routes.yaml");
    proofload::serve::RouteHandler handler(table, 1);
  } catch (const proofload::UsageError&) {
    // the one way a file may be refused
  }
  return 0;
}
