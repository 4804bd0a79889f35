add_test(NAME cli_basic COMMAND sh ${CMAKE_SOURCE_DIR}/tests/cli_basic.sh ${ETPROF_BIN} ${ETPROF_TEST_DATA})
