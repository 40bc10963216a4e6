// Pods' logs as the script in job_manifest.h prints them (made here with tar, gzip and base64 as
// a pod's image has them), and hostile ones: nothing lands outside the destination, nothing
// unbounded is written, and what is refused is said in a few words.
#include "k8s/segment_tarball.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "k8s/job_manifest.h"
#include "k8s/tarball_testing.h"

namespace proofload::k8s {
namespace {

namespace fs = std::filesystem;
using testing::gzip;
using testing::pod_log;
using testing::tar_end;
using testing::tar_member;

std::string unpack(const std::string& log, int index, const fs::path& destination,
                   const TarballLimits& limits = {}) {
  std::istringstream in(log);
  return unpack_segment_log(in, index, destination, limits);
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

class SegmentTarball : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("segment_tarball_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "results");
  }

  // What a pod's log holds after its run: its own output, then the markers around the tarball.
  std::string log_of(const std::string& segment, int index, const std::string& tar_flags = "") {
    const fs::path b64 = dir_ / "tar.b64";
    const std::string command = "tar -C '" + (dir_ / "results").string() + "' " + tar_flags +
                                " -czf - " + segment + " | base64 > '" + b64.string() + "'";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return "run: 1 s, 20 requests\n" + tarball_begin_marker(index) + "\n" + read(b64) +
           tarball_end_marker(index) + "\n";
  }

  fs::path dir_;
};

TEST_F(SegmentTarball, UnpacksTheSegmentByteForByte) {
  const std::string long_name(150, 'n');  // past ustar's 100 bytes: GNU tar's long name record
  write(dir_ / "results/segment-3/result.json", "{\"schema\": \"run\"}\n");
  write(dir_ / "results/segment-3/levels/01-100/windows.csv", std::string(300'000, 'w'));
  write(dir_ / "results/segment-3" / long_name, "long");
  const std::string log = log_of("segment-3", 3);
  const fs::path out = dir_ / "segments/segment-3";
  ASSERT_EQ(unpack(log, 3, out), "");
  EXPECT_EQ(read(out / "result.json"), "{\"schema\": \"run\"}\n");
  EXPECT_EQ(read(out / "levels/01-100/windows.csv"), std::string(300'000, 'w'));
  EXPECT_EQ(read(out / long_name), "long");
  EXPECT_FALSE(fs::exists(out.string() + ".partial"));
}

TEST_F(SegmentTarball, SaysWhyWhenThereIsNone) {
  const fs::path out = dir_ / "segment-0";
  EXPECT_EQ(unpack("error: bad flag\n", 0, out), "no tarball in its log");
  write(dir_ / "results/segment-0/result.json", "{}");
  std::string log = log_of("segment-0", 0);
  const std::string cut = log.substr(0, log.size() / 2);
  EXPECT_NE(unpack(cut, 0, out).find("cut short"), std::string::npos);
  EXPECT_EQ(unpack(log, 1, out), "no tarball in its log");  // another index's
  const size_t body = log.find('\n', log.find("begin")) + 1;
  std::string garbled = log;
  garbled[body + 3] = '*';
  EXPECT_EQ(unpack(garbled, 0, out), "its tarball is not base64");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out.string() + ".partial"));
}

TEST_F(SegmentTarball, RefusesLinksOtherDirectoriesAndEscapes) {
  write(dir_ / "results/segment-0/result.json", "{}");
  fs::create_symlink("/etc/passwd", dir_ / "results/segment-0/passwd");
  EXPECT_NE(unpack(log_of("segment-0", 0), 0, dir_ / "a").find("link"),
            std::string::npos);
  write(dir_ / "results/segment-1/result.json", "{}");
  // A member named segment-0/../../escaped: GNU tar writes it as given with --transform.
  const std::string escape = unpack(
      log_of("segment-1", 0, "--transform=s,^segment-1,segment-0/../..,"), 0, dir_ / "b");
  EXPECT_NE(escape.find("climbs out"), std::string::npos) << escape;
  EXPECT_NE(unpack(log_of("segment-1", 0, "--transform=s,^segment-1,segment-0x,"), 0,
                               dir_ / "c")
                .find("is not under segment-0/"),
            std::string::npos);
  for (const char* left : {"a", "b", "c", "escaped"}) EXPECT_FALSE(fs::exists(dir_ / left));
}

TEST_F(SegmentTarball, StopsAtItsBounds) {
  for (int i = 0; i < 3; ++i) {
    write(dir_ / ("results/segment-0/f" + std::to_string(i)), std::string(1000, 'x'));
  }
  const std::string log = log_of("segment-0", 0);
  TarballLimits few_files;
  few_files.max_files = 2;
  EXPECT_EQ(unpack(log, 0, dir_ / "a", few_files), "more than 2 files");
  TarballLimits few_bytes;
  few_bytes.max_bytes = 2500;
  EXPECT_EQ(unpack(log, 0, dir_ / "b", few_bytes), "more than 2500 bytes unpacked");
  EXPECT_EQ(unpack(log, 0, dir_ / "c"), "");
}

// Tarballs tar never writes, each refused in words and leaving nothing behind: before, a file
// named as the segment's directory, or a name both a file and a directory, ended the whole
// collection ("cannot write ...segment-0.partial") and left the .partial directory.
TEST_F(SegmentTarball, ANameThatIsAFileAndADirectoryIsRefused) {
  const std::string ok = tar_member("segment-0/result.json", '0', "{}");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {tar_member("segment-0", '0', "x"), "'segment-0' is a file where the segment's directory"},
      {tar_member("segment-0/a/", '5') + tar_member("segment-0/a", '0', "x"),
       "'segment-0/a' is both a file and a directory"},
      {tar_member("segment-0/a", '0', "x") + tar_member("segment-0/a/b", '0', "y"),
       "'segment-0/a/b' is both a file and a directory"},
      {tar_member("segment-0/a", '0', "x") + tar_member("segment-0/a/", '5'),
       "'segment-0/a/' is both a file and a directory"},
  };
  for (const auto& [members, words] : cases) {
    const fs::path out = dir_ / "segment-0";
    const std::string refused = unpack(pod_log(0, gzip(ok + members + tar_end())), 0, out);
    EXPECT_NE(refused.find(words), std::string::npos) << refused;
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(out.string() + ".partial"));
  }
}

TEST_F(SegmentTarball, AnEmptyTarballIsRefused) {
  // gzip of zeros: a tar stream that ends at once. Before, it was "collected" as an empty
  // directory, and the merge then refused every segment.
  const fs::path out = dir_ / "segment-0";
  EXPECT_EQ(unpack(pod_log(0, gzip(std::string(10240, '\0'))), 0, out), "its tarball is empty");
  EXPECT_EQ(unpack(pod_log(0, gzip(tar_member("segment-0/", '5') + tar_end())), 0, out),
            "its tarball is empty");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out.string() + ".partial"));
}

TEST_F(SegmentTarball, ANameIsQuotedNeverObeyedByATerminal) {
  // Clear the screen, retitle the window: printed raw before.
  const std::string name = "segment-0x\x1b[2J\x1b]0;pwned\x07/f";
  const std::string refused =
      unpack(pod_log(0, gzip(tar_member(name, '0', "x") + tar_end())), 0, dir_ / "segment-0");
  EXPECT_EQ(refused.find('\x1b'), std::string::npos) << refused;
  EXPECT_EQ(refused.find('\x07'), std::string::npos) << refused;
  EXPECT_NE(refused.find("segment-0x\\x1b[2J\\x1b]0;pwned\\x07/f"), std::string::npos) << refused;
  const std::string link = unpack(
      pod_log(0, gzip(tar_member("segment-0/\x1b[31mred", '2') + tar_end())), 0, dir_ / "b");
  EXPECT_NE(link.find("segment-0/\\x1b[31mred"), std::string::npos) << link;
}

}  // namespace
}  // namespace proofload::k8s
