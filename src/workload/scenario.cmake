# Scenario files (scenario_yaml.h): YAML in, the validated Scenario model out, every mistake one
# line with file:line:column. Data files, checks, extractions and thresholds are checked with the
# parsers the engine and the analysis use.
add_library(pl_workload_scenario
  ${CMAKE_CURRENT_LIST_DIR}/scenario.cc
  ${CMAKE_CURRENT_LIST_DIR}/scenario_yaml.cc
  ${CMAKE_CURRENT_LIST_DIR}/scenario_yaml_parts.cc
  ${CMAKE_CURRENT_LIST_DIR}/scenario_yaml_data.cc)
target_link_libraries(pl_workload_scenario PUBLIC pl_common pl_config pl_schedule pl_http
                      pl_workload_text pl_workload_checks pl_analyze_threshold
                      nlohmann_json::nlohmann_json yaml-cpp)

add_executable(workload_scenario_test ${CMAKE_CURRENT_LIST_DIR}/scenario_yaml_test.cc
               ${CMAKE_CURRENT_LIST_DIR}/scenario_yaml_errors_test.cc)
target_link_libraries(workload_scenario_test PRIVATE pl_workload_scenario GTest::gtest_main)
target_compile_definitions(workload_scenario_test PRIVATE
  PROOFLOAD_SCENARIO_TESTDATA="${CMAKE_CURRENT_LIST_DIR}/testdata"
  PROOFLOAD_EXAMPLES_DIR="${PROJECT_SOURCE_DIR}/examples"
  PROOFLOAD_DOCS_DIR="${PROJECT_SOURCE_DIR}/docs")
gtest_discover_tests(workload_scenario_test)

# Every examples/*.yaml must also satisfy docs/scenario.schema.json (what editors complete from).
# Without python3-jsonschema or python3-yaml the script exits 77: reported skipped, not passed.
add_test(NAME scenario_examples_match_schema
  COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/schema/check_examples.py
          ${PROJECT_SOURCE_DIR}/docs/scenario.schema.json ${PROJECT_SOURCE_DIR}/examples)
set_tests_properties(scenario_examples_match_schema PROPERTIES SKIP_RETURN_CODE 77)
