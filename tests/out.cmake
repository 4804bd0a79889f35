# The output layer: jw (JSON writer), out (table formats), outfile (atomic output files, include/etprof_io.h).
add_executable(test_out ${CMAKE_SOURCE_DIR}/tests/test_out.c)
target_link_libraries(test_out PRIVATE etprof)
target_include_directories(test_out PRIVATE ${ETPROF_INTERNAL_INCLUDES} ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME out COMMAND test_out)
# result: the result model (include/etprof_result.h) rendered in every format
add_executable(test_result ${CMAKE_SOURCE_DIR}/tests/test_result.c)
target_link_libraries(test_result PRIVATE etprof)
target_include_directories(test_result PRIVATE ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME result COMMAND test_result)

# figures: the public display layer (include/etprof_figures.h)
add_executable(test_figures ${CMAKE_SOURCE_DIR}/tests/test_figures.c)
target_link_libraries(test_figures PRIVATE etprof)
target_include_directories(test_figures PRIVATE ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME figures COMMAND test_figures)
