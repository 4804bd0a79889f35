# bench/etprof-gen: generated ETDumps decoded by a second decoder (Debian's flatc) and checked
# with jq. Skipped (exit 77) when flatc or jq is not installed.
if(TARGET etprof-gen)
  add_test(NAME gen COMMAND sh ${CMAKE_SOURCE_DIR}/tests/test_gen.sh $<TARGET_FILE:etprof-gen> ${CMAKE_SOURCE_DIR}/schema)
  set_tests_properties(gen PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
