// Secrets: resolution at configuration time and redaction. See secrets.h.
#include "workload/secrets.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "common/usage_error.h"
#include "workload/data_source.h"

namespace proofload::workload {

namespace {

std::optional<std::string> process_getenv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace

SecretStore::SecretStore(GetenvFn getenv_fn)
    : getenv_fn_(getenv_fn ? std::move(getenv_fn) : GetenvFn(process_getenv)) {}

const std::string& SecretStore::env(const std::string& name) {
  if (auto found = env_values_.find(name); found != env_values_.end()) return found->second;
  std::optional<std::string> value = getenv_fn_(name);
  if (!value) throw UsageError("secret ${env:" + name + "} is not set");
  remember(*value);
  return env_values_.emplace(name, std::move(*value)).first->second;
}

const std::string& SecretStore::file(const std::string& path) {
  if (auto found = file_values_.find(path); found != file_values_.end()) return found->second;
  // The reason read_text_file gives comes from errno, never from the content.
  std::string content = read_text_file(
      base_dir_.empty() || std::filesystem::path(path).is_absolute() ? path
                                                                     : (base_dir_ / path).string(),
      "secret file");
  if (content.ends_with("\r\n")) {
    content.resize(content.size() - 2);
  } else if (content.ends_with('\n')) {
    content.pop_back();
  }
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
