#!/bin/sh
# Names the fake GPU stack (Note [Fake GPU], tests/fakegpu/fake_cuda.cpp) after the CUDA libraries
# that libtocha.so needs, so that LD_LIBRARY_PATH=<dir> loads it in their place.
# The links are relative and sit next to the fake, so a build folder carried elsewhere keeps them.
# Usage: link_names.sh <libtocha.so> <libtocha_fakegpu.so>
set -e
dir=$(dirname "$2")
readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(lib\(cudart\|cublas\|cudnn\|cusolver\)\.so[^]]*\)\].*/\1/p' |
  while read -r name; do ln -sf "$(basename "$2")" "$dir/$name"; done
