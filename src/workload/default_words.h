// The default word list shipped with proofload, for `word: {}` data: about 2,000 distinct
// lowercase English words (a-z, 3 to 10 letters), so that cache-busting works out of the box.
// Immutable; thread-safe.
#pragma once

#include <span>
#include <string_view>

namespace proofload::workload {

// The words, in alphabetical order; the storage is static (valid for the whole program).
std::span<const std::string_view> default_words();

}  // namespace proofload::workload
