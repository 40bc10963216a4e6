// Test support: the stub kubectl (testdata/k8s/kubectl) first on PATH, with a plan of answers in a
// temporary directory. Environment variables are process-wide: one StubKubectl at a time, in a
// single-threaded test; the destructor puts PATH back and removes the directory.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace proofload::observe::testing {

class StubKubectl {
 public:
  StubKubectl() {
    char pattern[] = "/tmp/pl_k8s_test_XXXXXX";
    dir_ = mkdtemp(pattern);
    // A copy made executable here, so the test does not depend on the file mode git kept.
    std::filesystem::create_directory(bin());
    std::filesystem::copy_file(std::string(PL_K8S_TESTDATA_DIR) + "/kubectl", bin() + "/kubectl");
    std::filesystem::permissions(bin() + "/kubectl", std::filesystem::perms::owner_all);
    const char* path = getenv("PATH");
    old_path_ = path != nullptr ? path : "";
    setenv("PATH", (bin() + ":" + old_path_).c_str(), 1);
    setenv("PL_KUBECTL_STUB_DIR", dir_.c_str(), 1);
    setenv("PL_KUBECTL_STUB_DATA", PL_K8S_TESTDATA_DIR, 1);
  }
  ~StubKubectl() {
    setenv("PATH", old_path_.c_str(), 1);
    unsetenv("PL_KUBECTL_STUB_DIR");
    unsetenv("PL_KUBECTL_STUB_DATA");
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  StubKubectl(const StubKubectl&) = delete;
  StubKubectl& operator=(const StubKubectl&) = delete;

  // The answers to `kubectl get` (and `kubectl top`), one a call: "file ready.json",
  // "fail 1 error: ...", "hang", "text ..." (see the stub). The creation's check is the first.
  void plan_get(const std::vector<std::string>& answers) { write("get.plan", answers); }
  void plan_top(const std::vector<std::string>& answers) { write("top.plan", answers); }

  // Each call's arguments, a line a call.
  std::vector<std::string> calls() const {
    std::ifstream in(dir_ + "/calls");
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
  std::string bin() const { return dir_ + "/bin"; }
  const std::string& dir() const { return dir_; }
  std::string kubectl() const { return bin() + "/kubectl"; }

 private:
  void write(const std::string& name, const std::vector<std::string>& answers) {
    std::ofstream out(dir_ + "/" + name);
    for (const std::string& answer : answers) out << answer << "\n";
  }

  std::string dir_;
  std::string old_path_;
};

}  // namespace proofload::observe::testing
