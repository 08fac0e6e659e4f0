// Benchmarks: the scale targets of docs/performance.md, each run in a child process so that its wall
// time and peak RSS are its own. Prints one line per benchmark; never fails on a slow machine.
//   planlayout_bench [NAME...]      (no names: all)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "planlayout/cli/run.hpp"

namespace {

struct Bench {
    const char* name;
    const char* target;  // the goal, as the issue states it
    std::vector<std::string> args;
};

std::vector<Bench> benches(const std::string& tmp) {
    return {
        {"groups-131k-json", "<= 0.25 s, <= 300 MB",
         {"plan-layout", "groups", "--world", "131072", "--tp", "8", "--pp", "16", "--cp", "2", "--ep", "64", "--etp",
          "1", "--format", "json", "-o", tmp + "/groups-131k.json"}},
        {"groups-1m-json", "<= 2 s, <= 64 MB (streamed)",
         {"plan-layout", "groups", "--world", "1048576", "--tp", "8", "--pp", "16", "--cp", "2", "--ep", "64", "--etp",
          "1", "--format", "json", "-o", tmp + "/groups-1m.json"}},
        {"analyze-16384x8", "<= 1 s, <= 1 GB (structure)",
         {"plan-layout", "analyze", tmp + "/layout-16384x8.json", "--format", "json", "-o", tmp + "/analyze.json"}},
        {"search-16384-gpus-moe", "<= 5 s (every layout)",
         {"plan-layout", "search", tmp + "/layout-2048x8-moe.json", "--model", tmp + "/layout-2048x8-moe.json", "--top",
          "0", "--format", "json", "-o", tmp + "/search.json"}},
        {"svg-1024-aggregated", "<= 5 s",
         {"plan-layout", "analyze", tmp + "/layout-1024x8.json", "--format", "svg", "--view", "groups", "--kind", "ep", "-o",
          tmp + "/groups-1024.svg"}},
    };
}

// A 16,384-node H100 cluster, rail-aligned two-tier fabric, TP8 PP16 CP2 EP64.
void write_layouts(const std::string& tmp) {
    std::ofstream(tmp + "/layout-16384x8.json")
        << R"({"cluster": {"nodes": 16384, "node": "h100-hgx-8gpu-8nic",
               "fabric": {"rails": "aligned", "nodes_per_su": 32, "sus_per_pod": 512, "pxn": true}},
               "parallel": {"tp": 8, "pp": 16, "cp": 2, "ep": 64}})";
    // 16,384 GPUs (2,048 nodes), a DeepSeek-V3-sized MoE model: the search benchmark.
    std::ofstream(tmp + "/layout-2048x8-moe.json")
        << R"({"cluster": {"nodes": 2048, "node": "h100-hgx-8gpu-8nic",
               "fabric": {"rails": "aligned", "nodes_per_su": 32, "sus_per_pod": 64, "pxn": true}},
               "parallel": {"tp": 8, "pp": 16, "ep": 64},
               "model": {"layers": 64, "first_dense_layers": 3, "hidden": 7168, "heads": 128, "kv_heads": 128,
                         "head_dim": 128, "ffn_hidden": 18432, "vocab": 129280,
                         "moe": {"experts": 256, "topk": 8, "ffn_hidden": 2048, "shared_experts": 1}},
               "training": {"global_batch": 16384, "micro_batch": 1, "seq_len": 4096, "distributed_optimizer": true},
               "transport": {"compare": ["tcp", "gdrdma"]}})";
    // 1,024 nodes (8,192 GPUs) in 32 scalable units: EP=64 all-to-all spans 8 nodes per group.
    std::ofstream(tmp + "/layout-1024x8.json")
        << R"({"cluster": {"nodes": 1024, "node": "h100-hgx-8gpu-8nic",
               "fabric": {"rails": "aligned", "nodes_per_su": 32, "sus_per_pod": 16, "pxn": true}},
               "parallel": {"tp": 1, "pp": 4, "cp": 1, "ep": 64}})";
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> wanted(argv + 1, argv + argc);
    const std::string tmp = (std::filesystem::temp_directory_path() / "planlayout-bench").string();
    std::filesystem::create_directories(tmp);
    std::printf("%-22s %10s %12s %14s  %s\n", "benchmark", "wall s", "peak RSS MB", "output MB", "target");
    for (const auto& b : benches(tmp)) {
        if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), b.name) == wanted.end()) {
            continue;
        }
        write_layouts(tmp);
        const auto start = std::chrono::steady_clock::now();
        const pid_t pid = fork();
        if (pid == 0) {
            std::ostringstream out;
            std::ostringstream err;
            const int rc = planlayout::run_cli(b.args, out, err);
            if (rc != 0) {
                std::fprintf(stderr, "%s", err.str().c_str());
            }
            _exit(rc);
        }
        int status = 0;
        rusage ru{};
        wait4(pid, &status, 0, &ru);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        double out_mb = 0;
        for (const auto& e : std::filesystem::directory_iterator(tmp)) {
            if (e.path().filename().string().rfind("layout-", 0) != 0) {
                out_mb += static_cast<double>(e.file_size()) / 1e6;
            }
        }
        std::printf("%-22s %10.3f %12.1f %14.1f  %s%s\n", b.name, wall, static_cast<double>(ru.ru_maxrss) / 1024.0, out_mb,
                    b.target, WEXITSTATUS(status) == 0 ? "" : "  (FAILED)");
        std::filesystem::remove_all(tmp);
        std::filesystem::create_directories(tmp);
    }
    std::filesystem::remove_all(tmp);
    return 0;
}
