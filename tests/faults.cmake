# Faults around -o and the one-line rule (issue 35): symbolic links, RLIMIT_FSIZE (SIGXFSZ),
# long file names, -o naming an input, tensors validated before anything is written.
add_test(NAME output_faults COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_output_faults.py
         ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${CMAKE_BINARY_DIR}/tests-output-faults)
