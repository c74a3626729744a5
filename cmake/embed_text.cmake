# Turn one text file into a C source defining `const char NAME[]` (the bytes,
# NUL-terminated) and `const size_t NAME_len` (without the NUL), the way
# embed.cmake embeds the catalog. A byte array, not a string literal: C11
# compilers need not take literals over 4095 characters.
# Run as: cmake -DIN_FILE=file -DOUT=file.c -DNAME=symbol -P embed_text.cmake
foreach(var IN ITEMS IN_FILE OUT NAME)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_text.cmake: -D${var}=... is required")
  endif()
endforeach()
file(READ "${IN_FILE}" hex HEX)
string(LENGTH "${hex}" hexlen)
math(EXPR len "${hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
get_filename_component(base "${IN_FILE}" NAME)
set(body "/* Generated from ${base} by cmake/embed_text.cmake. Do not edit. */\n#include <stddef.h>\n\n")
string(APPEND body "extern const char ${NAME}[];\nextern const size_t ${NAME}_len;\n")
string(APPEND body "const char ${NAME}[] = {\n${bytes}0x00};\n")
string(APPEND body "const size_t ${NAME}_len = ${len};\n")
string(RANDOM LENGTH 12 scratch)
file(WRITE "${OUT}.${scratch}.tmp" "${body}")
file(COPY_FILE "${OUT}.${scratch}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.${scratch}.tmp")
