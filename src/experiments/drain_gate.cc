// See drain_gate.h. Waiting between tries is a sleep in short slices so that a cancel (Ctrl-C
// during a ladder) is seen within milliseconds.
#include "experiments/drain_gate.h"

#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "common/clock.h"
#include "common/usage_error.h"
#include "experiments/hooks.h"
#include "experiments/http_probe.h"
#include "words/numbers.h"

namespace proofload::experiments {

namespace {

constexpr int64_t kCancelCheckNs = 10 * kNsPerMs;

struct TryOutcome {
  bool drained = false;
  bool cancelled = false;
  std::string answer;
};

// A drain URL's answer is read up to this much: a status document, not a payload.
constexpr size_t kMaxConditionBodyBytes = 256 * 1024;

TryOutcome try_url(const DrainUrl& target, int64_t left_ns, int64_t every_ns,
                   const net::TlsOptions& trust) {
  const int64_t budget_ns = std::clamp(left_ns, kDrainMinTryNs, std::max(every_ns, kDrainMinTryNs));
  const ProbeAnswer answer =
      http_get(target.url, budget_ns, target.condition ? kMaxConditionBodyBytes : 0, trust);
  const bool ok = answer.status && *answer.status >= 200 && *answer.status < 300;
  if (!ok || !target.condition) return {ok, false, answer.text()};
  std::string seen;
  const bool holds = target.condition->holds(answer.body, seen);
  return {holds, false,
          answer.text() + ", " + target.condition->pointer + " = " + seen +
              (holds ? "" : " (waiting for " + target.condition->text + ")")};
}

// The operator at the start of `text`, longest first.
std::string_view operator_at(std::string_view text) {
  for (std::string_view op : {"==", "!=", "<=", ">=", "<", ">"}) {
    if (text.substr(0, op.size()) == op) return op;
  }
  return {};
}

TryOutcome try_command(const std::string& command, int64_t left_ns,
                       const std::filesystem::path& output_file, const std::atomic<bool>* cancel) {
  const HookResult hook =
      run_hook("drain", command, std::max(left_ns, kDrainMinTryNs), output_file, {}, cancel);
  return {hook.ok(), hook.cancelled, hook.describe()};
}

void append_line(const std::filesystem::path& output_file, const std::string& line) {
  std::error_code ignored;
  if (output_file.has_parent_path()) {
    std::filesystem::create_directories(output_file.parent_path(), ignored);
  }
  std::ofstream out(output_file, std::ios::app | std::ios::binary);
  out << line;
  out.flush();
  if (!out) {
    throw std::runtime_error("cannot write the drain log '" + output_file.string() +
                             "': " + std::strerror(errno));
  }
}

bool is_cancelled(const std::atomic<bool>* cancel) { return cancel != nullptr && cancel->load(); }

// Sleeps until `until_ns` (monotonic); returns false early if *cancel becomes true.
bool wait_until(int64_t until_ns, const std::atomic<bool>* cancel) {
  while (true) {
    if (is_cancelled(cancel)) return false;
    const int64_t left_ns = until_ns - monotonic_ns();
    if (left_ns <= 0) return true;
    const int64_t slice_ns = std::min(left_ns, kCancelCheckNs);
    timespec pause{0, static_cast<long>(slice_ns)};
    nanosleep(&pause, nullptr);
  }
}

std::string attempts_text(int attempts) {
  return fmt::format("{} attempt{}", attempts, attempts == 1 ? "" : "s");
}

}  // namespace

DrainUrl parse_drain_url(const std::string& until) {
  const size_t hash = until.find('#');
  DrainUrl out{until.substr(0, hash), std::nullopt};
  if (hash == std::string::npos) return out;
  const std::string text = until.substr(hash + 1);
  auto fail = [&](const std::string& why) -> DrainUrl {
    throw UsageError("--drain-until condition '" + text + "': " + why +
                     " (write URL#/pointer==value, like http://host/admin/backlog#/backlog==0)");
  };
  size_t op_at = 0;
  while (op_at < text.size() && operator_at(std::string_view(text).substr(op_at)).empty()) ++op_at;
  if (op_at == text.size()) return fail("no ==, !=, <, <=, > or >=");
  DrainCondition c;
  c.text = text;
  c.pointer = text.substr(0, op_at);
  c.op = std::string(operator_at(std::string_view(text).substr(op_at)));
  const std::string value = text.substr(op_at + c.op.size());
  if (!c.pointer.empty() && c.pointer[0] != '/') return fail("the pointer must start with /");
  try {
    (void)nlohmann::json::json_pointer(c.pointer);
  } catch (const nlohmann::json::exception&) {
    return fail("'" + c.pointer + "' is not a JSON pointer");
  }
  if (value.empty()) return fail("no value after " + c.op);
  // A number, true, false, null or a quoted string is JSON; anything else is a bare string.
  c.value = nlohmann::json::parse(value, nullptr, false);
  if (c.value.is_discarded() || c.value.is_object() || c.value.is_array()) c.value = value;
  if (c.op != "==" && c.op != "!=" && !c.value.is_number()) {
    return fail(c.op + " compares numbers, and '" + value + "' is not one");
  }
  out.condition = std::move(c);
  return out;
}

bool DrainCondition::holds(std::string_view body, std::string& seen) const {
  // Depth-bounded by the body's size limit; a malformed body is "not drained", never a throw.
  const nlohmann::json document = nlohmann::json::parse(body, nullptr, false);
  if (document.is_discarded()) {
    seen = "(not JSON)";
    return false;
  }
  const nlohmann::json::json_pointer where(pointer);
  if (!document.contains(where)) {
    seen = "(missing)";
    return false;
  }
  const nlohmann::json& found = document.at(where);
  seen = found.dump();
  if (seen.size() > 60) seen = seen.substr(0, 57) + "...";
  // nlohmann compares an integer with a float by value: 0 == 0.0.
  if (op == "==") return found == value;
  if (op == "!=") return found != value;
  if (!found.is_number()) return false;
  const double a = found.get<double>();
  const double b = value.get<double>();
  if (op == "<") return a < b;
  if (op == "<=") return a <= b;
  if (op == ">") return a > b;
  return a >= b;
}

std::string DrainResult::describe() const {
  const std::string waited = words::seconds_text(waited_s);
  if (drained) return fmt::format("drained after {} ({})", waited, attempts_text(attempts));
  const std::string last = last_answer.empty() ? "" : "; last: " + last_answer;
  return fmt::format("{} after {} ({}{})", cancelled ? "cancelled" : "not drained", waited,
                     attempts_text(attempts), last);
}

DrainResult wait_until_drained(const std::string& until, int64_t timeout_ns, int64_t every_ns,
                               const std::filesystem::path& output_file,
                               const std::atomic<bool>* cancel, const net::TlsOptions& trust) {
  const bool by_url = is_url(until);
  const DrainUrl target = by_url ? parse_drain_url(until) : DrainUrl{};
  const int64_t start_ns = monotonic_ns();
  const int64_t deadline_ns = start_ns + std::max<int64_t>(timeout_ns, 0);
  DrainResult result;
  while (true) {
    if (is_cancelled(cancel)) {
      result.cancelled = true;
      break;
    }
    const int64_t try_start_ns = monotonic_ns();
    const int64_t left_ns = deadline_ns - try_start_ns;
    ++result.attempts;
    const TryOutcome outcome = by_url ? try_url(target, left_ns, every_ns, trust)
                                      : try_command(until, left_ns, output_file, cancel);
    result.last_answer = outcome.answer;
    append_line(
        output_file,
        fmt::format("try {} at {}: {}\n", result.attempts,
                    words::seconds_text(static_cast<double>(try_start_ns - start_ns) / kNsPerS),
                    outcome.answer));
    if (outcome.drained) {
      result.drained = true;
      break;
    }
    if (outcome.cancelled) {
      result.cancelled = true;
      break;
    }
    if (monotonic_ns() >= deadline_ns) break;
    // The next try, or one last try at the deadline itself when the schedule would skip past it.
    if (!wait_until(std::min(try_start_ns + std::max<int64_t>(every_ns, 0), deadline_ns), cancel)) {
      result.cancelled = true;
      break;
    }
  }
  result.waited_s = static_cast<double>(monotonic_ns() - start_ns) / kNsPerS;
  return result;
}

}  // namespace proofload::experiments
