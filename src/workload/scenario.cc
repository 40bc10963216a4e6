// SourceLocation's text for messages. Stateless.
#include "workload/scenario.h"

namespace proofload::workload {

std::string SourceLocation::text() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace proofload::workload
