#include "common/file_text.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/usage_error.h"

namespace proofload {
namespace {

std::string error_of(const std::string& path, int64_t max_bytes) {
  try {
    read_bounded_file(path, "data file", max_bytes);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

class FileTextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("file_text_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& content) {
    const std::filesystem::path file = dir_ / name;
    std::ofstream(file, std::ios::binary) << content;
    return file.string();
  }
  std::filesystem::path dir_;
};

TEST_F(FileTextTest, ReadsAFileUpToTheLimitWhole) {
  const std::string file = write("ten", "0123456789");
  EXPECT_EQ(read_bounded_file(file, "data file", 10), "0123456789");
}

TEST_F(FileTextTest, RefusesAFileOneByteLargerThanTheLimitWithoutItsContent) {
  const std::string file = write("eleven", "secret-1234");
  const std::string error = error_of(file, 10);
  EXPECT_EQ(error, "data file '" + file + "' is larger than 10 bytes");
  EXPECT_EQ(error.find("1234"), std::string::npos);  // no byte of the content
}

TEST_F(FileTextTest, AnEndlessDeviceIsRefusedAtTheLimit) {
  EXPECT_EQ(error_of("/dev/zero", int64_t{1} << 20), "data file '/dev/zero' is larger than 1 MiB");
}

TEST_F(FileTextTest, ADirectoryAndAMissingFileAreOneLine) {
  EXPECT_EQ(error_of(dir_.string(), 100),
            "cannot read data file '" + dir_.string() + "': it is a directory");
  EXPECT_EQ(
      error_of((dir_ / "absent").string(), 100),
      "cannot read data file '" + (dir_ / "absent").string() + "': No such file or directory");
}

}  // namespace
}  // namespace proofload
