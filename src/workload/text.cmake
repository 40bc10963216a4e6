# Request templates, secrets and data variables: the text of requests (folded into
# CMakeLists.txt once the workload's parts have landed).
add_library(pl_workload_text ${CMAKE_CURRENT_SOURCE_DIR}/template.cc
            ${CMAKE_CURRENT_SOURCE_DIR}/secrets.cc ${CMAKE_CURRENT_SOURCE_DIR}/data_source.cc
            ${CMAKE_CURRENT_SOURCE_DIR}/default_words.cc)
target_link_libraries(pl_workload_text PUBLIC pl_common)

add_executable(workload_text_test ${CMAKE_CURRENT_SOURCE_DIR}/template_test.cc
               ${CMAKE_CURRENT_SOURCE_DIR}/secrets_test.cc
               ${CMAKE_CURRENT_SOURCE_DIR}/data_source_test.cc)
target_link_libraries(workload_text_test PRIVATE pl_workload_text GTest::gtest_main)
gtest_discover_tests(workload_text_test)
