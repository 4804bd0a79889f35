# Flags against the evidence, files read as their runtime reads them (issue 36; tests/test_trust.py).
if(ETPROF_PYTHON3)
  add_test(NAME trust COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_trust.py
                              ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${CMAKE_SOURCE_DIR}/schema)
  set_tests_properties(trust PROPERTIES SKIP_RETURN_CODE 77)
endif()
