# Thresholds: parsed at configuration time, evaluated over the caller's metrics at the end of a run.
add_library(pl_analyze_threshold threshold.cc)
# measure/outcome.h is header-only (the outcome names); pl_common's include root reaches it.
target_link_libraries(pl_analyze_threshold PUBLIC pl_common PRIVATE pl_schedule fmt::fmt)

add_executable(analyze_threshold_test threshold_test.cc)
target_link_libraries(analyze_threshold_test PRIVATE pl_analyze_threshold GTest::gtest_main)
gtest_discover_tests(analyze_threshold_test)
