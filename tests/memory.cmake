# The memory bound as an enforced property (issue 16.2): large and hostile inputs are generated at
# test time into the build dir; peak RSS per command is measured (docs/verifier.md, "Memory").
set(ETPROF_MEM_TMP ${CMAKE_BINARY_DIR}/tests-memory)
add_test(NAME memory_sniff COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_memory_bounds.py
         sniff ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${ETPROF_MEM_TMP}/sniff ${ETPROF_SANITIZE})
