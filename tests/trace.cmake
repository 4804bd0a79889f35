# etprof trace: every corpus dump's trace is validated against the Trace Event Format rules by
# tests/test_trace.py (python3 stdlib), with and without its program; plus the Ethos-U and QNN
# layouts, error paths, tick scaling and a self-test of the validator (docs/trace.md).
find_program(ETPROF_PYTHON3 python3)
if(NOT ETPROF_PYTHON3)
  message(WARNING "python3 not found: the trace tests are not registered")
  return()
endif()

set(_trace_py ${CMAKE_SOURCE_DIR}/tests/test_trace.py)
set(_trace_tmp ${CMAKE_CURRENT_BINARY_DIR}/trace-tmp)
set(_up ${ETPROF_TEST_DATA}/upstream)

# The program that ran each dump (MANIFEST.md), by file name.
function(_trace_pte_for dump out)
  get_filename_component(n ${dump} NAME)
  get_filename_component(d ${dump} DIRECTORY)
  get_filename_component(d ${d} NAME)
  set(p "")
  if(d STREQUAL "fake-qnn-backend")
    set(p ${_up}/stories260k_hybrid_llama_qnn.pte)
  elseif(n MATCHES "^mobilenet_v2_ethosu_N_")
    set(p ${ETPROF_TEST_DATA}/ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte)
  elseif(n MATCHES "^mobilenet_v2_ethosu_single")
    set(p ${ETPROF_TEST_DATA}/ethosu-partial-delegation/pte/mobilenet_v2_ethosu.pte)
  elseif(n MATCHES "^(executor_runner_)?add_pte_")
    set(p ${_up}/add.pte)
  elseif(n MATCHES "^bundled_program_")
    set(p ${_up}/bundled_program.bpte)
  elseif(n MATCHES "^module_linear_")
    set(p ${_up}/module_linear_no_constant_segment.pte)
  endif()
  set(${out} ${p} PARENT_SCOPE)
endfunction()

