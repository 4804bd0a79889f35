# One number, one value, in every view (docs/json-contract.md, "Shared figures"):
#   consistency_<dir>_<name>   every corpus dump (with its program): the figures that summary, ops,
#                              tree, explain and report's data block share are equal in all of
#                              them and equal to an independent decode (flatc + schema, hand sums
#                              in tests/test_consistency.py);
#   consistency_qnn_join_*     the same with the QHAS fixture (+ qnn): the join counts and the QNN
#                              ops using HMX / HVX / DMA, against the QHAS JSON itself and the
#                              differences gen_stories_qhas.sh documents.
# Needs Debian's flatc (flatbuffers-compiler), like data.cmake.
find_program(FLATC flatc)
set(_cons_py ${CMAKE_SOURCE_DIR}/tests/test_consistency.py)
set(_cons_tmp ${CMAKE_CURRENT_BINARY_DIR}/consistency-tmp)
set(_cons_up ${ETPROF_TEST_DATA}/upstream)
set(_cons_flatc)
if(FLATC)
  set(_cons_flatc --flatc ${FLATC})
endif()

# The program that ran each dump (MANIFEST.md), by file name.
function(_cons_pte_for dump out)
  get_filename_component(n ${dump} NAME)
  get_filename_component(d ${dump} DIRECTORY)
  get_filename_component(d ${d} NAME)
  set(p "")
  if(d STREQUAL "fake-qnn-backend")
    set(p ${_cons_up}/stories260k_hybrid_llama_qnn.pte)
  elseif(n MATCHES "^mobilenet_v2_ethosu_N_")
    set(p ${ETPROF_TEST_DATA}/ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte)
  elseif(n MATCHES "^mobilenet_v2_ethosu_single")
    set(p ${ETPROF_TEST_DATA}/ethosu-partial-delegation/pte/mobilenet_v2_ethosu.pte)
  elseif(n MATCHES "^(executor_runner_)?add_pte_")
    set(p ${_cons_up}/add.pte)
  elseif(n MATCHES "^bundled_program_")
    set(p ${_cons_up}/bundled_program.bpte)
  elseif(n MATCHES "^module_linear_")
    set(p ${_cons_up}/module_linear_no_constant_segment.pte)
  endif()
  set(${out} ${p} PARENT_SCOPE)
endfunction()

file(GLOB _cons_dumps ${ETPROF_TEST_DATA}/*/*.etdp)
list(SORT _cons_dumps)
# threads_split.etdp is crafted for the two-thread merge (tests/test_threads_identical.sh): rows
# missing from some runs and runs without Method::execute, which the cross-view checks here
# (per-run child sums = the children's averages) assume away.
list(FILTER _cons_dumps EXCLUDE REGEX "/threads_split\\.etdp$")
foreach(dump ${_cons_dumps})
  get_filename_component(n ${dump} NAME_WE)
  get_filename_component(d ${dump} DIRECTORY)
  get_filename_component(d ${d} NAME)
  _cons_pte_for(${dump} pte)
  set(_pte_args)
  if(pte)
    set(_pte_args --pte ${pte})
  endif()
  add_test(NAME consistency_${d}_${n}
           COMMAND ${ETPROF_PYTHON3} ${_cons_py} --etprof ${ETPROF_BIN} --tmp ${_cons_tmp}
                   ${_cons_flatc} ${dump} ${_pte_args})
endforeach()

set(_cons_qnn ${ETPROF_TEST_DATA}/fake-qnn-backend)
add_test(NAME consistency_qnn_join_1x
         COMMAND ${ETPROF_PYTHON3} ${_cons_py} --etprof ${ETPROF_BIN} --tmp ${_cons_tmp}
                 ${_cons_flatc} ${_cons_qnn}/stories260k_qnn_kv_forward_1x.etdp
                 --pte ${_cons_up}/stories260k_hybrid_llama_qnn.pte
                 --qhas ${ETPROF_TEST_DATA}/qnn-fixtures/stories260k_kv_qhas.json --join-doc)
add_test(NAME consistency_qnn_join_10x
         COMMAND ${ETPROF_PYTHON3} ${_cons_py} --etprof ${ETPROF_BIN} --tmp ${_cons_tmp}
                 ${_cons_flatc} ${_cons_qnn}/stories260k_qnn_kv_forward_10x.etdp
                 --pte ${_cons_up}/stories260k_hybrid_llama_qnn.pte
                 --qhas ${ETPROF_TEST_DATA}/qnn-fixtures/stories260k_kv_qhas.json --join-doc)
