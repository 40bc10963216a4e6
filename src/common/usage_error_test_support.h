// Test support: the one-line message a UsageError carries, for tests of what users are told.
#pragma once

#include <string>

#include "common/usage_error.h"

namespace proofload::testing {

// The message of the UsageError `f` throws, or "" if it throws none.
template <typename F>
std::string usage_error_of(F f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace proofload::testing
