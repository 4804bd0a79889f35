# The memory bound as an enforced property (issue 16.2): large and hostile inputs are generated at
# test time into the build dir; peak RSS per command is measured (docs/verifier.md, "Memory").
set(ETPROF_MEM_TMP ${CMAKE_BINARY_DIR}/tests-memory)
add_test(NAME memory_sniff COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_memory_bounds.py
         sniff ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${ETPROF_MEM_TMP}/sniff ${ETPROF_SANITIZE})
add_test(NAME memory_shared_tables COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_memory_bounds.py
         shared ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${ETPROF_MEM_TMP}/shared ${ETPROF_SANITIZE})
add_test(NAME memory_qnn_json COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_memory_bounds.py
         qnn_json ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${ETPROF_MEM_TMP}/qnn ${ETPROF_SANITIZE})
# The large-file cases under `ulimit -v` (RLIMIT_AS = file + 256 MiB; skipped under sanitizers).
add_test(NAME memory_ulimit COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_memory_bounds.py
         ulimit ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${ETPROF_MEM_TMP}/ulimit ${ETPROF_SANITIZE})
set_tests_properties(memory_ulimit PROPERTIES SKIP_RETURN_CODE 77)
# QNN inputs sniffed as text before they are read: devices and binaries rejected at once (16.2).
add_test(NAME memory_qnn_sniff COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_qnn_sniff.py
                               ${ETPROF_BIN} ${ETPROF_TEST_DATA})
# One large legitimate block (1M events, generated at test time) and blocks near the process
# budget's thresholds: every command within file + 64 MiB or refused with a located line (16.2).
if(TARGET etprof-gen)
  add_test(NAME memory_block COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_memory_bounds.py
           block ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${ETPROF_MEM_TMP}/block ${ETPROF_SANITIZE}
           $<TARGET_FILE:etprof-gen>)
endif()
# A text stream as a QNN JSON file: refused while it is read, not after its end (16.2).
add_test(NAME memory_qnn_stream COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_memory_bounds.py
         qnn_stream ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${ETPROF_MEM_TMP}/qnn_stream ${ETPROF_SANITIZE})
# Issue 35: ETRecord JSON entries within the budget (zip bombs made with python's zipfile), per-run
# state over run_data entries sharing one RunData table, a program of 10^6 methods, and side
# inputs (--debug-buffer, --runner-log) from a device or pipe: within the inputs + 64 MiB, or one
# located refusal, and no -o file left.
foreach(c etrecord shared_runs methods side_inputs)
  add_test(NAME memory_${c} COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_memory_bounds.py
           ${c} ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${ETPROF_MEM_TMP}/${c} ${ETPROF_SANITIZE})
endforeach()
