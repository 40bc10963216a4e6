// See pattern.h.
#include "workload/pattern.h"

#include <re2/re2.h>

#include <vector>

#include "common/usage_error.h"

namespace proofload::workload {
namespace {

// RE2's budget for one compiled program: a pattern whose automaton needs more is refused (at
// load time) rather than matched slowly.
constexpr int64_t kMaxProgramBytes = 8 << 20;

}  // namespace

Pattern Pattern::compile(const std::string& text) {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(kMaxProgramBytes);
  auto re = std::make_shared<const re2::RE2>(text, options);
  if (!re->ok()) {
    throw UsageError("invalid regular expression '" + text + "': " + re->error() +
                     " (RE2 syntax: no backreferences or lookaround)");
  }
  Pattern pattern;
  pattern.re_ = std::move(re);
  return pattern;
}

bool Pattern::search(std::string_view text) const {
  return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

bool Pattern::search_group(std::string_view text, int group, std::string& out) const {
  // Match writes the whole match and every group up to `group`; a few views on the stack.
  constexpr int kMaxGroups = 16;
  re2::StringPiece found[kMaxGroups + 1];
  std::vector<re2::StringPiece> many;
  re2::StringPiece* submatch = found;
  if (group > kMaxGroups) {
    many.resize(static_cast<size_t>(group) + 1);
    submatch = many.data();
  }
  const re2::StringPiece input(text.data(), text.size());
  if (!re_->Match(input, 0, input.size(), re2::RE2::UNANCHORED, submatch, group + 1)) return false;
  if (submatch[group].data() == nullptr) return false;  // the group took no part in the match
  out.assign(submatch[group].data(), submatch[group].size());
  return true;
}

int Pattern::groups() const { return re_->NumberOfCapturingGroups(); }

}  // namespace proofload::workload
