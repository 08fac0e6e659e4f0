# The README's two commands: `make run` and `make test`. Everything else is a helper.
BUILD_DIR ?= build
JOBS ?= 2
CMAKE_FLAGS ?=
# What the executable needs (make run), and what only the tests and the benchmark add (make test).
BUILD_PACKAGES := cmake g++ make pkg-config libhwloc-dev libyaml-dev libboost-graph-dev nlohmann-json3-dev \
                  libtomlplusplus-dev libgraphviz-dev libcli11-dev
TEST_PACKAGES := doctest-dev librsvg2-bin man-db python3 python3-yaml python3-jsonschema chromium
PACKAGES := $(BUILD_PACKAGES) $(TEST_PACKAGES)

.PHONY: run test setup setup-build build build-cli bench bench-record package fuzz fuzz-build sanitize tidy format clean mutate lint

# Installs whatever of the Debian packages is missing (quiet when all are present): setup all of
# them, setup-build those the executable needs.
setup:
	@$(MAKE) --no-print-directory install-packages WANTED="$(PACKAGES)"

setup-build:
	@$(MAKE) --no-print-directory install-packages WANTED="$(BUILD_PACKAGES)"

.PHONY: install-packages
install-packages:
	@missing=""; for p in $(WANTED); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	    echo "installing:$$missing"; \
	    SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
	    $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

# Everything: the library, the executable, the tests and the benchmark.
build: setup
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DPLANLAYOUT_BUILD_BENCH=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD_DIR) -j$(JOBS)

# The executable alone (no tests, no benchmark, none of their packages); a later make build
# reuses its objects.
build-cli: setup-build
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DPLANLAYOUT_BUILD_BENCH=OFF $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD_DIR) -j$(JOBS) --target plan-layout

# The main job on the embedded default layout.
run: build-cli
	./$(BUILD_DIR)/plan-layout analyze

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS)

# The source lints (no build needed, a few seconds): includes follow the data flow, no function
# over 150 lines and no source over 500 lines without a reason at its top (docs/development.md),
# and every number of the performance model in the registry (tests/lint/model_numbers.py),
# and no tolerance of tests/tolerances.json changed in a commit that changes the model (skipped,
# exit 77, in a shallow clone or outside git).
lint:
	bash tests/lint/check_layers.sh .
	python3 tests/lint/function_lengths.py .
	python3 tests/lint/file_lengths.py .
	python3 tests/lint/model_numbers.py .
	python3 tests/mutate/generate.py --check
	python3 tests/lint/tolerance_commits.py . || [ $$? -eq 77 ]

bench: build
	./$(BUILD_DIR)/planlayout_bench

# The figures of docs/performance.md, measured now, with the date, machine and src/ tree (CI checks
# that they describe the committed src/).
bench-record: build
	bench/record.sh ./$(BUILD_DIR)/planlayout_bench $(CURDIR)

