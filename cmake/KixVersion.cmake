# One version from one place: project(kix VERSION ...) in the top-level
# CMakeLists.txt. This writes it to <build>/generated/kix/version.h
# (KIX_VERSION_STRING, kix_version()) and offers it as the interface target
# kix_version: link it to whatever prints or reports the version.
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.h.in
               ${CMAKE_BINARY_DIR}/generated/kix/version.h @ONLY)
add_library(kix_version INTERFACE)
target_include_directories(kix_version INTERFACE ${CMAKE_BINARY_DIR}/generated)
