// Reading a whole file the user named (a scenario, a data or secret file, a request body, a
// level table), bounded: a path to /dev/zero or a 40 GB log must be one line of error, not an
// exhausted machine. One implementation, so every such file is refused the same way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace proofload {

// The content of `path`, at most `max_bytes` of it. Throws UsageError with one line:
// "cannot read WHAT 'PATH': reason" (the errno's text, or "it is a directory"), or
// "WHAT 'PATH' is larger than N MiB" once more than max_bytes could be read. The error never
// holds a byte of the content (it may be a secret).
std::string read_bounded_file(const std::string& path, std::string_view what, int64_t max_bytes);

}  // namespace proofload
