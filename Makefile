# Tocha's front door: installs what is missing, configures CMake, builds, runs.
# `make run` (build Release + the main job) and `make test` (build + ctest) are the README's two commands.
BUILD_DIR  ?= build
BUILD_TYPE ?= Release
JOBS       ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps deps-extra configure build run test test-asan bench install clean

all: build

deps:
	@.ci/deps.sh

deps-extra:
	@.ci/deps.sh --extra

configure: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The main job: trains the Fashion-MNIST MLP (progress bars, test accuracy, confusion matrix);
# the checkpoint and the learning-curve and confusion images go to $(BUILD_DIR)/fashion_mnist_mlp/.
run: build
	$(BUILD_DIR)/tocha examples/fashion_mnist_mlp.lua --out $(BUILD_DIR)/fashion_mnist_mlp

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# AddressSanitizer + UndefinedBehaviorSanitizer build of everything, then the whole suite.
test-asan:
	$(MAKE) test BUILD_DIR=build-asan BUILD_TYPE=RelWithDebInfo CMAKE_FLAGS="-DTOCHA_SANITIZE=ON"

bench: build deps-extra
	$(BUILD_DIR)/tocha bench/overhead.lua

install: build
	cmake --install $(BUILD_DIR) $(if $(PREFIX),--prefix $(PREFIX),)

clean:
	rm -rf $(BUILD_DIR) build-asan
