#!/usr/bin/env bash
# Installs Tocha into a temporary prefix and builds the embedding examples against it the way a
# user would (find_package(Tocha), and pkg-config for the C host), then checks that both hosts
# predict the same classes as Lua does for a model trained by a Lua script.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
unset TOCHA_LUA_PATH TOCHA_LIB
"$tmp/prefix/bin/tocha" "$src/tests/embed/make_model.lua" "$tmp/model.t7" "$tmp/images.f32" "$tmp/expected.txt" 16

cmake -S "$src/examples/embed" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/build" >/dev/null
"$tmp/build/predict_cpp" "$tmp/model.t7" "$tmp/images.f32" 16 > "$tmp/cpp.txt"
"$tmp/build/predict_c" "$tmp/model.t7" "$tmp/images.f32" 16 > "$tmp/c.txt"
diff "$tmp/expected.txt" "$tmp/cpp.txt"
diff "$tmp/expected.txt" "$tmp/c.txt"

# pkg-config, as a Makefile-based host would use it.
export PKG_CONFIG_PATH="$(dirname "$(find "$tmp/prefix" -name tocha.pc)")"
cc -O1 ${CFLAGS:-} -DEXAMPLE_DIR="\"$src/examples/embed\"" "$src/examples/embed/predict.c" -o "$tmp/predict_pc" \
  $(pkg-config --cflags --libs tocha)
"$tmp/predict_pc" "$tmp/model.t7" "$tmp/images.f32" 16 > "$tmp/pc.txt"
diff "$tmp/expected.txt" "$tmp/pc.txt"
# One LuaJIT in the process: the hosts link libtocha, which links the shared libluajit.
test "$(ldd "$tmp/build/predict_cpp" | grep -c luajit)" = 1
echo "embedding install test: C++, C and pkg-config hosts agree with Lua on 16 images"
