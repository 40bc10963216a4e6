# The two commands README opens with: `make test` and `make demo`.
BUILD ?= build
SAN_BUILD ?= build-san
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
JOBS ?= $(shell nproc)

.PHONY: all bootstrap build test test-sanitize test-tsan fuzz demo bench package clean

all: build

bootstrap:
	./scripts/bootstrap

build: bootstrap
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The sanitizer and fuzzing builds keep line tables only: enough for every report's stack trace to
# name files and lines, and a fifth to two fifths less compile time than full debug information
# (CI builds all four trees on two cores).
# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer (CI runs it too), over the
# io_uring backend (PROOFLOAD_IO=uring: `make test` runs it over the default, epoll). clang:
# at -O0 with the sanitizers it compiled this tree in 6 minutes where gcc took 10 (before unity
# builds; 4.5 minutes now), and its UBSan checks alignment of references too.
test-sanitize: bootstrap
	cmake -S . -B $(SAN_BUILD) -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_BUILD_TYPE=Debug -DPROOFLOAD_SANITIZE=ON -DPROOFLOAD_BENCH=OFF \
	  -DCMAKE_CXX_FLAGS_DEBUG="-gline-tables-only" -DCMAKE_C_FLAGS_DEBUG="-gline-tables-only"
	cmake --build $(SAN_BUILD) -j $(JOBS)
	cd $(SAN_BUILD) && PROOFLOAD_IO=uring ctest --output-on-failure -j $(JOBS) -LE "accuracy|timing|heavy|browser|package"

# The suites with threads (CMakeLists.txt's threaded_tests) under ThreadSanitizer (gcc), without
# the timing-sensitive tests (CI runs it too), over io_uring (PROOFLOAD_IO=uring) as the
# sanitizer run. The suites not built are left out by name, and so
# are the fuzz replays (single-threaded: ASan+UBSan runs them). -O1: ThreadSanitizer's
# instrumentation is the same, and it compiles in about half the time of -O2.
test-tsan: bootstrap
	cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROOFLOAD_TSAN=ON -DPROOFLOAD_BENCH=OFF \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
	cmake --build $(TSAN_BUILD) --target threaded_tests -j $(JOBS)
	cd $(TSAN_BUILD) && PROOFLOAD_IO=uring TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
	  ctest --output-on-failure -j $(JOBS) -LE "accuracy|timing|heavy|browser|package" -E "_NOT_BUILT$$|^fuzz_replay_"

# Each libFuzzer harness of fuzz/ for FUZZ_SECONDS (clang, ASan+UBSan; CI runs it too), one a
# core side by side (fuzz/run).
fuzz: bootstrap
	cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROOFLOAD_FUZZ=ON -DPROOFLOAD_BENCH=OFF \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
	  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG"
	cmake --build $(FUZZ_BUILD) --target fuzzers -j $(JOBS)
	./fuzz/run $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The Debian package, build/package/proofload_VERSION_ARCH.deb (cmake/package.cmake): only the
# binary is built for it, with only the build's Debian packages (the Dockerfile's build stage).
package:
	./scripts/bootstrap --build-only
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) --target proofload -j $(JOBS)
	cd $(BUILD) && cpack -G DEB

demo: build
	$(BUILD)/proofload demo

bench: build
	./bench/compare_wrk.sh $(BUILD)/proofload

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
