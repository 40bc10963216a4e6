# A ladder's SLO and its analysis (verdicts, knee, plateau, operating target): pure functions over
# recorded rows, shared by ladder runs, rate searches and `proofload analyze`.
add_library(pl_analyze_ladder slo.cc ladder_analysis.cc)
target_link_libraries(pl_analyze_ladder
  PUBLIC pl_analyze_rows pl_analyze_threshold pl_common nlohmann_json::nlohmann_json
  PRIVATE fmt::fmt)

add_executable(analyze_ladder_test slo_test.cc ladder_analysis_test.cc)
target_link_libraries(analyze_ladder_test PRIVATE pl_analyze_ladder GTest::gtest_main)
gtest_discover_tests(analyze_ladder_test)
