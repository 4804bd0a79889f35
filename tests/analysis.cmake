# The analyses (issue 3): per-op statistics, hierarchy, placement, units; the ops/tree/summary/
# explain commands in every format.
add_executable(test_analysis ${CMAKE_SOURCE_DIR}/tests/test_analysis.c)
target_link_libraries(test_analysis PRIVATE etprof)
target_include_directories(test_analysis PRIVATE ${ETPROF_INTERNAL_INCLUDES} ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME analysis COMMAND test_analysis ${ETPROF_TEST_DATA})
add_test(NAME cli_analysis
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/cli_analysis.sh ${ETPROF_BIN} ${ETPROF_TEST_DATA})
# explain's findings as library facts (issue 11.1)
add_executable(test_explain ${CMAKE_SOURCE_DIR}/tests/test_explain.c)
target_link_libraries(test_explain PRIVATE etprof)
target_include_directories(test_explain PRIVATE ${ETPROF_INTERNAL_INCLUDES} ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME explain_facts COMMAND test_explain ${ETPROF_TEST_DATA})
# The two-thread passes (src/model/pair_int.h; ops and the census): byte-identical to the one-thread pass on
# every test dump and on generated dumps of every style (ETPROF_THREADS=1 vs 2).
if(TARGET etprof-gen)
  add_test(NAME threads_identical
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/test_threads_identical.sh ${ETPROF_BIN}
                   $<TARGET_FILE:etprof-gen> ${ETPROF_TEST_DATA})
  set_tests_properties(threads_identical PROPERTIES TIMEOUT 900)
endif()
