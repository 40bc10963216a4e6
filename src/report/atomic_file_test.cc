// write_file_atomically: content lands whole, replaces the old file, leaves no temp file behind,
// and failures name the path and the reason.
#include "report/atomic_file.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "report/test_fixtures.h"

namespace proofload::report {
namespace {

using testing_support::read_file;
using testing_support::ScratchDirectory;

int count_entries(const std::filesystem::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(WriteFileAtomically, CreatesFileWithContent) {
  ScratchDirectory dir;
  const auto path = dir.path() / "result.json";
  write_file_atomically(path, "{\"a\": 1}\n");
  EXPECT_EQ(read_file(path), "{\"a\": 1}\n");
}

TEST(WriteFileAtomically, ReplacesContentAndLeavesNoTempFile) {
  ScratchDirectory dir;
  const auto path = dir.path() / "result.json";
  write_file_atomically(path, std::string(100'000, 'x'));
  write_file_atomically(path, "short");
  EXPECT_EQ(read_file(path), "short");
  EXPECT_EQ(count_entries(dir.path()), 1);  // only result.json: no temp file left
}

TEST(WriteFileAtomically, FailureNamesPathAndReasonAndLeavesNothing) {
  ScratchDirectory dir;
  const auto path = dir.path() / "missing" / "result.json";
  try {
    write_file_atomically(path, "x");
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write " + path.string() + ": No such file or directory");
  }
  EXPECT_EQ(count_entries(dir.path()), 0);
}

TEST(WriteFileAtomically, RenameFailureRemovesTempFile) {
  ScratchDirectory dir;
  // A non-empty directory where the file should go: the rename fails after the write.
  const auto path = dir.path() / "result.json";
  std::filesystem::create_directories(path / "occupied");
  EXPECT_THROW(write_file_atomically(path, "x"), std::runtime_error);
  EXPECT_EQ(count_entries(dir.path()), 1);  // just the directory that was in the way
}

}  // namespace
}  // namespace proofload::report
