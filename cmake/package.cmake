# `make package`: proofload as a Debian package (build/package/proofload_VERSION_ARCH.deb), its
# binary in /usr/bin and its Depends computed by dpkg-shlibdeps from the libraries the binary
# links (libssl3, libnghttp2-14, libyaml-cpp, libre2, ...), so that `apt-get install ./x.deb`
# brings them from Debian. The Dockerfile installs it this way; package_test checks it.
install(TARGETS proofload RUNTIME DESTINATION bin)

# The install (and so cpack) packs what is built rather than building everything first: the
# package test runs cpack on the tree `make test` has just built, and `make package` builds first.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME proofload)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR proofload)
set(CPACK_PACKAGE_CONTACT "proofload maintainers <maintainers@proofload.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Load generator and capacity-evidence tool for HTTP services")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/package)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # proofload_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/proofload/proofload")
include(CPack)

# cpack on the built tree into a scratch directory, the package installed into an empty dpkg
# root (never this machine's own packages), its Depends and --version checked.
add_test(NAME package_test
         COMMAND ${PROJECT_SOURCE_DIR}/tests/package/package_test.sh ${CMAKE_BINARY_DIR}
                 ${PROJECT_VERSION})
set_tests_properties(package_test PROPERTIES LABELS package TIMEOUT 120)
