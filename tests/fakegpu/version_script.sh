#!/bin/sh
# Writes the linker version script of the fake GPU stack (Note [Fake GPU]): every CUDA symbol that
# libtocha.so binds with a version (libcudart.so.13, libcudnn.so.9...) gets that version, so the
# loader binds it to the fake without "no version information" warnings.
# Usage: version_script.sh <libtocha.so> <out.map>
set -e
objdump -T "$1" | awk '$NF ~ /^(__cuda|cuda|cudnn|cublas|cusolver)/ && $(NF-1) ~ /^\(lib/ {
  v = substr($(NF-1), 2, length($(NF-1)) - 2); syms[v] = syms[v] "  " $NF ";\n" }
  END { for (v in syms) printf "%s {\n global:\n%s};\n", v, syms[v] }' > "$2.tmp"
mv "$2.tmp" "$2"
