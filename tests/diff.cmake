# etprof diff (issue 6): the Mann-Whitney U test, Benjamini-Hochberg q-values and the matching
# against hand-computed values and corpus dumps (test_diff), and the command end to end on
# generated dumps with a known injected slowdown, corpus dumps and the Ethos-U placement change
# (test_diff.sh; needs jq and the etprof-gen generator).
add_executable(test_diff ${CMAKE_SOURCE_DIR}/tests/test_diff.c)
target_link_libraries(test_diff PRIVATE etprof)
target_include_directories(test_diff PRIVATE ${ETPROF_INTERNAL_INCLUDES} ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME diff_stats COMMAND test_diff ${ETPROF_TEST_DATA})
if(TARGET etprof-gen)
  add_test(NAME cli_diff
           COMMAND sh ${CMAKE_SOURCE_DIR}/tests/test_diff.sh ${ETPROF_BIN} ${ETPROF_TEST_DATA}
                   $<TARGET_FILE:etprof-gen>)
  set_tests_properties(cli_diff PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
