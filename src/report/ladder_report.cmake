# pl_report_ladder: a ladder's summary.md and levels.csv, rendered from its result.json alone
# (so `proofload report DIR` renders the same bytes again).
add_library(pl_report_ladder
  ladder_data.cc
  ladder_report.cc
  ladder_sections.cc
  ladder_text.cc)
target_link_libraries(pl_report_ladder PUBLIC pl_report nlohmann_json::nlohmann_json fmt::fmt)

add_executable(report_ladder_test ladder_report_test.cc test_fixtures.cc)
target_link_libraries(report_ladder_test PRIVATE pl_report_ladder GTest::gtest_main)
target_compile_definitions(report_ladder_test PRIVATE
  PL_REPORT_TESTDATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/testdata")
gtest_discover_tests(report_ladder_test)
