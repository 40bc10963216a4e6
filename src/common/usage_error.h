// Bad input from the user (flags, URLs, files). Thrown only while a run is being configured,
// caught once in main, printed as one line, and turned into exit code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace proofload {

class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

// Exit codes a script can rely on.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;      // the run could not be carried out (I/O error, ...)
constexpr int kExitUsage = 2;        // bad input: nothing was sent
constexpr int kExitThresholds = 99;  // a threshold failed (k6's convention)
constexpr int kExitInterrupted = 130;  // Ctrl-C or SIGTERM: results so far were written

}  // namespace proofload
