# Tests built on the corpus in tests/data and on a second decoder (Debian's flatc + our schemas).
#
#   flatc_vs_manifest        flatc + schema/etdump.fbs agree with manifest_facts.json (parsed from
#                            MANIFEST.md) for every corpus .etdp; needs flatc.
#   events_vs_flatc_<name>   `etprof events FILE --format json` equals tests/tools/flatc_events.py
#                            FILE, field by field (tests/tools/compare_events.py), for every .etdp
#                            in tests/data. Label: differential.
#
# Variables from tests/CMakeLists.txt: ETPROF_BIN, ETPROF_TEST_DATA, ETPROF_SHARED.

find_program(PYTHON3 python3 REQUIRED)
find_program(FLATC flatc)

set(ETPROF_TEST_TOOLS ${CMAKE_CURRENT_SOURCE_DIR}/tools)
set(ETPROF_ETDUMP_SCHEMA ${CMAKE_SOURCE_DIR}/schema/etdump.fbs)

if(FLATC)
  set(ETPROF_FLATC_ARGS --flatc ${FLATC})
else()
  message(STATUS "flatc not found: flatc_vs_manifest and events_vs_flatc_* will fail "
                 "(install Debian's flatbuffers-compiler)")
  set(ETPROF_FLATC_ARGS)
endif()

if(FLATC)
  add_test(NAME flatc_vs_manifest
           COMMAND ${PYTHON3} ${ETPROF_TEST_TOOLS}/check_flatc_vs_manifest.py
                   --data ${ETPROF_TEST_DATA} --schema ${ETPROF_ETDUMP_SCHEMA} ${ETPROF_FLATC_ARGS})
else()
  add_test(NAME flatc_vs_manifest
           COMMAND ${PYTHON3} -c
                   "import sys; sys.exit('flatc_vs_manifest: flatc not found at configure time; install flatbuffers-compiler and re-run cmake')")
endif()
set_tests_properties(flatc_vs_manifest PROPERTIES LABELS "data;flatc")

# Our verifier against flatc's decoder on the fuzz corpus, the regressions and the golden errors:
# a file flatc cannot decode is rejected by etprof too (etprof may be stricter). Issue 16.5.
# Not in the sanitizer build: the verdicts do not depend on it, the gcc build checks them, and
# the same files run under ASan+UBSan in-process, through more of the library than `info`, in
# fuzz_replay_* (one ASan start per file here took over its 600 s on two busy CPUs).
if(FLATC AND NOT ETPROF_SANITIZE)
  add_test(NAME verifier_vs_flatc
           COMMAND ${PYTHON3} ${ETPROF_TEST_TOOLS}/verifier_vs_flatc.py $<TARGET_FILE:etprof_cli>
                   ${FLATC} ${CMAKE_SOURCE_DIR}/schema ${CMAKE_SOURCE_DIR}/fuzz/corpus
                   ${CMAKE_SOURCE_DIR}/fuzz/regressions ${CMAKE_SOURCE_DIR}/tests/golden_errors)
  set_tests_properties(verifier_vs_flatc PROPERTIES LABELS "flatc" TIMEOUT 600)
endif()

# One differential test per corpus .etdp. The test name uses the file's stem, prefixed with its
# folder only if two folders hold the same stem.
file(GLOB_RECURSE ETPROF_CORPUS_ETDP CONFIGURE_DEPENDS ${ETPROF_TEST_DATA}/*.etdp)
list(SORT ETPROF_CORPUS_ETDP)
set(_etprof_seen_stems)
foreach(etdp ${ETPROF_CORPUS_ETDP})
  get_filename_component(stem ${etdp} NAME_WE)
  list(FIND _etprof_seen_stems ${stem} dup)
  if(NOT dup EQUAL -1)
    file(RELATIVE_PATH rel ${ETPROF_TEST_DATA} ${etdp})
    get_filename_component(dir ${rel} DIRECTORY)
    string(MAKE_C_IDENTIFIER "${dir}_${stem}" stem)
  endif()
  list(APPEND _etprof_seen_stems ${stem})
  set(work ${CMAKE_CURRENT_BINARY_DIR}/events_vs_flatc/${stem})
  # sh positional args: $1 etprof, $2 FILE, $3 work dir, $4 python3, $5 flatc_events.py,
  # $6 compare_events.py, then extra flatc_events.py arguments.
  add_test(NAME events_vs_flatc_${stem}
           COMMAND sh -c [[
set -e
etprof=$1 file=$2 work=$3 py=$4 fe=$5 cmp=$6
shift 6
mkdir -p "$work"
rm -f "$work/etprof.json" "$work/flatc.json"
"$etprof" events "$file" --format json -o "$work/etprof.json"
"$py" "$fe" "$file" "$@" -o "$work/flatc.json"
"$py" "$cmp" "$work/etprof.json" "$work/flatc.json"
]] sh ${ETPROF_BIN} ${etdp} ${work} ${PYTHON3} ${ETPROF_TEST_TOOLS}/flatc_events.py
              ${ETPROF_TEST_TOOLS}/compare_events.py --schema ${ETPROF_ETDUMP_SCHEMA}
              ${ETPROF_FLATC_ARGS})
  set_tests_properties(events_vs_flatc_${stem} PROPERTIES LABELS differential)
endforeach()
unset(_etprof_seen_stems)
