#!/bin/sh
# Names the fake GPU stack (Note [Fake GPU], tests/fakegpu/fake_cuda.cpp) after the CUDA libraries
# that libtocha.so needs, and after those it opens on first use (Note [Lazy CUDA libraries]), so
# that LD_LIBRARY_PATH=<dir> loads it in their place.
# The links are relative and sit next to the fake, so a build folder carried elsewhere keeps them.
# Usage: link_names.sh <libtocha.so> <libtocha_fakegpu.so> [soname opened on first use...]
set -e
lib=$1 fake=$2
shift 2
dir=$(dirname "$fake")
{
  readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(lib\(cudart\|cublas\|cudnn\|cusolver\)\.so[^]]*\)\].*/\1/p'
  for name in "$@"; do echo "$name"; done
} | while read -r name; do ln -sf "$(basename "$fake")" "$dir/$name"; done
