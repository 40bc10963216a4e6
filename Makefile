# The two commands README opens with: `make test` and `make demo`.
BUILD ?= build
SAN_BUILD ?= build-san
JOBS ?= $(shell nproc)

.PHONY: all bootstrap build test test-sanitize demo bench clean

all: build

bootstrap:
	./scripts/bootstrap

build: bootstrap
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer (CI runs it too).
test-sanitize: bootstrap
	cmake -S . -B $(SAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPROOFLOAD_SANITIZE=ON -DPROOFLOAD_BENCH=OFF
	cmake --build $(SAN_BUILD) -j $(JOBS)
	cd $(SAN_BUILD) && ctest --output-on-failure -j $(JOBS) -LE "accuracy|timing"

demo: build
	$(BUILD)/proofload demo

bench: build
	./bench/compare_wrk.sh $(BUILD)/proofload

clean:
	rm -rf $(BUILD) $(SAN_BUILD)