# The Debian package (CPack, cmake/planlayout_install.cmake): $(BUILD_DIR)/plan-layout_<version>_<arch>.deb
# with the executable, data, headers, static libraries, CMake package and planlayout.pc.
package: build
	cd $(BUILD_DIR) && cpack -G DEB
	@ls -l $(BUILD_DIR)/*.deb

clean:
	rm -rf $(BUILD_DIR)

# --- hardening (docs/hardening.md) ---
# One clang build serves both: every target under AddressSanitizer + UndefinedBehaviorSanitizer, the
# libraries also with libFuzzer's coverage (fuzzer-no-link), and one libFuzzer target per reader.
# clang builds it in a fraction of gcc's time under -fsanitize (gcc -O2 -g: 3-4x slower per file),
# and the fuzz targets reuse the sanitizer build's libraries instead of compiling them again.
HARDEN_DIR ?= build-asan
HARDEN_CMAKE := -DPLANLAYOUT_SANITIZE=ON -DPLANLAYOUT_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
    -DPLANLAYOUT_BUILD_BENCH=OFF
FUZZ_DIR ?= $(HARDEN_DIR)
SANITIZE_DIR ?= $(HARDEN_DIR)
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz-build: setup
	@cmake -S . -B $(FUZZ_DIR) $(HARDEN_CMAKE) >/dev/null
	@cmake --build $(FUZZ_DIR) -j$(JOBS) --target fuzz_all

fuzz: fuzz-build
	fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The test suite in that build: every case through the one-process runs (label plain_only, the
# per-case entries, is left to make test) and the harnesses sampled.
sanitize: setup
	@cmake -S . -B $(SANITIZE_DIR) $(HARDEN_CMAKE) >/dev/null
	@cmake --build $(SANITIZE_DIR) -j$(JOBS)
	# HWLOC_COMPONENTS=-pci: hwloc's PCI plugin (libpciaccess) leaks on this host's discovery and is
	# unloaded before LeakSanitizer reports, so no suppression can name it; discover still runs.
	cd $(SANITIZE_DIR) && HWLOC_COMPONENTS=-pci ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/fuzz/lsan.supp:print_suppressions=0 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j$(JOBS) -LE plain_only

# clang-tidy with the repo's .clang-tidy over every source of src/. It reads the compile commands of
# its own folder, $(TIDY_DIR), configured with PLANLAYOUT_UNITY=OFF: the unity build's
# compile_commands.json lists CMake's unity_N_cxx.cxx files instead of the sources, so tidy over
# build/ would check none of them. The folder is only configured, never built (the generated headers
# the sources include are written at configure time). Prints every finding, a count and how many
# sources were checked, and fails when that is not every .cpp under src/.
# TIDY_STRICT=1 (as .ci/run calls it) also fails on any finding.
TIDY_STRICT ?= 0
TIDY_DIR ?= $(BUILD_DIR)/tidy
tidy: setup
	@cmake -S . -B $(TIDY_DIR) -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DPLANLAYOUT_BUILD_BENCH=ON \
	    $(CMAKE_FLAGS) -DPLANLAYOUT_UNITY=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
	@run-clang-tidy -quiet -j $(JOBS) -p $(TIDY_DIR) '$(CURDIR)/src/' >$(BUILD_DIR)/tidy.log 2>&1; \
	sed 's/\x1b\[[0-9;]*m//g' $(BUILD_DIR)/tidy.log | grep -E '^/.*: (warning|error): ' | sort -u >$(BUILD_DIR)/tidy-findings.txt; \
	n=$$(wc -l <$(BUILD_DIR)/tidy-findings.txt); cat $(BUILD_DIR)/tidy-findings.txt; \
	checked=$$(grep -cE '^clang-tidy.* $(CURDIR)/src/.*\.cpp$$' $(BUILD_DIR)/tidy.log); \
	sources=$$(find $(CURDIR)/src -name '*.cpp' | wc -l); \
	echo "clang-tidy: $$n findings over $$checked of the $$sources sources of src/ (full log: $(BUILD_DIR)/tidy.log)"; \
	if [ "$$checked" -ne "$$sources" ]; then echo "clang-tidy checked $$checked sources, not all $$sources of src/" >&2; exit 1; fi; \
	if [ "$(TIDY_STRICT)" = 1 ] && [ "$$n" -ne 0 ]; then exit 1; fi

# --- mutation testing (docs/testing.md) ---
# Applies each mutant of tests/mutate/mutants.txt to the source in place (restored afterwards, also
# when interrupted), rebuilds $(BUILD_DIR) incrementally, runs the tests that should kill it and
# prints killed/survived and the kill rate. MUTATE_SUBSET=N runs N mutants picked by the commit
# (CI); MUTATE_ONLY=id1,id2 runs those. Fails when a mutant survives.
MUTATE_SUBSET ?= 0
MUTATE_ONLY ?=
mutate: build
	python3 tests/mutate/mutate.py --build-dir $(BUILD_DIR) --jobs $(JOBS) --subset $(MUTATE_SUBSET) \
	    $(if $(MUTATE_ONLY),--only $(MUTATE_ONLY))
