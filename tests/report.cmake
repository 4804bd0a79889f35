# etprof report (docs/report.md): the self-contained HTML report.
#  - report_static: every corpus dump's report is self-contained and well-formed, deterministic,
#    escapes hostile strings, honours its options and fails cleanly (tests/test_report.sh static);
#  - report_browser_*: headless Chromium (Debian's chromium, scripts/install-deps.sh --test) loads
#    a report: key numbers computed from the raw events are in the DOM, no console errors, table
#    sorting works, the screenshot is not blank (tests/report_check.py). Exit 77 = skipped when
#    chromium or the shared QNN samples (../shared/corpus/qnn) are missing.
find_program(ETPROF_PYTHON3 python3)
if(NOT ETPROF_PYTHON3)
  message(WARNING "python3 not found: the report tests are not registered")
  return()
endif()

set(_report_sh ${CMAKE_SOURCE_DIR}/tests/test_report.sh)
set(_report_tmp ${CMAKE_CURRENT_BINARY_DIR}/report-tmp)

add_test(NAME report_static
         COMMAND bash ${_report_sh} static ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${_report_tmp})
set_tests_properties(report_static PROPERTIES ENVIRONMENT "PYTHON3=${ETPROF_PYTHON3}" TIMEOUT 300)

foreach(_case ethosu qnn qnn-join qnn-shared)
  add_test(NAME report_browser_${_case}
           COMMAND bash ${_report_sh} browser ${_case} ${ETPROF_BIN} ${ETPROF_TEST_DATA}
                   ${ETPROF_SHARED} ${_report_tmp})
  set_tests_properties(report_browser_${_case} PROPERTIES
                       ENVIRONMENT "PYTHON3=${ETPROF_PYTHON3}" SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
