// The report's recorded ladder files (src/report/testdata/ladder), as the result tests read them.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace proofload::result::testing {

inline nlohmann::json recorded(const std::string& name) {
  std::ifstream in(std::string(PL_LADDER_TESTDATA_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

}  // namespace proofload::result::testing
