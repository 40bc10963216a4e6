# cgroup:PATH: a container's CPU, throttling, memory and OOM kills from cgroup v2 or v1 files.
add_library(pl_observe_cgroup
  ${CMAKE_CURRENT_LIST_DIR}/cgroup_files.cc
  ${CMAKE_CURRENT_LIST_DIR}/cgroup_sampler.cc)
target_link_libraries(pl_observe_cgroup PUBLIC pl_common)

# cgroup_real_test.cc creates a real cgroup with a CPU quota; it skips itself (with the reason)
# where it cannot: not root, no v1 cpu controller, read-only cgroup file system.
add_executable(observe_cgroup_test
  ${CMAKE_CURRENT_LIST_DIR}/cgroup_files_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/cgroup_sampler_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/cgroup_real_test.cc)
target_link_libraries(observe_cgroup_test PRIVATE pl_observe_cgroup GTest::gtest_main)
target_compile_definitions(observe_cgroup_test PRIVATE
  PL_CGROUP_TESTDATA_DIR="${CMAKE_CURRENT_LIST_DIR}/testdata/cgroup")
gtest_discover_tests(observe_cgroup_test)
