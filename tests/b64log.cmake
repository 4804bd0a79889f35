# ETDumps from a serial log (issue 14.3): logs made from corpus dumps give the same ops JSON as
# the dumps; truncated and corrupt base64 give the exact located error (docs/formats.md).
add_test(NAME b64log COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_b64log.py
         ${ETPROF_BIN} ${ETPROF_TEST_DATA})
# the decoder under the fuzz contract: every prefix, inverted byte and clobbered word of a log
add_test(NAME fuzz_mutate_b64log
         COMMAND fuzz_b64log_replay --mutate ${CMAKE_SOURCE_DIR}/fuzz/corpus/b64log/add_pte_1x.log)
set_tests_properties(fuzz_mutate_b64log PROPERTIES TIMEOUT 600)
# the runner's Ethos-U PMU report in the same log (etprof_arm_pmu.h): every form of its lines
add_executable(test_arm_pmu ${CMAKE_SOURCE_DIR}/tests/test_arm_pmu.c)
target_link_libraries(test_arm_pmu PRIVATE etprof m)
target_include_directories(test_arm_pmu PRIVATE ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME arm_pmu COMMAND test_arm_pmu)
