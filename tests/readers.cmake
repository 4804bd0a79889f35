add_executable(test_readers ${CMAKE_SOURCE_DIR}/tests/test_readers.c)
target_link_libraries(test_readers PRIVATE etprof)
target_include_directories(test_readers PRIVATE ${ETPROF_INTERNAL_INCLUDES} ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME readers_vs_manifest COMMAND test_readers ${ETPROF_TEST_DATA})
# The repeated blocks test_readers expects (check_repeated_blocks), from a second decoder.
if(ETPROF_PYTHON3)
  foreach(case "fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp:8" "real/add_pte_100x.etdp:98"
               "real/module_linear_10x.etdp:8" "real/bundled_program_10x.etdp:8"
               "synthetic/synth_qnn_llm_20x2000.etdp:9" "synthetic/synth_qnn_mixed_small_3x.etdp:0")
    string(REPLACE ":" ";" parts "${case}")
    list(GET parts 0 file)
    list(GET parts 1 count)
    get_filename_component(name "${file}" NAME_WE)
    add_test(NAME repeats_second_decoder_${name}
             COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/tools/count_translated.py
                     ${ETPROF_TEST_DATA}/${file} ${count})
    set_tests_properties(repeats_second_decoder_${name} PROPERTIES LABELS "readers")
  endforeach()
endif()

# etprof tensors: corpus debug buffers vs the MANIFEST, every dtype and strides with flatc-built
# dumps, located errors (docs/cli.md "tensors")
if(ETPROF_PYTHON3)
  add_test(NAME tensors COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_tensors.py
                                ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${CMAKE_SOURCE_DIR}/schema
                                ${CMAKE_CURRENT_BINARY_DIR}/tensors-tmp)
  set_tests_properties(tensors PROPERTIES SKIP_RETURN_CODE 77 LABELS "readers")
endif()
if(ETPROF_PYTHON3)
  add_test(NAME compare COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_compare.py
                                ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${CMAKE_CURRENT_BINARY_DIR}/compare-tmp)
  set_tests_properties(compare PROPERTIES LABELS "readers")
endif()
# The ETRecord API (issue 13.1) on a crafted record: lookups, joins, the bracket-aware split.
add_executable(test_etrecord_api ${CMAKE_SOURCE_DIR}/tests/test_etrecord_api.c)
target_link_libraries(test_etrecord_api PRIVATE etprof)
target_include_directories(test_etrecord_api PRIVATE ${ETPROF_INTERNAL_INCLUDES} ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME etrecord_api COMMAND test_etrecord_api ${CMAKE_SOURCE_DIR})

# etprof tensors --select: selections against flatc decodings of the program and the dump
# (docs/tensors.md)
if(ETPROF_PYTHON3)
  add_test(NAME tensors_select COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_tensor_select.py
                                       ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${CMAKE_SOURCE_DIR}/schema
                                       ${CMAKE_CURRENT_BINARY_DIR}/tensors-select-tmp)
  set_tests_properties(tensors_select PROPERTIES SKIP_RETURN_CODE 77 LABELS "readers")
  # etprof check-outputs and the bundled program reader: corpus and flatc-built bundled programs
  add_test(NAME check_outputs COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_check_outputs.py
                                      ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${CMAKE_SOURCE_DIR}/schema
                                      ${CMAKE_CURRENT_BINARY_DIR}/check-outputs-tmp)
  set_tests_properties(check_outputs PROPERTIES SKIP_RETURN_CODE 77 LABELS "readers")
endif()
# etprof compare across different programs: by operator order, by debug handle (crafted ETRecords)
if(ETPROF_PYTHON3)
  add_test(NAME compare_programs COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_compare_programs.py
                                         ${ETPROF_BIN} ${ETPROF_TEST_DATA} ${CMAKE_SOURCE_DIR}/schema
                                         ${CMAKE_CURRENT_BINARY_DIR}/compare-programs-tmp)
  set_tests_properties(compare_programs PROPERTIES SKIP_RETURN_CODE 77 LABELS "readers")
endif()
# Time per nn.Module (issue 13.1): etp_modules_compute on a flatc-built dump with records written
# by the test (libzip), expected values by hand.
add_executable(test_modules ${CMAKE_SOURCE_DIR}/tests/test_modules.c)
# the test writes its ETRecords with libzip, linked here (the library opens it with dlopen)
target_link_libraries(test_modules PRIVATE etprof ${ETPROF_LIBZIP_LIBRARY})
target_include_directories(test_modules PRIVATE ${LIBZIP_INCLUDE_DIRS})
target_include_directories(test_modules PRIVATE ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME modules_api COMMAND test_modules ${ETPROF_TEST_DATA})
# libzip absent at run time (src/base/zipload.c compiled into the test with a soname no system has):
# the ETRecord reader's located error, not a crash.
add_executable(test_zipload ${CMAKE_SOURCE_DIR}/tests/test_zipload.c)
target_link_libraries(test_zipload PRIVATE etprof)
target_include_directories(test_zipload PRIVATE ${LIBZIP_INCLUDE_DIRS} ${ETPROF_INTERNAL_INCLUDES}
                                                ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME zipload_missing COMMAND test_zipload)
set_tests_properties(zipload_missing PROPERTIES LABELS "readers")
# The library's tree and explain documents (etp_tree_doc, etp_explain_doc): values by hand on a
# flatc-built dump, the JSON parsed back with jansson, the usage errors.
add_executable(test_tree_doc ${CMAKE_SOURCE_DIR}/tests/test_tree_doc.c)
target_link_libraries(test_tree_doc PRIVATE etprof PkgConfig::JANSSON)
target_include_directories(test_tree_doc PRIVATE ${CMAKE_SOURCE_DIR}/tests)
add_test(NAME tree_doc_api COMMAND test_tree_doc ${ETPROF_TEST_DATA})
# Newer programs' device fields (ExecutionPlan.non_const_buffer_device, the tensors'
# extra_tensor_info device): info and the summary's placement on a flatc-built program
# (tests/test_program_devices.sh)
add_test(NAME program_devices
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/test_program_devices.sh ${ETPROF_BIN}
                 ${CMAKE_SOURCE_DIR} ${ETPROF_TEST_DATA})
