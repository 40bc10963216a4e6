// A regular expression a user wrote and a server's bytes are matched against (checks, extraction):
// RE2, which runs in time linear in the text and never backtracks, so no pattern and no body can
// stall a worker (`(a+)+$` on a megabyte answers in milliseconds). RE2 syntax: Perl-like, without
// backreferences and lookaround; what it cannot express is refused when the scenario is loaded.
// Immutable after compile(); copies share one compiled program; thread-safe to match.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace proofload::workload {

class Pattern {
 public:
  // Throws UsageError "invalid regular expression 'P': why" (one line).
  static Pattern compile(const std::string& text);

  // Whether it matches anywhere in `text`.
  bool search(std::string_view text) const;
  // The first match's capture group `group` (0: the whole match) into `out`; false when there is
  // no match or the group took no part in it. Allocates only by growing `out`.
  bool search_group(std::string_view text, int group, std::string& out) const;
  int groups() const;  // capture groups, not counting the whole match

 private:
  std::shared_ptr<const re2::RE2> re_;
};

}  // namespace proofload::workload
