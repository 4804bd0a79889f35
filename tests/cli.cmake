add_test(NAME cli_basic COMMAND sh ${CMAKE_SOURCE_DIR}/tests/cli_basic.sh ${ETPROF_BIN} ${ETPROF_TEST_DATA})
# Names holding NUL bytes (issue 16.1): escaped in every view, never re-measured with strlen.
add_test(NAME nul_names COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_nul_names.py ${ETPROF_BIN} ${ETPROF_TEST_DATA})
# Command-line conventions and narrow tables (issue 11.6).
add_test(NAME cli_conventions COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_cli_conventions.py ${ETPROF_BIN} ${ETPROF_TEST_DATA})
add_test(NAME program_check COMMAND bash ${CMAKE_SOURCE_DIR}/tests/test_program_check.sh ${ETPROF_BIN} ${ETPROF_TEST_DATA})
add_test(NAME method_ambiguity COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_method_ambiguity.py ${ETPROF_BIN} ${ETPROF_TEST_DATA})
add_test(NAME sink_mode COMMAND sh ${CMAKE_SOURCE_DIR}/tests/test_sink_mode.sh ${ETPROF_BIN} ${ETPROF_TEST_DATA})
# Method-only profiling (issue 10.4): dumps derived at test time with flatc from committed ones.
add_test(NAME method_only COMMAND bash ${CMAKE_SOURCE_DIR}/tests/test_method_only.sh ${ETPROF_BIN}
                                  ${ETPROF_TEST_DATA} ${CMAKE_SOURCE_DIR}/schema)
set_tests_properties(method_only PROPERTIES SKIP_RETURN_CODE 77)
# Methods of the same structure told apart by logged tensor shapes and delegate blobs (issue 10.2).
add_test(NAME method_signals COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_method_signals.py
                                     ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${CMAKE_SOURCE_DIR}/schema)
set_tests_properties(method_signals PROPERTIES SKIP_RETURN_CODE 77)
# One located message and exit 3 for every failed write; quiet end on a closed pipe (issues 16.3, 16.4).
add_test(NAME write_errors COMMAND bash ${CMAKE_SOURCE_DIR}/tests/test_write_errors.sh ${ETPROF_BIN} ${ETPROF_TEST_DATA})
set_tests_properties(write_errors PROPERTIES SKIP_RETURN_CODE 77)
# CSV/TSV formula-injection prefix and --csv-raw (issue 16.4); builds its dump with flatc.
find_program(ETPROF_CSVINJ_FLATC flatc)
add_test(NAME csv_injection COMMAND bash ${CMAKE_SOURCE_DIR}/tests/test_csv_injection.sh ${ETPROF_BIN} ${CMAKE_SOURCE_DIR} ${ETPROF_CSVINJ_FLATC})
set_tests_properties(csv_injection PROPERTIES SKIP_RETURN_CODE 77)
# ETRecord reader, info on a record, ops --etrecord, the QNN by-name join (issue 13.1).
add_test(NAME etrecord COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_etrecord.py ${ETPROF_BIN} ${ETPROF_TEST_DATA})
# formats_agree: table/md/csv/tsv/jsonl/json of one run carry the same values (issue 11.2)
add_test(NAME formats_agree COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_formats_agree.py ${ETPROF_BIN} ${ETPROF_TEST_DATA})
# release_json: JSON and CSV of every command equal release 0.1.0's (tests/data/release-0.1.0/)
add_test(NAME release_json COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_release_json.py ${ETPROF_BIN} ${ETPROF_TEST_DATA})
# figures_agree: one value per figure in every view and format (issue 31): placement, shares,
# p50/total, run numbers and the method label compared across ops, summary, tree, report,
# runs and trace; the five past disagreements against flatc and hand calculations
add_test(NAME figures_agree COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_figures_agree.py ${ETPROF_BIN} ${CMAKE_SOURCE_DIR})
set_tests_properties(figures_agree PROPERTIES LABELS "cli;flatc")
