// Benchmarks: prints wall time and peak RSS for the scale targets in README.md.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "planlayout/cli/run.hpp"

namespace {

double peak_rss_mb() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
    std::printf("planlayout_bench: no benchmarks yet (%d args, %s)\n", argc, argv[0]);
    std::printf("peak RSS %.1f MB\n", peak_rss_mb());
    return 0;
}
