// Secrets: resolution at configuration time and redaction. See secrets.h.
#include "workload/secrets.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "common/file_text.h"
#include "common/usage_error.h"

namespace proofload::workload {

namespace {

std::optional<std::string> process_getenv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// A secret goes into a header or a URL as it is: a CR or LF there would start a header of its
// own (injection), a NUL would end the head early. A secret is one line.
void refuse_line_breaks(const std::string& value, const std::string& which) {
  if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
    throw UsageError("secret " + which + " holds a line break or NUL: a secret must be one line");
  }
}

}  // namespace

SecretStore::SecretStore(GetenvFn getenv_fn)
    : getenv_fn_(getenv_fn ? std::move(getenv_fn) : GetenvFn(process_getenv)) {}

const std::string& SecretStore::env(const std::string& name) {
  if (auto found = env_values_.find(name); found != env_values_.end()) return found->second;
  std::optional<std::string> value = getenv_fn_(name);
  if (!value) throw UsageError("secret ${env:" + name + "} is not set");
  refuse_line_breaks(*value, "${env:" + name + "}");
  remember(*value);
  return env_values_.emplace(name, std::move(*value)).first->second;
}

const std::string& SecretStore::file(const std::string& path) {
  if (auto found = file_values_.find(path); found != file_values_.end()) return found->second;
  // The reason read_bounded_file gives comes from errno, never from the content.
  std::string content = read_bounded_file(
      base_dir_.empty() || std::filesystem::path(path).is_absolute() ? path
                                                                     : (base_dir_ / path).string(),
      "secret file", kMaxSecretFileBytes);
  if (content.ends_with("\r\n")) {
    content.resize(content.size() - 2);
  } else if (content.ends_with('\n')) {
    content.pop_back();
  }
  refuse_line_breaks(content, "${file:" + path + "} (one trailing newline is dropped)");
  remember(content);
  return file_values_.emplace(path, std::move(content)).first->second;
}

void SecretStore::remember(const std::string& value) {
  if (value.empty() || std::find(values_.begin(), values_.end(), value) != values_.end()) return;
  values_.push_back(value);
  std::stable_sort(values_.begin(), values_.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::string SecretStore::redact(std::string_view text) const {
  // Mark every byte covered by an occurrence of any secret (overlaps included), then replace
  // each maximal covered run with one marker: replacing secret by secret could leave a
  // fragment of one that overlapped another, or find a secret inside an earlier "[redacted]".
  std::vector<bool> covered;
  for (const std::string& value : values_) {
    for (size_t at = text.find(value); at != std::string_view::npos;
         at = text.find(value, at + 1)) {
      if (covered.empty()) covered.assign(text.size(), false);
      std::fill(covered.begin() + static_cast<ptrdiff_t>(at),
                covered.begin() + static_cast<ptrdiff_t>(at + value.size()), true);
    }
  }
  if (covered.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (!covered[i]) {
      out.push_back(text[i++]);
      continue;
    }
    out += "[redacted]";
    while (i < text.size() && covered[i]) ++i;
  }
  return out;
}

bool SecretStore::empty() const { return values_.empty(); }

}  // namespace proofload::workload
