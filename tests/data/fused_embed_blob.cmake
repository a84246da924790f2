# cmake -DBLOB=<file.bin> -DTEMPLATE=<program.json> -DOUT=<file.json> -P fused_embed_blob.cmake
# Writes TEMPLATE with the string "@FUSED_BLOB@" replaced by BLOB's bytes as a JSON array (hex
# literals, which flatc reads), so that a .pte carries the blob as inline delegate data.
file(READ ${BLOB} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE ",$" "" bytes "${bytes}")
file(READ ${TEMPLATE} text)
string(REPLACE "\"@FUSED_BLOB@\"" "[${bytes}]" text "${text}")
file(WRITE ${OUT}.tmp "${text}")
file(RENAME ${OUT}.tmp ${OUT})
