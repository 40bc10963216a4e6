// The recorded ladder results the report tests render (testdata/ladder/NAME.json).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace proofload::report::testing_support {

inline nlohmann::json load_ladder(const std::string& name) {
  std::ifstream in(std::string(PL_REPORT_TESTDATA_DIR) + "/ladder/" + name + ".json");
  EXPECT_TRUE(in.good()) << name;
  return nlohmann::json::parse(in);
}

}  // namespace proofload::report::testing_support
