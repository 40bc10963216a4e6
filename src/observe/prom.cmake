# The `prom:URL` observer: the Prometheus text format parser and the endpoint sampler.
add_library(pl_observe_prom
  ${CMAKE_CURRENT_LIST_DIR}/prom_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/prom_sampler.cc)
target_link_libraries(pl_observe_prom PUBLIC pl_common PRIVATE pl_http)
target_compile_definitions(pl_observe_prom PRIVATE PROOFLOAD_VERSION="${PROJECT_VERSION}")

# The sampler's tests start the real proofload binary (`serve --profile demo`) and Debian's
# prometheus-node-exporter (skipped when it is not installed) on loopback ports.
add_executable(observe_prom_test
  ${CMAKE_CURRENT_LIST_DIR}/prom_text_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/prom_sampler_test.cc)
target_link_libraries(observe_prom_test PRIVATE pl_observe_prom pl_test_support Threads::Threads
                      GTest::gtest_main)
target_compile_definitions(observe_prom_test PRIVATE
  PROOFLOAD_PROM_TESTDATA="${CMAKE_CURRENT_LIST_DIR}/testdata/prom")
add_dependencies(observe_prom_test proofload)
gtest_discover_tests(observe_prom_test PROPERTIES TIMEOUT 60)
