# Response checks and variable extraction (check.h, extract.h), compiled once from the scenario
# and run on the engine's thread after each response.
add_library(pl_workload_checks
  ${CMAKE_CURRENT_LIST_DIR}/check.cc
  ${CMAKE_CURRENT_LIST_DIR}/extract.cc
  ${CMAKE_CURRENT_LIST_DIR}/json_body.cc)
target_link_libraries(pl_workload_checks PUBLIC pl_common nlohmann_json::nlohmann_json)

add_executable(workload_checks_test
  ${CMAKE_CURRENT_LIST_DIR}/check_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/extract_test.cc)
target_link_libraries(workload_checks_test PRIVATE pl_workload_checks GTest::gtest_main)
gtest_discover_tests(workload_checks_test)
