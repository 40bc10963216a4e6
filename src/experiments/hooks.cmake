# What a ladder runs between levels: hooks (shell commands in their own process group), the drain
# gate and the HTTP probe behind it and the pre-check. Included from CMakeLists.txt.
add_library(pl_experiments_hooks hooks.cc drain_gate.cc http_probe.cc)
target_link_libraries(pl_experiments_hooks PUBLIC pl_common pl_http pl_engine fmt::fmt)

add_executable(experiments_hooks_test hooks_test.cc drain_gate_test.cc http_probe_test.cc)
target_link_libraries(experiments_hooks_test PRIVATE pl_experiments_hooks GTest::gtest_main
                      Threads::Threads)
gtest_discover_tests(experiments_hooks_test)
