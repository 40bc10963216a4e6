// Whole-file writes that a crash or a full disk can never leave half done: readers see either
// the old content or the new. Thread-safe (no shared state; concurrent writers of one path race
// only on which complete file wins).
#pragma once

#include <filesystem>
#include <string_view>

namespace proofload::report {

// Writes `content` to a temporary file in the same directory, fsyncs it, renames it over `path`
// and fsyncs the directory. Throws std::runtime_error naming the path and the system's reason
// on failure; the temporary file never survives a failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace proofload::report
