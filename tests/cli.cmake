add_test(NAME cli_basic COMMAND sh ${CMAKE_SOURCE_DIR}/tests/cli_basic.sh ${ETPROF_BIN} ${ETPROF_TEST_DATA})
# Names holding NUL bytes (issue 16.1): escaped in every view, never re-measured with strlen.
add_test(NAME nul_names COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_nul_names.py ${ETPROF_BIN} ${ETPROF_TEST_DATA})
# Command-line conventions and narrow tables (issue 11.6).
add_test(NAME cli_conventions COMMAND bash ${CMAKE_SOURCE_DIR}/tests/test_cli_conventions.sh ${ETPROF_BIN} ${ETPROF_TEST_DATA})
add_test(NAME program_check COMMAND bash ${CMAKE_SOURCE_DIR}/tests/test_program_check.sh ${ETPROF_BIN} ${ETPROF_TEST_DATA})
add_test(NAME method_ambiguity COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_method_ambiguity.py ${ETPROF_BIN} ${ETPROF_TEST_DATA})
add_test(NAME sink_mode COMMAND sh ${CMAKE_SOURCE_DIR}/tests/test_sink_mode.sh ${ETPROF_BIN} ${ETPROF_TEST_DATA})
