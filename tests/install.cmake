# Installation and the exported API (issue 11.4, 11.5): see docs/install.md.
# symbols: the shared and the static library export the public etp_* API only, SONAME checked.
add_test(NAME symbols
         COMMAND sh ${CMAKE_SOURCE_DIR}/tests/install/check_symbols.sh ${CMAKE_SOURCE_DIR}/include
                 $<TARGET_FILE:etprof_shared> $<TARGET_FILE:etprof_static>
                 libetprof.so.${ETPROF_SOVERSION} $<TARGET_FILE:etprof>)
set_tests_properties(symbols PROPERTIES LABELS "install;symbols")
