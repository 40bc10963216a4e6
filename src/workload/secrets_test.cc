// Secrets: resolution from the environment and from files, and redaction of their values.
#include "workload/secrets.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "common/usage_error.h"

namespace proofload::workload {
namespace {

SecretStore store_with(std::map<std::string, std::string> environment, int* lookups = nullptr) {
  return SecretStore([environment, lookups](const std::string& name) -> std::optional<std::string> {
    if (lookups != nullptr) ++*lookups;
    const auto found = environment.find(name);
    if (found == environment.end()) return std::nullopt;
    return found->second;
  });
}

// A file in the test's temporary directory holding exactly `content`.
std::string write_secret_file(const std::string& name, const std::string& content) {
  const std::string path = testing::TempDir() + "secrets_test_" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

// The message of the UsageError `action` throws (fails the test if none).
template <typename Action>
std::string usage_error_of(Action&& action) {
  try {
    action();
  } catch (const UsageError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no UsageError";
  return "";
}

TEST(SecretStore, ReadsTheEnvironmentOnce) {
  int lookups = 0;
  SecretStore secrets = store_with({{"TOKEN", "abc123"}}, &lookups);
  EXPECT_TRUE(secrets.empty());
  const std::string& value = secrets.env("TOKEN");
  EXPECT_EQ(value, "abc123");
  EXPECT_EQ(&secrets.env("TOKEN"), &value);
  EXPECT_EQ(lookups, 1);
  EXPECT_FALSE(secrets.empty());
}

TEST(SecretStore, DefaultLookupReadsTheProcessEnvironment) {
  ::setenv("PROOFLOAD_SECRETS_TEST_VAR", "from-env", 1);
  SecretStore secrets;
  EXPECT_EQ(secrets.env("PROOFLOAD_SECRETS_TEST_VAR"), "from-env");
  ::unsetenv("PROOFLOAD_SECRETS_TEST_VAR");
}

TEST(SecretStore, MissingVariableErrorNamesItButShowsNoValue) {
  SecretStore secrets = store_with({{"TOKEN", "abc123"}});
  secrets.env("TOKEN");
  const std::string message = usage_error_of([&] { secrets.env("OTHER_TOKEN"); });
  EXPECT_EQ(message, "secret ${env:OTHER_TOKEN} is not set");
  EXPECT_EQ(message.find("abc123"), std::string::npos);
}

TEST(SecretStore, FileLosesOneTrailingNewline) {
  SecretStore secrets = store_with({});
  EXPECT_EQ(secrets.file(write_secret_file("lf", "tok-lf\n")), "tok-lf");
  EXPECT_EQ(secrets.file(write_secret_file("crlf", "tok-crlf\r\n")), "tok-crlf");
  EXPECT_EQ(secrets.file(write_secret_file("none", "tok-none")), "tok-none");
}

// A CR or LF left in a secret would be sent as a header line of its own (injection).
TEST(SecretStore, ASecretWithALineBreakLeftInItIsRefusedWithoutItsValue) {
  SecretStore secrets = store_with({{"CRLF", "tok\r\nX-Injected: 1"}});
  const std::string two = write_secret_file("two", "tok-two\n\n");
  EXPECT_EQ(usage_error_of([&] { secrets.file(two); }),
            "secret ${file:" + two +
                "} (one trailing newline is dropped) holds a line break or NUL: a secret must be "
                "one line");
  const std::string inner =
      usage_error_of([&] { secrets.file(write_secret_file("inner", "ab\rcd\n")); });
  EXPECT_NE(inner.find("holds a line break"), std::string::npos);
  EXPECT_EQ(inner.find('\r'), std::string::npos);  // no byte of the value
  const std::string env = usage_error_of([&] { secrets.env("CRLF"); });
  EXPECT_EQ(env, "secret ${env:CRLF} holds a line break or NUL: a secret must be one line");
  EXPECT_EQ(secrets.redact("tok"), "tok");  // nothing refused was remembered as sent
}

TEST(SecretStore, ASecretFileIsReadUpTo64KiB) {
  SecretStore secrets = store_with({});
  EXPECT_EQ(secrets.file(write_secret_file("big", std::string(64 << 10, 'k'))).size(), 64u << 10);
  const std::string larger = write_secret_file("larger", std::string((64 << 10) + 1, 'k'));
  EXPECT_EQ(usage_error_of([&] { secrets.file(larger); }),
            "secret file '" + larger + "' is larger than 64 KiB");
}

TEST(SecretStore, RelativeFileIsTakenFromTheBaseDirectory) {
  write_secret_file("relative", "tok-relative\n");
  SecretStore secrets;
  secrets.set_base_dir(testing::TempDir());
  EXPECT_EQ(secrets.file("secrets_test_relative"), "tok-relative");
}

TEST(SecretStore, UnreadableFileErrorGivesPathAndReason) {
  SecretStore secrets = store_with({});
  const std::string missing = testing::TempDir() + "secrets_test_does_not_exist";
  EXPECT_EQ(usage_error_of([&] { secrets.file(missing); }),
            "cannot read secret file '" + missing + "': No such file or directory");
  const std::string directory = testing::TempDir();
  EXPECT_NE(usage_error_of([&] { secrets.file(directory); }).find("it is a directory"),
            std::string::npos);
}

TEST(SecretStore, RedactReplacesEveryOccurrenceAndLeavesTheRest) {
  SecretStore secrets = store_with({{"SHORT", "abc"}, {"LONG", "abcdef"}, {"EMPTY", ""}});
  secrets.env("SHORT");
  secrets.env("LONG");
  secrets.env("EMPTY");
  secrets.file(write_secret_file("redact", "p4ss\n"));
  EXPECT_EQ(secrets.redact("GET /x?t=abcdef&u=abc HTTP/1.1 abc"),
            "GET /x?t=[redacted]&u=[redacted] HTTP/1.1 [redacted]");
  EXPECT_EQ(secrets.redact("password=p4ss;p4ssp4ss"), "password=[redacted];[redacted]");
  EXPECT_EQ(secrets.redact("nothing secret here, ab cd"), "nothing secret here, ab cd");
  EXPECT_EQ(secrets.redact(""), "");
}

TEST(SecretStore, RedactLeavesNoFragmentOfOverlappingSecrets) {
  SecretStore secrets = store_with({{"A", "abc"}, {"B", "bcd"}, {"R", "red"}});
  secrets.env("A");
  secrets.env("B");
  secrets.env("R");
  EXPECT_EQ(secrets.redact("xabcdx"), "x[redacted]x");
  EXPECT_EQ(secrets.redact("aaabcabc"), "aa[redacted]");
  // The marker itself contains "red": it must not be redacted again.
  EXPECT_EQ(secrets.redact("red abc"), "[redacted] [redacted]");
}

TEST(SecretStore, EmptyValuesAreNothingToRedact) {
  SecretStore secrets = store_with({{"EMPTY", ""}});
  EXPECT_EQ(secrets.env("EMPTY"), "");
  EXPECT_TRUE(secrets.empty());
  EXPECT_EQ(secrets.redact("text"), "text");
}

}  // namespace
}  // namespace proofload::workload
