// Secrets named in a scenario (${env:NAME}, ${file:PATH}): resolved once, while the run is being
// configured, and remembered, so that any text can be redacted before it is written to a result,
// a report, a log or an error message. Resolving (env, file) is for the configuring thread only;
// once configuration is over the store is read-only and redact() may be called from any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace proofload::workload {

// A secret file is a token or a password, read up to this size.
constexpr int64_t kMaxSecretFileBytes = int64_t{64} << 10;

class SecretStore {
 public:
  using GetenvFn = std::function<std::optional<std::string>(const std::string&)>;

  // Environment lookup is injectable for tests; an empty function reads the process environment.
  explicit SecretStore(GetenvFn getenv_fn = {});

  // The value of environment variable `name`. Throws UsageError "secret ${env:NAME} is not set"
  // (never a value). The reference stays valid as long as the store.
  const std::string& env(const std::string& name);
  // The content of the file at `path`, with ONE trailing "\n" or "\r\n" removed (editors add
  // one; a token never ends with it). Throws UsageError "cannot read secret file 'PATH': reason".
  // A relative PATH is taken from `base_dir` when one was set (the scenario file's directory,
  // as for data files), else from the current directory.
  const std::string& file(const std::string& path);
  void set_base_dir(std::filesystem::path base_dir) { base_dir_ = std::move(base_dir); }

  // `text` with every occurrence of every resolved secret value replaced by "[redacted]".
  // Overlapping or adjacent occurrences become a single "[redacted]", so no fragment of a secret
  // survives; empty values are ignored. Only exact bytes are found: a secret written after
  // encoding (percent-encoded, base64) is not.
  std::string redact(std::string_view text) const;

  // No non-empty secret was resolved: redact() returns its text unchanged.
  bool empty() const;

 private:
  void remember(const std::string& value);

  GetenvFn getenv_fn_;
  std::filesystem::path base_dir_;
  // std::map: references handed out stay valid as entries are added.
  std::map<std::string, std::string, std::less<>> env_values_;
  std::map<std::string, std::string, std::less<>> file_values_;
  std::vector<std::string> values_;  // distinct non-empty values, longest first
};

}  // namespace proofload::workload
