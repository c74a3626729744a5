# Installing and packaging clefrun (included by the top-level CMakeLists.txt).
#
# `cmake --install build [--prefix P]` (or DESTDIR=...) puts, under the prefix:
#   bin/clefrun
#   lib/libclefrun.so.0.1.0 (+ .so.0, .so), lib/libclefrun.a
#   include/clefrun/*.h
#   lib/pkgconfig/clefrun.pc               pkg-config --cflags --libs clefrun
#   lib/cmake/clefrun/                      find_package(clefrun) -> clefrun::clefrun
#   share/man/man1/clefrun.1.gz
#   share/bash-completion/completions/clefrun
#   share/zsh/site-functions/_clefrun
#   share/fish/vendor_completions.d/clefrun.fish
#   share/clefrun/schema/*.schema.json      the JSON Schemas of docs/schema
#   share/doc/clefrun/copyright
# and `cpack -G DEB` in the build directory makes a .deb of the same files
# under /usr. tests/install checks all of it.
include(CMakePackageConfigHelpers)

set(CLEFRUN_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/clefrun)

# ---- the shared library exports the public API, nothing else ---------------------
# A version script listing every cr_* function a public header declares
# (cmake/version_script.cmake, rerun when a header changes): library-internal
# helpers (jr_*, gg_*, cr_seterr, ...) stay local, and a new public function
# is exported without anyone editing a list.
file(GLOB clefrun_public_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/clefrun/*.h)
set(CLEFRUN_VERSION_SCRIPT ${CMAKE_CURRENT_BINARY_DIR}/libclefrun.map)
add_custom_command(
  OUTPUT ${CLEFRUN_VERSION_SCRIPT}
  COMMAND ${CMAKE_COMMAND} -DOUT=${CLEFRUN_VERSION_SCRIPT}
          -DINCLUDE_DIR=${PROJECT_SOURCE_DIR}/include/clefrun
          -P ${PROJECT_SOURCE_DIR}/cmake/version_script.cmake
  DEPENDS ${clefrun_public_headers} ${PROJECT_SOURCE_DIR}/cmake/version_script.cmake
  COMMENT "Listing the public functions for libclefrun.so" VERBATIM)
add_custom_target(clefrun_version_script DEPENDS ${CLEFRUN_VERSION_SCRIPT})
add_dependencies(clefrun_shared clefrun_version_script)
if(NOT APPLE AND NOT WIN32)
  target_link_options(clefrun_shared PRIVATE "LINKER:--version-script=${CLEFRUN_VERSION_SCRIPT}")
  set_property(TARGET clefrun_shared APPEND PROPERTY LINK_DEPENDS ${CLEFRUN_VERSION_SCRIPT})
endif()

# ---- program, libraries, headers, CMake package -------------------------------------
set_target_properties(clefrun_shared PROPERTIES EXPORT_NAME clefrun)
set_target_properties(clefrun_lib PROPERTIES EXPORT_NAME clefrun_static)
install(TARGETS clefrun RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS clefrun_shared clefrun_lib EXPORT clefrunTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/clefrun DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT clefrunTargets NAMESPACE clefrun:: DESTINATION ${CLEFRUN_CMAKEDIR})
configure_package_config_file(cmake/clefrunConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/clefrunConfig.cmake INSTALL_DESTINATION ${CLEFRUN_CMAKEDIR})
# 0.x: a minor version may break the API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/clefrunConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/clefrunConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/clefrunConfigVersion.cmake
        DESTINATION ${CLEFRUN_CMAKEDIR})

# ---- pkg-config ----------------------------------------------------------------------
# The prefix is the one installed to, known only at install time (--prefix,
# CPack's /usr): the file is configured here with a placeholder and finished
# by the install script.
set(CLEFRUN_PC_PREFIX "@CLEFRUN_PC_PREFIX@")
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
    set(CLEFRUN_PC_${kind} "${CMAKE_INSTALL_${kind}}")
  else()
    set(CLEFRUN_PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()
# dlopen's library, when the C library keeps it apart (CMAKE_DL_LIBS: "dl"
# with glibc, where libdl is an empty stub since 2.34).
set(CLEFRUN_PC_DL "")
foreach(lib ${CMAKE_DL_LIBS})
  string(APPEND CLEFRUN_PC_DL " -l${lib}")
endforeach()
string(STRIP "${CLEFRUN_PC_DL}" CLEFRUN_PC_DL)
configure_file(cmake/clefrun.pc.in ${CMAKE_CURRENT_BINARY_DIR}/clefrun.pc.in @ONLY)
install(CODE "
  file(READ \"${CMAKE_CURRENT_BINARY_DIR}/clefrun.pc.in\" pc)
  string(REPLACE \"@CLEFRUN_PC_PREFIX@\" \"\${CMAKE_INSTALL_PREFIX}\" pc \"\${pc}\")
  file(WRITE \"${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/clefrun.pc\" \"\${pc}\")
  file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\" TYPE FILE
       FILES \"${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/clefrun.pc\")
")

# ---- man page and shell completions, from `clefrun --help` -------------------------
# scripts/gen-cli-md reads the --help texts of the binary just built (the
# option tables the parser uses) into the templates docs/clefrun.1.in and
# completions/*.in: neither can drift from the options.
find_program(CLEFRUN_SH sh REQUIRED)
find_program(CLEFRUN_GZIP gzip)
set(CLEFRUN_GEN_DIR ${CMAKE_CURRENT_BINARY_DIR}/generated)
set(CLEFRUN_GEN ${PROJECT_SOURCE_DIR}/scripts/gen-cli-md)
set(CLEFRUN_GEN_DEPS clefrun ${CLEFRUN_GEN} ${PROJECT_SOURCE_DIR}/scripts/gen-cli-md.awk)
set(CLEFRUN_MAN ${CLEFRUN_GEN_DIR}/clefrun.1)
set(CLEFRUN_COMPLETIONS ${CLEFRUN_GEN_DIR}/clefrun.bash ${CLEFRUN_GEN_DIR}/_clefrun
    ${CLEFRUN_GEN_DIR}/clefrun.fish)
add_custom_command(
  OUTPUT ${CLEFRUN_MAN}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CLEFRUN_GEN_DIR}
  COMMAND ${CLEFRUN_SH} ${CLEFRUN_GEN} --format man --output ${CLEFRUN_MAN} $<TARGET_FILE:clefrun>
  DEPENDS ${CLEFRUN_GEN_DEPS} ${PROJECT_SOURCE_DIR}/docs/clefrun.1.in
  COMMENT "Writing the man page clefrun(1) from clefrun --help" VERBATIM)
set(clefrun_gen_outputs ${CLEFRUN_MAN})
foreach(shell bash zsh fish)
  if(shell STREQUAL "zsh")
    set(name _clefrun)
  else()
    set(name clefrun.${shell})
  endif()
  add_custom_command(
    OUTPUT ${CLEFRUN_GEN_DIR}/${name}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CLEFRUN_GEN_DIR}
    COMMAND ${CLEFRUN_SH} ${CLEFRUN_GEN} --format ${shell} --output ${CLEFRUN_GEN_DIR}/${name}
            $<TARGET_FILE:clefrun>
    DEPENDS ${CLEFRUN_GEN_DEPS} ${PROJECT_SOURCE_DIR}/completions/${name}.in
    COMMENT "Writing the ${shell} completion from clefrun --help" VERBATIM)
  list(APPEND clefrun_gen_outputs ${CLEFRUN_GEN_DIR}/${name})
endforeach()
# Debian policy 12.1: manual pages compressed with gzip -9n (-n: no name or
# time stamp in the header, so the build is reproducible).
if(CLEFRUN_GZIP)
  add_custom_command(
    OUTPUT ${CLEFRUN_MAN}.gz
    COMMAND ${CLEFRUN_GZIP} -9nkf ${CLEFRUN_MAN}
    DEPENDS ${CLEFRUN_MAN}
    COMMENT "Compressing clefrun.1" VERBATIM)
  list(APPEND clefrun_gen_outputs ${CLEFRUN_MAN}.gz)
  set(CLEFRUN_MAN_INSTALLED ${CLEFRUN_MAN}.gz)
else()
  set(CLEFRUN_MAN_INSTALLED ${CLEFRUN_MAN})
endif()
add_custom_target(clefrun_generated ALL DEPENDS ${clefrun_gen_outputs})

install(FILES ${CLEFRUN_MAN_INSTALLED} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CLEFRUN_GEN_DIR}/clefrun.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME clefrun)
install(FILES ${CLEFRUN_GEN_DIR}/_clefrun DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
install(FILES ${CLEFRUN_GEN_DIR}/clefrun.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
install(DIRECTORY docs/schema/ DESTINATION ${CMAKE_INSTALL_DATADIR}/clefrun/schema
        FILES_MATCHING PATTERN "*.schema.json")
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright)

# ---- CPack: a .deb --------------------------------------------------------------------
# `cpack -G DEB` in the build directory. One package holds the program, both
# libraries and the development files (Debian would split them into
# clefrun, libclefrun0 and libclefrun-dev; one is what this project needs).
set(CLEFRUN_MAINTAINER "clefrun maintainers <clefrun@invalid>" CACHE STRING
    "Maintainer field of the .deb (Name <email>)")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME clefrun)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION} Memory, context and speed of LLMs")
set(CPACK_PACKAGE_DESCRIPTION
    "clefrun answers before you download a model: memory at a given context (weights, KV cache, \
recurrent state, buffers, runtime overhead, per device, with llama.cpp's semantics), the \
quantization that fits, the largest context that fits, decode and prefill speed, and a fit tier \
for every rig and quantization. The package holds the clefrun program, the libclefrun C library \
(shared and static), its headers, pkg-config and CMake files, the man page and bash, zsh and fish \
completions.")
set(CPACK_PACKAGE_CONTACT "${CLEFRUN_MAINTAINER}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
# Install with DESTDIR and the prefix /usr, so that files written at install
# time (clefrun.pc) name /usr and not CPack's staging directory.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CLEFRUN_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# libcurl4: not linked, but loaded (dlopen) when a URL or an hf: model is read;
# a Depends, since that is half of what clefrun does.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.34), libcjson1 (>= 1.7.10), libcurl4 (>= 7.68)")
# Linking the static library or using pkg-config needs these two too.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libcjson-dev, pkg-config")
include(CPack)
