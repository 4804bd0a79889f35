# Golden error corpus (tests/golden_errors/, written by its gen.py from tests/data files):
#  golden_errors        for every rejection reason, `etprof` exits with the documented code and
#                       prints exactly the expected one-line message (file, offset, field path,
#                       reason) on stderr and nothing on stdout; with -o it leaves no file behind
#  golden_errors_fresh  the committed files and cases.txt are what gen.py writes today
add_test(NAME golden_errors
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_errors.sh ${ETPROF_BIN}
                 ${CMAKE_CURRENT_SOURCE_DIR}/golden_errors)
find_program(ETPROF_PYTHON3 python3)
if(ETPROF_PYTHON3)
  add_test(NAME golden_errors_fresh
           COMMAND ${ETPROF_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/golden_errors/gen.py --check)
endif()