file(GLOB _trace_dumps ${ETPROF_TEST_DATA}/*/*.etdp)
list(SORT _trace_dumps)
foreach(dump ${_trace_dumps})
  get_filename_component(n ${dump} NAME_WE)
  get_filename_component(d ${dump} DIRECTORY)
  get_filename_component(d ${d} NAME)
  add_test(NAME trace_${d}_${n}
           COMMAND ${ETPROF_PYTHON3} ${_trace_py} --etprof ${ETPROF_BIN} --tmp ${_trace_tmp}
                   ${dump})
  _trace_pte_for(${dump} pte)
  if(pte)
    add_test(NAME trace_${d}_${n}_pte
             COMMAND ${ETPROF_PYTHON3} ${_trace_py} --etprof ${ETPROF_BIN} --tmp ${_trace_tmp}
                     ${dump} --pte ${pte})
  endif()
endforeach()

# Ethos-U partial delegation: 11 DELEGATE_CALL slices inside Method::execute, each containing its
# EthosUBackend::execute() scope (real host timestamps, nothing synthetic).
add_test(NAME trace_ethosu_delegate_calls
         COMMAND ${ETPROF_PYTHON3} ${_trace_py} --etprof ${ETPROF_BIN} --tmp ${_trace_tmp}
                 ${ETPROF_TEST_DATA}/ethosu-partial-delegation/mobilenet_v2_ethosu_N_partial_1x.etdp
                 --pte ${ETPROF_TEST_DATA}/ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte
                 --delegate-calls 11 --child "EthosUBackend::execute()" --runs 1)
# QNN: 10 runs, node slices summing to their parent, the µs chain nested in the documented order.
add_test(NAME trace_qnn_layout
         COMMAND ${ETPROF_PYTHON3} ${_trace_py} --etprof ${ETPROF_BIN} --tmp ${_trace_tmp}
                 ${ETPROF_TEST_DATA}/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp
                 --pte ${_up}/stories260k_hybrid_llama_qnn.pte
                 --qnn --runs 10 --delegate-calls 10)
add_test(NAME trace_errors
         COMMAND ${ETPROF_PYTHON3} ${_trace_py} --etprof ${ETPROF_BIN} --tmp ${_trace_tmp}
                 --errors ${ETPROF_TEST_DATA}/real/module_linear_1x.etdp)
add_test(NAME trace_tick_scale
         COMMAND ${ETPROF_PYTHON3} ${_trace_py} --etprof ${ETPROF_BIN} --tmp ${_trace_tmp}
                 --scale ${ETPROF_TEST_DATA}/real/bundled_program_10x.etdp)
add_test(NAME trace_validator_self_test
         COMMAND ${ETPROF_PYTHON3} ${_trace_py} --etprof ${ETPROF_BIN} --tmp ${_trace_tmp}
                 --self-test ${ETPROF_TEST_DATA}/fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp)
# A 32-bit tick counter that wraps in the middle of the file gives the same trace.
add_test(NAME trace_counter_wrap
         COMMAND ${ETPROF_PYTHON3} ${_trace_py} --etprof ${ETPROF_BIN} --tmp ${_trace_tmp}
                 --wrap ${ETPROF_TEST_DATA}/ethosu-partial-delegation/mobilenet_v2_ethosu_N_partial_1x.etdp)
# --optrace: the "HTP (optrace)" process (docs/trace.md). Always: a small optrace fixture with a
# given clock, the clock-less refusal (exit 2) and an overflow lane for ops that overlap.
set(_qfx ${ETPROF_TEST_DATA}/qnn-fixtures)
add_test(NAME trace_optrace_fixture
         COMMAND ${ETPROF_PYTHON3} ${_trace_py} --etprof ${ETPROF_BIN} --tmp ${_trace_tmp}
                 ${ETPROF_TEST_DATA}/fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp
                 --pte ${_up}/stories260k_hybrid_llama_qnn.pte
                 --optrace ${_qfx}/optrace_small.json --htp-clock-ghz 1.5
                 "--htp-counters=VTCM alloc (bytes),DRAM read (bytes)"
                 --htp-origin-dc yes --htp-overlap)
# The real fc256 samples, read in place from ${ETPROF_SHARED} (never copied): clock measured by
# the runtrace, per-QNN-op cycles checked against the sample's QHAS. Skipped when absent.
set(_fc256 ${ETPROF_SHARED}/corpus/qnn/fc256_native)
add_test(NAME trace_optrace_real
         COMMAND ${ETPROF_PYTHON3} ${_trace_py} --etprof ${ETPROF_BIN} --tmp ${_trace_tmp}
                 --skip-missing ${_fc256}
                 ${ETPROF_TEST_DATA}/fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp
                 --pte ${_up}/stories260k_hybrid_llama_qnn.pte
                 --optrace ${_fc256}/chrometrace.json --runtrace ${_fc256}/chrometrace_runtrace.json
                 --check-qhas ${_fc256}/chrometrace_qnn_htp_analysis_summary.json
                 "--htp-counters=VTCM alloc (bytes),VTCM read (bytes),VTCM write (bytes),DRAM read (bytes),DRAM write (bytes)"
                 --htp-origin-dc yes)
set_tests_properties(trace_optrace_real PROPERTIES SKIP_RETURN_CODE 77)

# -o NAME.gz: gzip-compressed trace = the plain one (Python's gzip decodes), write errors located
add_test(NAME trace_gzip COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_trace_gzip.py
                                 ${ETPROF_BIN} ${ETPROF_TEST_DATA}
                                 ${CMAKE_CURRENT_BINARY_DIR}/trace-gzip-tmp)
set_tests_properties(trace_gzip PROPERTIES LABELS "trace")

# without a program: backend_inferred on the DELEGATE_CALLs (and the events inside) whose backend
# the other views infer; QnnBackend as the program names it, the fixtures' as summary names them
add_test(NAME trace_backend COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_trace_backend.py
                                    ${ETPROF_BIN} ${ETPROF_TEST_DATA}
                                    ${CMAKE_CURRENT_BINARY_DIR}/trace-backend-tmp)
set_tests_properties(trace_backend PROPERTIES LABELS "trace")

# --format perfetto (.pftrace): one driver over every corpus dump (with its program when known),
# decoded by protoc against schema/perfetto_trace.proto and checked against the JSON trace:
# slices and nesting, no duration from cycles/counts, flows inside their DELEGATE_CALL, node
# cycles as arguments, counter units, names interned once; plus the optrace fixture, --max-runs
# and the error paths (tests/test_pftrace.py).
find_program(ETPROF_PROTOC protoc)
if(ETPROF_PROTOC)
  set(_pf_args "")
  foreach(dump ${_trace_dumps})
    _trace_pte_for(${dump} pte)
    if(pte)
      list(APPEND _pf_args "${dump}::${pte}")
    else()
      list(APPEND _pf_args "${dump}")
    endif()
  endforeach()
  add_test(NAME trace_perfetto
           COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/test_pftrace.py
                   --etprof ${ETPROF_BIN} --proto ${CMAKE_SOURCE_DIR}/schema/perfetto_trace.proto
                   --tmp ${CMAKE_CURRENT_BINARY_DIR}/pftrace-tmp
                   --optrace "${ETPROF_TEST_DATA}/fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp::${_up}/stories260k_hybrid_llama_qnn.pte"
                             ${_qfx}/optrace_small.json 1.5
                   ${_pf_args})
  set_tests_properties(trace_perfetto PROPERTIES LABELS "trace")
else()
  message(WARNING "protoc (protobuf-compiler) not found: trace_perfetto is not registered")
endif()
