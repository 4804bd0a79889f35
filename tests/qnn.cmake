# QNN deep data (src/qnn*.c): fixtures in tests/data/qnn-fixtures, real samples in ../shared.
add_executable(test_qnn ${CMAKE_SOURCE_DIR}/tests/test_qnn.c)
target_link_libraries(test_qnn PRIVATE etprof)
target_include_directories(test_qnn PRIVATE ${ETPROF_INTERNAL_INCLUDES} ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME qnn COMMAND test_qnn ${CMAKE_SOURCE_DIR}/tests/data/qnn-fixtures)
# The real QAIRT samples have no licence: they are read in place, never copied. Exit 77 = skip.
add_test(NAME qnn_real COMMAND test_qnn --real ${ETPROF_SHARED}/corpus/qnn)
set_tests_properties(qnn_real PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME qnn_viewer_real COMMAND test_qnn --viewer-real ${ETPROF_SHARED}/corpus/external/qnn-viewer)
set_tests_properties(qnn_viewer_real PROPERTIES SKIP_RETURN_CODE 77)
# The public QNN analyses (include/etprof_qnn.h): critical path, HMX/HVX/DMA op counts, viewer sums,
# on hand-made fixtures whose answers are computed by hand in the test's comments.
add_executable(test_qnn_api ${CMAKE_SOURCE_DIR}/tests/test_qnn_api.c)
target_link_libraries(test_qnn_api PRIVATE etprof m)
target_include_directories(test_qnn_api PRIVATE ${ETPROF_INTERNAL_INCLUDES} ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME qnn_api COMMAND test_qnn_api ${CMAKE_SOURCE_DIR}/tests/data/qnn-fixtures)
# The SoC the QNN delegates were compiled for (the program's qnn_compile_spec): the real program
# decoded by flatc with a schema of the spec's first table, crafted programs built with flatc.
add_test(NAME compile_specs COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_compile_specs.py
         ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${CMAKE_SOURCE_DIR}/schema)
set_tests_properties(compile_specs PROPERTIES SKIP_RETURN_CODE 77)
