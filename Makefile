# Entry point wrapping CMake. `make test` is the README's test command and what CI runs.
#
#   make            install missing packages, configure and build (build/)
#   make demo       install missing packages, configure and build the bloomroute
#                   program alone, then the first run: a local cluster, GeoNames
#                   cities500 imported, lookups, verify and the routing-accuracy
#                   report
#   make test       ... then run every test through ctest (but the soak runs),
#                   and the filter tests again under AddressSanitizer + UBSan
#                   (build-asan/)
#   make soak       ... the long runs of the tests labelled "soak" (hostile
#                   clients for a minute per server)
#   make package    build the .deb (build/bloomroute_VERSION_ARCH.deb) with cpack
#   make bench      build and run the benchmarks (not part of `make test`)
#   make compare    bloomroute against PostgreSQL 15 on the same machine and
#                   table (cities500): latency, throughput and load time side
#                   by side, rows checked identical (not part of `make test`)
#   make lab        run the filter lab (`bloomroute lab all`, about a minute) and
#                   regenerate docs/filters.md from its measurements
#   make format     clang-format every C++ file in place
#   make clean      remove the build directories

JOBS       ?= 2
BUILD_TYPE ?= RelWithDebInfo
BUILD_DIR  ?= build
ASAN_DIR   ?= build-asan
CMAKE_ARGS ?=
# Seconds one test may run (those that set their own TIMEOUT keep it): a
# test that hangs fails by name instead of holding `make test` until CI
# gives up. The slowest takes about 250 s, under the sanitizers.
TEST_TIMEOUT ?= 900

.PHONY: all deps configure build demo test test-asan soak package bench compare lab \
  format clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

# The demo runs one program: build that alone (the tests and benchmarks are
# most of the build; `make test` and `make bench` build them).
demo: configure
	cmake --build $(BUILD_DIR) -j$(JOBS) --target bloomroute
	@scripts/install-deps.sh --demo
	scripts/demo.sh $(BUILD_DIR)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j$(JOBS) -LE soak \
	  --timeout $(TEST_TIMEOUT)
	$(MAKE) --no-print-directory test-asan

soak: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -L soak

test-asan: deps
	cmake -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=Debug -DBLOOMROUTE_SANITIZE=ON \
	  -DBLOOMROUTE_BUILD_BENCHMARKS=OFF $(CMAKE_ARGS)
	cmake --build $(ASAN_DIR) -j$(JOBS)
	ctest --test-dir $(ASAN_DIR) --output-on-failure -j$(JOBS) -L sanitize \
	  --timeout $(TEST_TIMEOUT)

package: build
	cd $(BUILD_DIR) && cpack -G DEB

bench: build
	$(BUILD_DIR)/benchmarks/index/filters_benchmark
	$(BUILD_DIR)/benchmarks/regionstore/put_benchmark
	$(BUILD_DIR)/benchmarks/regionstore/bulk_load_benchmark
	$(BUILD_DIR)/benchmarks/regionstore/backfill_benchmark
	$(BUILD_DIR)/benchmarks/regionstore/count_benchmark
	$(BUILD_DIR)/benchmarks/router/lookup_benchmark
	$(BUILD_DIR)/benchmarks/router/routing_benchmark
	$(BUILD_DIR)/benchmarks/router/reshape_benchmark
	$(BUILD_DIR)/benchmarks/thrift/tls_benchmark
	$(BUILD_DIR)/benchmarks/thrift/reply_conversion_benchmark

# Like the demo, one program (and the Python client the comparison drives
# it with); PostgreSQL 15 and psycopg2 are installed only for this target.
compare: configure
	cmake --build $(BUILD_DIR) -j$(JOBS) --target bloomroute bloomroute_thrift_py
	@scripts/install-deps.sh --compare
	scripts/compare_postgres.sh $(BUILD_DIR)

lab: build
	$(BUILD_DIR)/tools/bloomroute lab all --discussion docs/filters.discussion.md \
	  --markdown-out docs/filters.md

format:
	git ls-files '*.h' '*.cc' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR)
