# The built-in catalog's date and version (cr_catalog_date, cr_catalog_version,
# printed by `clefrun --version`), decided at configure time.
#
# Date: the last commit that changed data/ when the source is a git checkout
# (`git log -1 --format=%cs -- data`); otherwise the newest data file's
# modification time, which a `git archive` tarball sets to the commit time.
# Version: the date with dots ("2026.11.30"), unless set.
# Packagers may set either: -DCLEFRUN_CATALOG_DATE=2026-11-30
# -DCLEFRUN_CATALOG_VERSION=2026.11.30-1.
set(CLEFRUN_CATALOG_DATE "" CACHE STRING
    "Date of the catalog data, YYYY-MM-DD (empty: from git, else the files' modification time)")
set(CLEFRUN_CATALOG_VERSION "" CACHE STRING "Catalog version (empty: the date with dots)")
# Build directories configured before this file cached the project version
# as the catalog version; that default meant nothing, so derive it instead.
if(CLEFRUN_CATALOG_VERSION STREQUAL PROJECT_VERSION)
  set_property(CACHE CLEFRUN_CATALOG_VERSION PROPERTY VALUE "")
endif()

set(clefrun_catalog_date "${CLEFRUN_CATALOG_DATE}")
if(NOT clefrun_catalog_date)
  find_package(Git QUIET)
  if(GIT_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/.git")
    execute_process(COMMAND "${GIT_EXECUTABLE}" log -1 --format=%cs -- data
                    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
                    OUTPUT_VARIABLE clefrun_catalog_date OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE clefrun_git_rc ERROR_QUIET)
    if(NOT clefrun_git_rc EQUAL 0)
      set(clefrun_catalog_date "")
    endif()
    # A commit changes the answer: configure again after each one (the
    # reflog of HEAD grows with every commit, checkout and reset).
    execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --absolute-git-dir
                    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
                    OUTPUT_VARIABLE clefrun_git_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(clefrun_git_dir AND EXISTS "${clefrun_git_dir}/logs/HEAD")
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${clefrun_git_dir}/logs/HEAD")
    endif()
  endif()
endif()
if(NOT clefrun_catalog_date)
  foreach(name models quants rigs)
    file(TIMESTAMP "${PROJECT_SOURCE_DIR}/data/${name}.json" d "%Y-%m-%d" UTC)
    if(d STRGREATER clefrun_catalog_date)
      set(clefrun_catalog_date "${d}")
    endif()
  endforeach()
endif()
if(NOT clefrun_catalog_date MATCHES "^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]$")
  message(FATAL_ERROR "catalog date '${clefrun_catalog_date}' is not YYYY-MM-DD "
                      "(set -DCLEFRUN_CATALOG_DATE=YYYY-MM-DD)")
endif()
set(clefrun_catalog_version "${CLEFRUN_CATALOG_VERSION}")
if(NOT clefrun_catalog_version)
  string(REPLACE "-" "." clefrun_catalog_version "${clefrun_catalog_date}")
endif()
if(clefrun_catalog_version MATCHES "[\"\\\\]")
  message(FATAL_ERROR "CLEFRUN_CATALOG_VERSION may not contain quotes or backslashes")
endif()
message(STATUS "Catalog ${clefrun_catalog_version} of ${clefrun_catalog_date}")
# Rewritten only when it changes: the embedded catalog depends on it, so a new
# date or version rebuilds it and nothing else.
set(CLEFRUN_CATALOG_STAMP ${CMAKE_CURRENT_BINARY_DIR}/catalog_version.txt)
file(CONFIGURE OUTPUT ${CLEFRUN_CATALOG_STAMP}
     CONTENT "${clefrun_catalog_version} ${clefrun_catalog_date}\n")
