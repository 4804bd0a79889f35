add_executable(test_readers ${CMAKE_SOURCE_DIR}/tests/test_readers.c)
target_link_libraries(test_readers PRIVATE etprof)
target_include_directories(test_readers PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME readers_vs_manifest COMMAND test_readers ${ETPROF_TEST_DATA})
# The ETRecord API (issue 13.1) on a crafted record: lookups, joins, the bracket-aware split.
add_executable(test_etrecord_api ${CMAKE_SOURCE_DIR}/tests/test_etrecord_api.c)
target_link_libraries(test_etrecord_api PRIVATE etprof)
target_include_directories(test_etrecord_api PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME etrecord_api COMMAND test_etrecord_api ${CMAKE_SOURCE_DIR})
