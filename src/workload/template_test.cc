// Template scanning, compiling and rendering, as the scenario parser and the engine use them.
// This file also counts the test binary's heap allocations (a replaced global operator new), so
// that the hot-path tests here and in data_source_test.cc can assert that none happen.
#include "workload/template.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "workload/secrets.h"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

long allocations_so_far() { return g_allocations.load(std::memory_order_relaxed); }

// Every plain and nothrow form, so that each allocation pairs with a matching deallocation
// (AddressSanitizer checks); the aligned forms stay the library's, with their own deletes.
namespace {
void* counted_malloc(size_t size) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
}  // namespace

void* operator new(size_t size) {
  if (void* memory = counted_malloc(size)) return memory;
  throw std::bad_alloc();
}
void* operator new[](size_t size) {
  if (void* memory = counted_malloc(size)) return memory;
  throw std::bad_alloc();
}
void* operator new(size_t size, const std::nothrow_t&) noexcept { return counted_malloc(size); }
void* operator new[](size_t size, const std::nothrow_t&) noexcept { return counted_malloc(size); }
// GCC 12 at -O3 inlines these into std::allocator and then sees free() on memory it believes came
// from the builtin operator new; both sides here are malloc/free, so the warning is wrong.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete[](void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, size_t) noexcept { std::free(memory); }
void operator delete[](void* memory, size_t) noexcept { std::free(memory); }
void operator delete(void* memory, const std::nothrow_t&) noexcept { std::free(memory); }
void operator delete[](void* memory, const std::nothrow_t&) noexcept { std::free(memory); }
#pragma GCC diagnostic pop

