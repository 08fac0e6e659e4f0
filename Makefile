# The README's two commands: `make run` and `make test`. Everything else is a helper.
BUILD_DIR ?= build
JOBS ?= 2
CMAKE_FLAGS ?=
PACKAGES := cmake g++ make pkg-config libhwloc-dev libboost-graph-dev nlohmann-json3-dev \
            libgraphviz-dev doctest-dev librsvg2-bin

.PHONY: run test setup build bench fuzz sanitize tidy format clean

# Installs whatever of the Debian packages is missing (quiet when all are present).
setup:
	@missing=""; for p in $(PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	    echo "installing:$$missing"; \
	    SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
	    $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

build: setup
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD_DIR) -j$(JOBS)

# The main job on the embedded default layout.
run: build
	./$(BUILD_DIR)/plan-layout analyze

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS)

bench: build
	./$(BUILD_DIR)/planlayout_bench

clean:
	rm -rf $(BUILD_DIR)
