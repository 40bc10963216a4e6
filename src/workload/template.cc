// Template scanning, compiling and rendering. See template.h.
#include "workload/template.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "workload/secrets.h"

namespace proofload::workload {

namespace {

constexpr std::string_view kEnvPrefix = "env:";
constexpr std::string_view kFilePrefix = "file:";

std::string at_offset(size_t offset) { return " at offset " + std::to_string(offset); }

// Walks `text` once: calls on_literal(bytes) for literal text (escapes undone) and
// on_reference(reference) for each ${...}, in order. Throws TemplateError on a malformed one.
template <typename OnLiteral, typename OnReference>
void tokenize(std::string_view text, OnLiteral&& on_literal, OnReference&& on_reference) {
  size_t literal_start = 0;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$') {
      ++i;
      continue;
    }
    if (text.substr(i).starts_with("$${")) {
      // The escape: emit what came before and the "${", drop the first '$'.
      on_literal(text.substr(literal_start, i - literal_start));
      on_literal(std::string_view("${"));
      i += 3;
      literal_start = i;
      continue;
    }
    if (!text.substr(i).starts_with("${")) {
      ++i;
      continue;
    }
    const size_t open = i;
    const size_t close = text.find('}', open + 2);
    if (close == std::string_view::npos) {
      throw TemplateError(
          "unterminated '${'" + at_offset(open) + " (a literal '${' is written '$${')", open);
    }
    const std::string_view inside = text.substr(open + 2, close - open - 2);
    TemplateReference reference{TemplateReference::Kind::kVariable, std::string(), open};
    if (inside.empty()) throw TemplateError("empty reference '${}'" + at_offset(open), open);
    if (inside.starts_with(kEnvPrefix)) {
      const std::string_view name = inside.substr(kEnvPrefix.size());
      if (name.empty()) {
        throw TemplateError("empty name in '${env:}'" + at_offset(open), open);
      }
      if (!is_variable_name(name)) {
        throw TemplateError("invalid environment variable name '" + std::string(name) + "'" +
                                at_offset(open) + ": use letters, digits and '_'",
                            open);
      }
      reference.kind = TemplateReference::Kind::kEnvSecret;
      reference.name = name;
    } else if (inside.starts_with(kFilePrefix)) {
      const std::string_view path = inside.substr(kFilePrefix.size());
      if (path.empty()) throw TemplateError("empty path in '${file:}'" + at_offset(open), open);
      reference.kind = TemplateReference::Kind::kFileSecret;
      reference.name = path;
    } else if (const size_t colon = inside.find(':'); colon != std::string_view::npos) {
      // Only the prefix is quoted: whatever follows it could be something the user meant to
      // keep out of logs.
      throw TemplateError("unknown prefix '" + std::string(inside.substr(0, colon + 1)) + "'" +
                              at_offset(open) + ": use ${name}, ${env:NAME} or ${file:PATH}",
                          open);
    } else if (!is_variable_name(inside)) {
      throw TemplateError("invalid variable name '" + std::string(inside) + "'" + at_offset(open) +
                              ": use letters, digits and '_', not starting with a digit",
                          open);
    } else {
      reference.name = inside;
    }
    on_literal(text.substr(literal_start, open - literal_start));
    on_reference(std::move(reference));
    i = close + 1;
    literal_start = i;
  }
  on_literal(text.substr(literal_start));
}

}  // namespace

bool is_variable_name(std::string_view name) {
  auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (name.empty() || !letter(name.front())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return letter(c) || digit(c); });
}

std::vector<TemplateReference> scan_template(std::string_view text) {
  std::vector<TemplateReference> references;
  tokenize(
      text, [](std::string_view) {},
      [&](TemplateReference reference) { references.push_back(std::move(reference)); });
  return references;
}

int VariableTable::add(std::string_view name) {
  if (const int existing = slot_of(name); existing >= 0) return existing;
  names_.emplace_back(name);
  return static_cast<int>(names_.size() - 1);
}

int VariableTable::slot_of(std::string_view name) const {
  // A linear search: a scenario has a handful of variables, and this runs at compile time only.
  const auto found = std::find(names_.begin(), names_.end(), name);
  return found == names_.end() ? -1 : static_cast<int>(found - names_.begin());
}

size_t VariableTable::size() const { return names_.size(); }

const std::string& VariableTable::name(int slot) const {
  return names_.at(static_cast<size_t>(slot));
}

Template Template::compile(std::string_view text, const VariableTable& variables,
                           SecretStore& secrets) {
  Template compiled;
  // Appends literal bytes, growing the last piece when it is literal too, so that a secret
  // between two literals costs nothing at render time.
  auto add_literal = [&](std::string_view bytes) {
    if (bytes.empty()) return;
    if (compiled.pieces_.empty() || compiled.pieces_.back().slot >= 0) {
      compiled.pieces_.push_back(Piece{-1, compiled.literal_.size(), 0});
    }
    compiled.literal_.append(bytes);
    compiled.pieces_.back().size += bytes.size();
  };
  tokenize(text, add_literal, [&](TemplateReference reference) {
    switch (reference.kind) {
      case TemplateReference::Kind::kEnvSecret:
        add_literal(secrets.env(reference.name));
        compiled.holds_secret_ = true;
        return;
      case TemplateReference::Kind::kFileSecret:
        add_literal(secrets.file(reference.name));
        compiled.holds_secret_ = true;
        return;
      case TemplateReference::Kind::kVariable:
        break;
    }
    const int slot = variables.slot_of(reference.name);
    if (slot < 0) {
      throw TemplateError("variable '" + reference.name + "' is used but never defined",
                          reference.offset);
    }
    compiled.pieces_.push_back(Piece{slot, 0, 0});
    if (std::find(compiled.slots_.begin(), compiled.slots_.end(), slot) == compiled.slots_.end()) {
      compiled.slots_.push_back(slot);
    }
  });
  return compiled;
}

void Template::render_append(std::string& out, std::span<const std::string> values) const {
  for (const Piece& piece : pieces_) {
    if (piece.slot < 0) {
      out.append(literal_, piece.offset, piece.size);
    } else {
      assert(static_cast<size_t>(piece.slot) < values.size());
      out.append(values[static_cast<size_t>(piece.slot)]);
    }
  }
}

size_t Template::rendered_size(std::span<const std::string> values) const {
  size_t size = 0;
  for (const Piece& piece : pieces_) {
    size += piece.slot < 0 ? piece.size : values[static_cast<size_t>(piece.slot)].size();
  }
  return size;
}

bool Template::is_literal() const { return slots_.empty(); }

const std::vector<int>& Template::slots() const { return slots_; }

bool Template::holds_secret() const { return holds_secret_; }

}  // namespace proofload::workload
