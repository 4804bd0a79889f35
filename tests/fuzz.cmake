# Fuzz targets under ctest, with or without libFuzzer (docs/verifier.md, fuzz/CMakeLists.txt).
#  fuzz_replay_<target>  every target over fuzz/corpus/<target>, fuzz/regressions/<target> and
#                        tests/golden_errors: no crash, no sanitizer report, and every rejection
#                        is a located ETP_E_INPUT error (checked inside the target)
#  fuzz_mutate_*         the same contract for every truncation (every prefix length, and every
#                        prefix with its size prefix corrected), every inverted byte and every
#                        clobbered 32-bit word of three corpus files (plus add.pte), and of the
#                        QNN sample files (one of each kind the qnn target reads)
if(NOT ETPROF_FUZZ) # with ETPROF_FUZZ=ON the top-level CMakeLists.txt adds fuzz/ itself
  add_subdirectory(${CMAKE_SOURCE_DIR}/fuzz ${CMAKE_BINARY_DIR}/fuzz)
endif()
add_test(NAME fuzz_mutate_etdump
         COMMAND fuzz_etdump_replay --mutate ${ETPROF_TEST_DATA}/upstream/etdump.etdp
                 ${ETPROF_TEST_DATA}/flatc-built/all_kinds.etdp)
add_test(NAME fuzz_mutate_pte
         COMMAND fuzz_pte_replay --mutate ${ETPROF_TEST_DATA}/upstream/bundled_program.bpte
                 ${ETPROF_TEST_DATA}/upstream/add.pte)
set(qnn_fx ${ETPROF_TEST_DATA}/qnn-fixtures)
add_test(NAME fuzz_mutate_qnn
         COMMAND fuzz_qnn_replay --mutate ${qnn_fx}/qhas_small.json ${qnn_fx}/optrace_small.json
                 ${qnn_fx}/runtrace_small.json ${qnn_fx}/heap_ok.txt ${qnn_fx}/viewer_small.txt
                 ${qnn_fx}/viewer_small.csv)
set_tests_properties(fuzz_mutate_etdump fuzz_mutate_pte fuzz_mutate_qnn PROPERTIES TIMEOUT 600)
# FlatBuffer-aware mutations (fuzz/fb_mutate.c: NULs in strings, string lengths, vector counts,
# shared references and shared-table bombs, vtable entries), the same seeds on every machine, on
# the all-kinds dump, a small QNN-shaped dump, a real dump and two programs. Issue 16.5.
add_test(NAME fuzz_fbmutate_etdump
         COMMAND fuzz_etdump_replay --fb-mutate 1500 ${ETPROF_TEST_DATA}/flatc-built/all_kinds.etdp
                 ${ETPROF_TEST_DATA}/synthetic/synth_qnn_mixed_small_3x.etdp
                 ${ETPROF_TEST_DATA}/real/add_pte_1x.etdp)
add_test(NAME fuzz_fbmutate_pte
         COMMAND fuzz_pte_replay --fb-mutate 1500 ${ETPROF_TEST_DATA}/upstream/add.pte
                 ${ETPROF_TEST_DATA}/upstream/bundled_program.bpte)
set_tests_properties(fuzz_fbmutate_etdump fuzz_fbmutate_pte PROPERTIES TIMEOUT 600)
# The ETRecord reader (issue 13.1): every prefix, inverted byte and clobbered word of the corpus
# record and of a crafted DEFLATE + ZIP64 one.
add_test(NAME fuzz_mutate_etrecord
         COMMAND fuzz_etrecord_replay --mutate ${ETPROF_TEST_DATA}/upstream/etrecord.bin
                 ${CMAKE_SOURCE_DIR}/fuzz/corpus/etrecord/new_zip64.etrecord)
set_tests_properties(fuzz_mutate_etrecord PROPERTIES TIMEOUT 600)
# The backend decoders (issue 14.2) on mutations of their fixtures: Core ML / VGF metadata JSON,
# VGF base64 blobs, Vulkan JSON names, Neutron function codes.
add_test(NAME fuzz_mutate_backends
         COMMAND fuzz_etdump_replay --mutate ${ETPROF_TEST_DATA}/flatc-built/vgf.etdp
                 ${ETPROF_TEST_DATA}/flatc-built/coreml.etdp ${ETPROF_TEST_DATA}/flatc-built/vulkan.etdp
                 ${ETPROF_TEST_DATA}/flatc-built/neutron.etdp)
set_tests_properties(fuzz_mutate_backends PROPERTIES TIMEOUT 600)
# ETRecord-aware mutations (fuzz/etr_mutate.c: a JSON entry changed, the ZIP written again with
# valid CRCs, so that the mutation reaches jansson and the reader's budget), seeds 1..1000 on the
# corpus record and the crafted ZIP64 one. Issue 35.
add_test(NAME fuzz_etrmutate_etrecord
         COMMAND fuzz_etrecord_replay --etr-mutate 1000 ${ETPROF_TEST_DATA}/upstream/etrecord.bin
                 ${CMAKE_SOURCE_DIR}/fuzz/corpus/etrecord/new_zip64.etrecord)
set_tests_properties(fuzz_etrmutate_etrecord PROPERTIES TIMEOUT 600)
