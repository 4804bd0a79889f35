# The Python package (docs/python.md): pytest (Debian's python3-pytest) over python/tests with
# PYTHONPATH at the module built into BUILD/python. Skipped (77) when pytest is not installed.
if(ETPROF_PYTHON)
  find_program(ETPROF_FLATC flatc)
  add_test(NAME python
           COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${ETPROF_PY_LIB} PYTHONDONTWRITEBYTECODE=1
                   ETPROF_BIN=${ETPROF_BIN} ETPROF_TEST_DATA=${ETPROF_TEST_DATA}
                   ETPROF_SCHEMA_DIR=${CMAKE_SOURCE_DIR}/schema
                   ETPROF_FUZZ_CORPUS=${CMAKE_SOURCE_DIR}/fuzz/corpus/etdump
                   ETPROF_FLATC=${ETPROF_FLATC}
                   ${ETPROF_PY_EXE} ${CMAKE_SOURCE_DIR}/python/tests/run.py
                   ${CMAKE_SOURCE_DIR}/python/tests)
  set_tests_properties(python PROPERTIES LABELS python SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
