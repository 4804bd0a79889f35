# Issue 33: the run history (SQLite) and the fleet export. test_fleet: SHA-256 against FIPS 180-4's
# vectors, the bare-sample diff test by hand, labels. cli_history / cli_export: the commands end to
# end on etprof-gen dumps (checked against sha256sum, Python's sqlite3 and numpy-free hand
# statistics). fleet_clickhouse: the export loaded into Debian's clickhouse-server, its quantiles
# against etprof's per-file figures (skipped when clickhouse-server is not installed).
add_executable(test_fleet ${CMAKE_SOURCE_DIR}/tests/test_fleet.c)
target_link_libraries(test_fleet PRIVATE etprof)
target_include_directories(test_fleet PRIVATE ${ETPROF_INTERNAL_INCLUDES} ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME fleet_units COMMAND test_fleet)
if(TARGET etprof-gen)
  add_test(NAME cli_history
           COMMAND sh ${CMAKE_SOURCE_DIR}/tests/test_history.sh ${ETPROF_BIN} $<TARGET_FILE:etprof-gen>
                   ${ETPROF_PYTHON3})
  set_tests_properties(cli_history PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  add_test(NAME cli_export
           COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_export.py ${ETPROF_BIN}
                   $<TARGET_FILE:etprof-gen>)
  set_tests_properties(cli_export PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  add_test(NAME fleet_clickhouse
           COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_clickhouse.py ${ETPROF_BIN}
                   $<TARGET_FILE:etprof-gen>)
  set_tests_properties(fleet_clickhouse PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
