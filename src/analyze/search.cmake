# The rate search, abort rules and level tables: pure parts of `ladder --search`, `--abort-when`
# and `analyze FILE.csv`, each tested on simulated or recorded data.
add_library(pl_analyze_search rate_search.cc abort_rule.cc level_table.cc)
target_link_libraries(pl_analyze_search PUBLIC pl_analyze_rows pl_analyze_threshold pl_common
                                        PRIVATE pl_schedule fmt::fmt)

add_executable(analyze_search_test rate_search_test.cc abort_rule_test.cc level_table_test.cc)
target_link_libraries(analyze_search_test PRIVATE pl_analyze_search GTest::gtest_main)
gtest_discover_tests(analyze_search_test)