namespace proofload::workload {
namespace {

using Kind = TemplateReference::Kind;

SecretStore fake_secrets() {
  return SecretStore([](const std::string& name) -> std::optional<std::string> {
    if (name == "TOKEN") return "s3cr3t-token";
    return std::nullopt;
  });
}

// The TemplateError scanning `text` throws (fails the test if none).
TemplateError scan_error(const std::string& text) {
  try {
    scan_template(text);
  } catch (const TemplateError& error) {
    return error;
  }
  ADD_FAILURE() << "no error for " << text;
  return TemplateError("", 0);
}

TEST(ScanTemplate, FindsVariablesAndSecretsWithTheirOffsets) {
  const auto references = scan_template("/a/${word}?t=${env:API_TOKEN}&k=${file:/run/key.txt}");
  ASSERT_EQ(references.size(), 3u);
  EXPECT_EQ(references[0].kind, Kind::kVariable);
  EXPECT_EQ(references[0].name, "word");
  EXPECT_EQ(references[0].offset, 3u);
  EXPECT_EQ(references[1].kind, Kind::kEnvSecret);
  EXPECT_EQ(references[1].name, "API_TOKEN");
  EXPECT_EQ(references[1].offset, 13u);
  EXPECT_EQ(references[2].kind, Kind::kFileSecret);
  EXPECT_EQ(references[2].name, "/run/key.txt");
  EXPECT_EQ(references[2].offset, 32u);
}

TEST(ScanTemplate, DollarSignsThatStartNoReferenceAreText) {
  EXPECT_TRUE(scan_template("price: $5, $$, $ {x} and {y}").empty());
  EXPECT_TRUE(scan_template("$${not_a_reference}").empty());
  EXPECT_TRUE(scan_template("").empty());
}

TEST(ScanTemplate, ErrorsSayWhatAndWhere) {
  TemplateError unterminated = scan_error("/a/${word");
  EXPECT_EQ(unterminated.offset(), 3u);
  EXPECT_NE(std::string(unterminated.what()).find("unterminated '${' at offset 3"),
            std::string::npos)
      << unterminated.what();

  TemplateError empty = scan_error("x${}");
  EXPECT_EQ(empty.offset(), 1u);
  EXPECT_NE(std::string(empty.what()).find("empty"), std::string::npos);

  for (const char* bad : {"${1st}", "${a-b}", "${ word }", "${a.b}"}) {
    TemplateError invalid = scan_error(bad);
    EXPECT_EQ(invalid.offset(), 0u) << bad;
    EXPECT_NE(std::string(invalid.what()).find("invalid variable name"), std::string::npos)
        << invalid.what();
  }

  EXPECT_EQ(scan_error("ab${env:}").offset(), 2u);
  EXPECT_EQ(scan_error("${env:BAD-NAME}").offset(), 0u);
  EXPECT_EQ(scan_error("${file:}").offset(), 0u);

  TemplateError prefix = scan_error("q=${vault:hunter2}");
  EXPECT_EQ(prefix.offset(), 2u);
  const std::string message = prefix.what();
  EXPECT_NE(message.find("unknown prefix 'vault:' at offset 2"), std::string::npos) << message;
  EXPECT_EQ(message.find("hunter2"), std::string::npos) << "the text after the prefix leaked";
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(TemplateCompile, EscapeRendersALiteralDollarBrace) {
  VariableTable variables;
  variables.add("x");
  SecretStore secrets = fake_secrets();
  const Template escaped = Template::compile("a $${x} b ${x} $$ $5", variables, secrets);
  std::string out;
  const std::vector<std::string> values = {"X"};
  escaped.render_append(out, values);
  EXPECT_EQ(out, "a ${x} b X $$ $5");
}

TEST(TemplateCompile, UnknownVariableIsAnErrorAtItsOffset) {
  VariableTable variables;
  variables.add("word");
  SecretStore secrets = fake_secrets();
  try {
    Template::compile("/q=${word}&id=${id}", variables, secrets);
    FAIL() << "no error";
  } catch (const TemplateError& error) {
    EXPECT_STREQ(error.what(), "variable 'id' is used but never defined");
    EXPECT_EQ(error.offset(), 14u);
  }
}

TEST(TemplateCompile, MissingSecretIsAUsageError) {
  VariableTable variables;
  SecretStore secrets = fake_secrets();
  EXPECT_THROW(Template::compile("Bearer ${env:NOPE}", variables, secrets), UsageError);
}

TEST(TemplateRender, LiteralTextRendersAsWritten) {
  VariableTable variables;
  SecretStore secrets = fake_secrets();
  const Template literal = Template::compile("/health?full=1", variables, secrets);
  EXPECT_TRUE(literal.is_literal());
  EXPECT_FALSE(literal.holds_secret());
  std::string out = "GET ";
  literal.render_append(out, {});
  EXPECT_EQ(out, "GET /health?full=1");
  EXPECT_EQ(literal.rendered_size({}), 14u);

  std::string empty;
  Template().render_append(empty, {});
  EXPECT_EQ(empty, "");
}

TEST(TemplateRender, VariablesTakeTheirSlotsValues) {
  VariableTable variables;
  const int id = variables.add("id");
  const int word = variables.add("word");
  EXPECT_EQ(variables.add("id"), id);
  EXPECT_EQ(variables.slot_of("word"), word);
  EXPECT_EQ(variables.slot_of("nope"), -1);
  EXPECT_EQ(variables.size(), 2u);
  EXPECT_EQ(variables.name(word), "word");

  SecretStore secrets = fake_secrets();
  const Template path = Template::compile("/s/${word}?id=${id}&again=${word}", variables, secrets);
  EXPECT_FALSE(path.is_literal());
  EXPECT_EQ(path.slots(), (std::vector<int>{word, id}));

  std::vector<std::string> values(2);
  values[static_cast<size_t>(id)] = "42";
  values[static_cast<size_t>(word)] = "kudzu";
  std::string out;
  path.render_append(out, values);
  EXPECT_EQ(out, "/s/kudzu?id=42&again=kudzu");
  EXPECT_EQ(path.rendered_size(values), out.size());

  // Adjacent references and a reference alone.
  const Template both = Template::compile("${id}${word}", variables, secrets);
  out.clear();
  both.render_append(out, values);
  EXPECT_EQ(out, "42kudzu");
}

TEST(TemplateRender, SecretsAreResolvedAtCompileTime) {
  VariableTable variables;
  const int user = variables.add("user");
  SecretStore secrets = fake_secrets();
  const Template header = Template::compile("Bearer ${env:TOKEN}", variables, secrets);
  EXPECT_TRUE(header.is_literal());
  EXPECT_TRUE(header.holds_secret());
  std::string out;
  header.render_append(out, {});
  EXPECT_EQ(out, "Bearer s3cr3t-token");

  const Template mixed = Template::compile("u=${user}&t=${env:TOKEN}!", variables, secrets);
  EXPECT_TRUE(mixed.holds_secret());
  EXPECT_FALSE(mixed.is_literal());
  std::vector<std::string> values(1);
  values[static_cast<size_t>(user)] = "ann";
  out.clear();
  mixed.render_append(out, values);
  EXPECT_EQ(out, "u=ann&t=s3cr3t-token!");
  EXPECT_EQ(mixed.rendered_size(values), out.size());
  EXPECT_EQ(secrets.redact(out), "u=ann&t=[redacted]!");
}

TEST(TemplateRender, DoesNotAllocateOnceTheBufferIsBigEnough) {
  VariableTable variables;
  variables.add("word");
  variables.add("id");
  SecretStore secrets = fake_secrets();
  const Template path =
      Template::compile("/sic/description?q=${word}&id=${id}&t=${env:TOKEN}", variables, secrets);
  const std::vector<std::string> values = {"anchovies", "1234567890"};
  std::string out;
  out.reserve(256);
  const char* const buffer = out.data();
  const long allocations_before = allocations_so_far();
  for (int i = 0; i < 1000; ++i) {
    out.clear();
    path.render_append(out, values);
  }
  EXPECT_EQ(allocations_so_far() - allocations_before, 0);
  EXPECT_EQ(out.data(), buffer);
  EXPECT_EQ(out, "/sic/description?q=anchovies&id=1234567890&t=s3cr3t-token");
}

}  // namespace
}  // namespace proofload::workload
