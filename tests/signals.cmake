# A signal during `report -o` / `trace -o` leaves no temporary file (issue 16.4); uses the
# test-only hook ETPROF_TEST_RAISE_BEFORE_RENAME (docs/cli.md, "Test hooks").
add_test(NAME signal_cleanup COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_signal_cleanup.py
         ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${CMAKE_BINARY_DIR}/tests-signal)
