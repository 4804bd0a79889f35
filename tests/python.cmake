# The Python package (docs/python.md): pytest (Debian's python3-pytest) over python/tests with
# PYTHONPATH at the module built into BUILD/python. Skipped (77) when pytest is not installed.
if(ETPROF_PYTHON)
  find_program(ETPROF_FLATC flatc)
  # Sanitizer builds: the runtime is preloaded into the interpreter (the command the tests run
  # is given the environment without it). Leak detection is off for this process only: CPython
  # does not free its own objects at exit, and its frames have no frame pointers, so its leaks
  # cannot be told from ours; the RSS / tracemalloc bounds of the normal build watch ours.
  set(_etp_san "")
  if(ETPROF_SANITIZE)
    string(REPLACE ";" ":" _etp_pre "${ETPROF_PY_PRELOAD}")
    set(_etp_san LD_PRELOAD=${_etp_pre} ETPROF_SANITIZED=1
        ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1)
  endif()
  add_test(NAME python
           COMMAND ${CMAKE_COMMAND} -E env ${_etp_san} PYTHONPATH=${ETPROF_PY_LIB} PYTHONDONTWRITEBYTECODE=1
                   ETPROF_BIN=${ETPROF_BIN} ETPROF_TEST_DATA=${ETPROF_TEST_DATA}
                   ETPROF_SCHEMA_DIR=${CMAKE_SOURCE_DIR}/schema
                   ETPROF_FUZZ_CORPUS=${CMAKE_SOURCE_DIR}/fuzz/corpus/etdump
                   ETPROF_FLATC=${ETPROF_FLATC}
                   ${ETPROF_PY_EXE} ${CMAKE_SOURCE_DIR}/python/tests/run.py
                   ${CMAKE_SOURCE_DIR}/python/tests)
  set_tests_properties(python PROPERTIES LABELS python SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
# The package as a Python user installs it (docs/python.md): `pip install ./python` into a fresh
# venv and with --target, offline, the library compiled into the module (tests/python_pip.sh).
# Not under ETPROF_SANITIZE (an uninstrumented pip build) nor without pip/venv (skipped, 77).
if(ETPROF_PY_EXE AND NOT ETPROF_SANITIZE AND NOT ETPROF_FUZZ)
  add_test(NAME python_pip COMMAND sh ${CMAKE_SOURCE_DIR}/tests/python_pip.sh ${CMAKE_SOURCE_DIR}
                                   ${ETPROF_PY_EXE})
  set_tests_properties(python_pip PROPERTIES LABELS "python;install" SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
