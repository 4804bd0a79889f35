# The `etprof qnn` command and the QNN file options of ops/tree/explain (tests/test_qnn_cli.sh).
# qnn_cli always runs (fixtures in tests/data/qnn-fixtures, the stories260k QNN ETDump);
# qnn_cli_real reads the unlicensed real samples in place from ${ETPROF_SHARED}/corpus/qnn and
# is skipped (exit 77) when they are absent.
add_test(NAME qnn_cli
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/test_qnn_cli.sh ${ETPROF_BIN} ${ETPROF_TEST_DATA}
                 fixtures)
add_test(NAME qnn_cli_real
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/test_qnn_cli.sh ${ETPROF_BIN} ${ETPROF_TEST_DATA}
                 real ${ETPROF_SHARED})
set_tests_properties(qnn_cli_real PROPERTIES SKIP_RETURN_CODE 77)
