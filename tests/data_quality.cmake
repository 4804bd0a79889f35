# Data that used to be dropped or hidden without a word (issue 10.5): blocks not named
# "Execute", events that end before they start, delegate events with a name and an id
# (tests/test_data_quality.py on tests/data/flatc-built/odd_blocks.etdp).
if(ETPROF_PYTHON3)
  add_test(NAME data_quality
           COMMAND ${ETPROF_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_data_quality.py
                   ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${CMAKE_SOURCE_DIR}/schema)
endif()
# A clock that did not run (0 at both ends, or the minimal PAL's constant) is said in every view
# (tests/test_no_clock.py: dumps rewritten with flatc).
if(ETPROF_PYTHON3)
  add_test(NAME no_clock
           COMMAND ${ETPROF_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_no_clock.py
                   ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${CMAKE_SOURCE_DIR}/schema)
  set_tests_properties(no_clock PROPERTIES SKIP_RETURN_CODE 77)
endif()
