// Request templates ("/sic/description?q=${word}", header values, bodies): scanned and compiled
// once at configuration time into literal pieces and variable slots; rendered on the engine's
// hot path for every request, without allocating beyond the caller's reused output buffer.
// A compiled Template is immutable and may be rendered from any number of threads at once.
//
// Syntax: ${name} is a variable (data or extracted), ${env:NAME} and ${file:PATH} are secrets,
// resolved at compile time; "$${" is a literal "${". Any other '$' is literal.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/usage_error.h"

namespace proofload::workload {

// A mistake in a template's text, with where it is so the caller can point at the column.
class TemplateError : public UsageError {
 public:
  TemplateError(const std::string& message, size_t offset) : UsageError(message), offset_(offset) {}
  size_t offset() const { return offset_; }  // byte offset of the "${" concerned in the text

 private:
  size_t offset_;
};

// A reference found in a template's text.
struct TemplateReference {
  enum class Kind { kVariable, kEnvSecret, kFileSecret };
  Kind kind;
  std::string name;  // variable name, environment variable name, or file path
  size_t offset;     // byte offset of "${" in the text (for error columns)
};

// Scans text for ${name}, ${env:NAME}, ${file:PATH}. "$${" is a literal "${" (escape). Variable
// and environment names: [A-Za-z_][A-Za-z0-9_]*; a path is anything up to the next '}'. Throws
// TemplateError (a UsageError: one line, "... at offset N", without any secret value) for an
// unterminated "${", an empty or invalid name, or an unknown prefix ("${foo:bar}").
std::vector<TemplateReference> scan_template(std::string_view text);

// Whether `name` is a legal variable name ([A-Za-z_][A-Za-z0-9_]*), for the parser's checks of
// data and extraction names.
bool is_variable_name(std::string_view name);

// Variable name -> slot, fixed at compile time. Slots are 0, 1, 2, ... in order of addition.
class VariableTable {
 public:
  int add(std::string_view name);            // returns the slot (existing one if already added)
  int slot_of(std::string_view name) const;  // -1 when unknown
  size_t size() const;
  const std::string& name(int slot) const;

 private:
  std::vector<std::string> names_;
};

class SecretStore;  // secrets.h

class Template {
 public:
  Template() = default;  // the empty text

  // Compiles text: literal pieces, variable slots, and secrets resolved NOW through `secrets`
  // (their bytes become part of the literal pieces; the template remembers it holds a secret).
  // Throws UsageError for scan errors and, as a TemplateError at the reference's offset, for a
  // variable not in `variables`: "variable 'x' is used but never defined" (the caller prefixes
  // the file location). Secret errors come from SecretStore.
  static Template compile(std::string_view text, const VariableTable& variables,
                          SecretStore& secrets);

  // Appends the rendered text to `out`: literal pieces and values[slot] for each variable.
  // `values` must have an entry for every slot used (size() > max of slots()).
  // No allocation when out.capacity() suffices.
  void render_append(std::string& out, std::span<const std::string> values) const;
  // The number of bytes render_append would append.
  size_t rendered_size(std::span<const std::string> values) const;

  bool is_literal() const;                // no variables: render once and reuse
  const std::vector<int>& slots() const;  // variable slots used, in order of first use
  // Some bytes came from a secret: the rendered text must never be written anywhere but the
  // wire (redact it with SecretStore::redact otherwise).
  bool holds_secret() const;

 private:
  // One piece of the output: a slice of literal_ (slot < 0) or the value of a variable.
  struct Piece {
    int slot;
    size_t offset;  // in literal_, when slot < 0
    size_t size;    // when slot < 0
  };

  std::string literal_;  // every literal piece, secrets resolved, escapes undone, end to end
  std::vector<Piece> pieces_;
  std::vector<int> slots_;
  bool holds_secret_ = false;
};

}  // namespace proofload::workload
