# The built-in catalog's identity as a C source (cr_embedded_version, _date,
# _sha256); its records are C tables written by src/gen/catalog_gen.c.
# Run as: cmake -DOUT=file.c -DDATA_DIR=dir -DVERSION=x -DDATE=yyyy-mm-dd -P embed.cmake
set(body "/* Generated from the JSON files in data/ by cmake/embed.cmake. Do not edit. */\n\n")
# The digest of the bytes as sha256sum sees them (models, quants, rigs):
# concatenate them into a scratch file and hash that.
string(RANDOM LENGTH 12 scratch)
set(concat "${OUT}.${scratch}.data")
execute_process(COMMAND "${CMAKE_COMMAND}" -E cat "${DATA_DIR}/models.json" "${DATA_DIR}/quants.json"
                        "${DATA_DIR}/rigs.json"
                OUTPUT_FILE "${concat}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "embed.cmake: could not concatenate the data files")
endif()
file(SHA256 "${concat}" digest)
file(REMOVE "${concat}")
string(APPEND body "const char cr_embedded_version[] = \"${VERSION}\";\n")
string(APPEND body "const char cr_embedded_date[] = \"${DATE}\";\n")
string(APPEND body "const char cr_embedded_sha256[] = \"${digest}\";\n")
file(WRITE "${OUT}.${scratch}.tmp" "${body}")
file(COPY_FILE "${OUT}.${scratch}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.${scratch}.tmp")
