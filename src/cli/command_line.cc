// See command_line.h.
#include "cli/command_line.h"

namespace proofload::cli {
namespace {

std::string g_command_line;

}  // namespace

std::string shell_quote(const std::string& arg) {
  bool plain = !arg.empty() && arg.find_first_not_of(
                                   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   "0123456789-_./:=,@%+") == std::string::npos;
  if (plain) return arg;
  std::string quoted = "'";
  for (char c : arg) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

void remember_command_line(int argc, char** argv) {
  g_command_line = "proofload";
  for (int i = 1; i < argc; ++i) g_command_line += " " + shell_quote(argv[i]);
}

const std::string& command_line() { return g_command_line; }

}  // namespace proofload::cli
