# Samplers from /proc: the generator itself (self), a process (pid:N, pidfile:PATH) and the host
# (folded into CMakeLists.txt once the observers' parts have landed).
add_library(pl_observe_proc proc_stat.cc process_sampler.cc host_sampler.cc)
target_link_libraries(pl_observe_proc PUBLIC pl_common)

add_executable(observe_proc_test proc_stat_test.cc process_sampler_test.cc host_sampler_test.cc)
target_link_libraries(observe_proc_test PRIVATE pl_observe_proc GTest::gtest_main)
target_compile_definitions(observe_proc_test PRIVATE
  PL_PROC_TESTDATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/testdata/proc")
gtest_discover_tests(observe_proc_test)
