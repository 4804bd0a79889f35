# Installation and the exported API (issue 11.4, 11.5): see docs/install.md.
# symbols: the shared and the static library export the public etp_* API only, SONAME checked.
add_test(NAME symbols
         COMMAND sh ${CMAKE_SOURCE_DIR}/tests/install/check_symbols.sh ${CMAKE_SOURCE_DIR}/include
                 $<TARGET_FILE:etprof_shared> $<TARGET_FILE:etprof_static>
                 libetprof.so.${ETPROF_SOVERSION} $<TARGET_FILE:etprof>)
set_tests_properties(symbols PROPERTIES LABELS "install;symbols")
# install: cmake --install into a temporary prefix, then tests/install/consumer.c built against it
# with pkg-config and with find_package(etprof), shared and static; its values must equal the
# MANIFEST and the installed etprof's JSON. The consumer gets the sanitizer flags of this build.
set(ETPROF_CONSUMER_FLAGS "")
if(ETPROF_SANITIZE)
  set(ETPROF_CONSUMER_FLAGS "-fsanitize=address,undefined -fno-sanitize-recover=all")
endif()
add_test(NAME install
         COMMAND sh ${CMAKE_SOURCE_DIR}/tests/install/test_install.sh ${CMAKE_BINARY_DIR}
                 ${CMAKE_SOURCE_DIR} ${CMAKE_INSTALL_LIBDIR} ${PROJECT_VERSION} ${CMAKE_C_COMPILER}
                 "${ETPROF_CONSUMER_FLAGS}" "${ETPROF_CONSUMER_FLAGS}")
set_tests_properties(install PROPERTIES LABELS "install" TIMEOUT 300)
if(ETPROF_GEN_DOCS)
  set_property(TEST install APPEND PROPERTY ENVIRONMENT
               "ETPROF_MANDIR=${CMAKE_INSTALL_MANDIR}" "ETPROF_DATADIR=${CMAKE_INSTALL_DATADIR}")
  # man pages: etprof.1 and etprof-CMD.1 say what --help says (options, summary, usage)
  add_test(NAME man_pages COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/install/test_man.py
                                  ${ETPROF_BIN} ${ETPROF_GEN}/man1)
  # bash completion run on simulated command lines; its options per command are --help's
  add_test(NAME completion COMMAND bash ${CMAKE_SOURCE_DIR}/tests/install/test_completion.sh
                                   ${ETPROF_BIN} ${ETPROF_GEN}/etprof.bash ${ETPROF_GEN}/_etprof)
  set_tests_properties(man_pages completion PROPERTIES LABELS "install")
endif()
# deb: cpack -G DEB and what dpkg-deb -c lists (skipped without dpkg-deb)
if(ETPROF_GEN_DOCS)
  set(ETPROF_DEB_SAN "")
  if(ETPROF_SANITIZE)
    set(ETPROF_DEB_SAN sanitize)
  endif()
  add_test(NAME deb COMMAND sh ${CMAKE_SOURCE_DIR}/tests/install/test_deb.sh ${CMAKE_BINARY_DIR}
                            ${CMAKE_INSTALL_LIBDIR} ${PROJECT_VERSION} ${CMAKE_INSTALL_MANDIR}
                            ${CMAKE_INSTALL_DATADIR} ${ETPROF_DEB_SAN})
  set_tests_properties(deb PROPERTIES LABELS "install" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
# api_doc: docs/api.md is what tests/tools/gen_api_md.py makes from the headers (the manual cannot
# drift), and lists exactly the functions the shared library exports
add_test(NAME api_doc COMMAND ${ETPROF_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/tools/gen_api_md.py
         ${CMAKE_SOURCE_DIR} --check --so $<TARGET_FILE:etprof_shared>)
set_tests_properties(api_doc PROPERTIES LABELS "install;symbols")
