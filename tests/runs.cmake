# `etprof runs` and `ops --by type` (issue 14.1): per-run values against flatc's decode of the
# corpus QNN 10-run dump, flags on dumps built by flatc with a known slow run and a known drift.
add_test(NAME runs_view COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_runs.py
         ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${CMAKE_SOURCE_DIR}/schema)
set_tests_properties(runs_view PROPERTIES SKIP_RETURN_CODE 77)
# Backend decoders (issue 14.2): XNNPACK inferred without --pte, inner sum vs DELEGATE_CALL, metadata
# as text; a flatc-built fixture and the real XNNPACK dump of ../shared (skipped when absent).
add_test(NAME backends_decoded COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_backends.py
         ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${ETPROF_SHARED})
# Several dumps at once and summary by operator type (issue 14.1): the multi-file analysis of two
# corpus dumps equals each file's single analysis (ops, ops --by type, runs, summary, report
# frames byte for byte); summary's op types equal regex-grouped sums over the ops rows.
add_test(NAME multi_files COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_multi.py
         ${ETPROF_BIN} ${ETPROF_TEST_DATA})
# Each backend decoder (src/analyze/backends/*.c, issue 14.2) on its flatc-built fixture (Core ML ANE share,
# Vulkan dispatches per operator, Neutron profiling-dump overhead, VGF base64 blobs; expected values
# computed from the fixture JSON in the test) and Ethos-U on the real dumps against flatc's decode.
add_test(NAME backend_decoders COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_backend_decoders.py
         ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${CMAKE_SOURCE_DIR}/schema)
set_tests_properties(backend_decoders PROPERTIES SKIP_RETURN_CODE 77)
# LLM generation sessions (issue 33.1): `etprof session` on dumps built here with flatc from the
# corpus's real prefill_forward and kv_forward blocks; TTFT, prefill/decode tokens/s, token
# latency, slowest steps and each phase's split against flatc's decode by hand; an ambiguous
# session said in every format; Python Profile.session() equals the command's JSON.
add_test(NAME session_view COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_session.py
         ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${CMAKE_SOURCE_DIR}/schema ${ETPROF_PY_LIB})
set_tests_properties(session_view PROPERTIES SKIP_RETURN_CODE 77)
