// Benchmarks: the scale targets of docs/performance.md, each run in a child process so that its wall
// time and peak RSS are its own. Prints one line per benchmark; never fails on a slow machine.
//   planlayout_bench [--markdown] [NAME...]      (no names: all)
// --markdown prints the rows as a Markdown table (bench/record.sh puts it into docs/performance.md).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "planlayout/cli/run.hpp"
#include "generated_inputs.hpp"

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
        // Issue 19: the same job in the other frameworks' conventions, within 1.5x of the Megatron row.
        {"groups-131k-torchtitan", "<= 1.5x groups-131k-json",
         {"plan-layout", "groups", "--world", "131072", "--framework", "torchtitan", "--tp", "8", "--pp", "16", "--cp", "2",
          "--ep", "64", "--format", "json", "-o", tmp + "/groups-131k-tt.json"}},
        {"groups-131k-deepspeed", "<= 1.5x groups-131k-json (no cp: DeepSpeed's grid has none)",
         {"plan-layout", "groups", "--world", "131072", "--framework", "deepspeed", "--tp", "8", "--pp", "16", "--ep", "64",
          "--format", "json", "-o", tmp + "/groups-131k-ds.json"}},
        {"groups-131k-mesh", "<= 1.5x groups-131k-json",
         {"plan-layout", "groups", "--world", "131072", "--mesh", "pp=16,dp=512,cp=2,tp=8", "--flatten", "dp,cp", "--format",
          "json", "-o", tmp + "/groups-131k-mesh.json"}},
        {"groups-1m-json", "<= 2 s, <= 64 MB (streamed)",
         {"plan-layout", "groups", "--world", "1048576", "--tp", "8", "--pp", "16", "--cp", "2", "--ep", "64", "--etp",
          "1", "--format", "json", "-o", tmp + "/groups-1m.json"}},
        {"analyze-16384x8", "<= 1 s, <= 1 GB (structure)",
         {"plan-layout", "analyze", tmp + "/layout-16384x8.json", "--format", "json", "-o", tmp + "/analyze.json"}},
        {"search-16384-gpus-moe", "<= 3 s (every layout, compute model, default memory budget)",
         {"plan-layout", "search", tmp + "/layout-2048x8-moe.json", "--model", tmp + "/layout-2048x8-moe.json", "--top",
          "0", "--format", "json", "-o", tmp + "/search.json"}},
        {"search-16384-moe-unpruned", "<= 5 s (every layout, memory pruning off: a 100000 GiB budget)",
         {"plan-layout", "search", tmp + "/layout-2048x8-moe.json", "--model", tmp + "/layout-2048x8-moe.json", "--top",
          "0", "--gpu-memory", "100000GiB", "--format", "json", "-o", tmp + "/search-all.json"}},
        {"svg-1024-aggregated", "<= 5 s",
         {"plan-layout", "analyze", tmp + "/layout-1024x8.json", "--format", "svg", "--view", "groups", "--kind", "ep", "-o",
          tmp + "/groups-1024.svg"}},
        {"report-1024-nodes", "<= 5 s (issue 17: the HTML page with every view, score and memory)",
         {"plan-layout", "report", tmp + "/layout-1024x8-moe.json", "-o", tmp + "/report-1024.html"}},
        // Issue 17 item 2: the at-scale views of a scored 1,024-node layout (one screen each).
        {"svg-1024-matrix-ep", "<= 5 s",
         {"plan-layout", "analyze", tmp + "/layout-1024x8-moe.json", "--format", "svg", "--view", "matrix", "--kind", "ep",
          "-o", tmp + "/matrix-1024.svg"}},
        {"svg-1024-load", "<= 5 s",
         {"plan-layout", "analyze", tmp + "/layout-1024x8-moe.json", "--format", "svg", "--view", "load", "-o",
          tmp + "/load-1024.svg"}},
        // Issue #20 item 7: large-but-legal inputs, linear work.
        {"analyze-262144-ranks", "<= 2 s",
         {"plan-layout", "analyze", tmp + "/layout-32768x8-tp8.json", "--format", "json", "-o", tmp + "/analyze-262144.json"}},
        // Issue 31: the per-rank placement streamed into the output, the classification 8 bytes a member.
        {"analyze-2m-ranks-json", "<= 128 MB (2,097,152 ranks, scored; the placement streamed)",
         {"plan-layout", "analyze", tmp + "/layout-262144x8-moe.json", "--format", "json", "-o", tmp + "/analyze-2m.json"}},
        {"lint-256-gpu-capture", "<= 1 s",
         {"plan-layout", "lint", tmp + "/layout-smi-256.txt", "-o", tmp + "/lint-256.txt"}},
        {"import-nccl-xml-largest", "<= 5 s (512 GPUs + 512 NICs, the limits)",
         {"plan-layout", "import", "nccl-xml", tmp + "/layout-nccl-512.xml", "-o", tmp + "/import-512.json"}},
        {"groups-2g-dp-text", "<= 0.1 s (one 2^31-rank group)",
         {"plan-layout", "groups", "--world", "2147483648", "--kinds", "dp", "-o", tmp + "/groups-dp.txt"}},
        {"verify-70mb-log-json", "<= 30 s, <= 200 MB (16,384 ranks x 32 channels; ~2x the log)",
         {"plan-layout", "verify", tmp + "/layout-nccl-2048x8.log", "--nodes", "2048", "--gpus-per-node", "8", "--format",
          "json", "-o", tmp + "/verify.json"}},
        {"verify-160mb-log", "<= 60 s, <= 400 MB (43,008 ranks x 32 channels; ~2x the log)",
         {"plan-layout", "verify", tmp + "/layout-nccl-5376x8.log", "--nodes", "5376", "--gpus-per-node", "8", "--format",
          "json", "-o", tmp + "/verify.json"}},
        {"import-smi-largest", "<= 1 s (1024 x 1024 nvidia-smi matrix: 512 GPUs + 512 NICs, the limits)",
         {"plan-layout", "import", "nvidia-smi", tmp + "/layout-smi-512.txt", "-o", tmp + "/import-smi-512.json"}},
    };
}

// Large captures from the generators the scale tests use (tests/support/generated_inputs.hpp).
void write_smi_capture(const std::string& path, int gpus) { std::ofstream(path) << planlayout::testing::smi_matrix(gpus); }

void write_nccl_xml(const std::string& path, int gpus) {
    std::ofstream(path) << planlayout::testing::nccl_xml(gpus, /*nvlink=*/true);
}

// An NCCL INFO log of a rail-aligned ring job: every rank prints its channels' connections.
void write_nccl_log(const std::string& path, int nodes, int channels) {
    constexpr int kGpus = 8;
    std::ofstream f(path);
    for (int r = 0; r < nodes * kGpus; ++r) {
        const int n = r / kGpus;
        const int g = r % kGpus;
        char env[96];
        std::snprintf(env, sizeof env, "[1,%d]<stdout>:node-%05d:%d:%d [%d] NCCL INFO ", r, n, 4100 + r, 4300 + r, g);
        if (r == 0) {
            f << env << "NCCL version 2.21.5+cuda12.4\n";
        }
        f << env << "NET/IB : Using";
        for (int i = 0; i < kGpus; ++i) {
            f << " [" << i << "]mlx5_" << i << ":1/IB";
        }
        f << " [RO]; OOB eth0:10.0.0.1<0>\n" << env << "Using network IB\n";
        for (int c = 0; c < channels; ++c) {
            char ch[8];
            std::snprintf(ch, sizeof ch, "%02d", c);
            if (g < kGpus - 1) {
                f << env << "Channel " << ch << "/0 : " << r << "[" << g << "] -> " << r + 1 << "[" << g + 1
                  << "] via P2P/CUMEM/read\n";
            } else {
                f << env << "Channel " << ch << "/0 : " << r << "[" << g << "] -> " << ((n + 1) % nodes) * kGpus + g << "[" << g
                  << "] [send] via NET/IB/" << g << "/GDRDMA\n";
            }
        }
    }
}

// A 16,384-node H100 cluster, rail-aligned two-tier fabric, TP8 PP16 CP2 EP64.
void write_layouts(const std::string& tmp, const std::string& name) {
    // 32,768 nodes x 8 GPUs, TP8: dp rings span every node (issue #20).
    std::ofstream(tmp + "/layout-32768x8-tp8.json")
        << R"({"cluster": {"nodes": 32768, "node": "h100-hgx-8gpu-8nic",
               "fabric": {"rails": "aligned", "nodes_per_su": 32, "sus_per_pod": 1024, "pxn": true}},
               "parallel": {"tp": 8}})";
    // The big generated inputs only for their own benchmark.
    if (name == "lint-256-gpu-capture") {
        write_smi_capture(tmp + "/layout-smi-256.txt", 256);
    } else if (name == "import-nccl-xml-largest") {
        write_nccl_xml(tmp + "/layout-nccl-512.xml", 512);
    } else if (name == "verify-70mb-log-json") {
        write_nccl_log(tmp + "/layout-nccl-2048x8.log", 2048, 32);
    } else if (name == "verify-160mb-log") {
        write_nccl_log(tmp + "/layout-nccl-5376x8.log", 5376, 32);
    } else if (name == "import-smi-largest") {
        write_smi_capture(tmp + "/layout-smi-512.txt", 512);
    }
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
    // layouts/h100-1024node-tp8-pp8-ep64.json: 1,024 nodes, two pods, a DeepSeek-V3-sized MoE, scored.
    std::ofstream(tmp + "/layout-1024x8-moe.json")
        << R"({"cluster": {"nodes": 1024, "node": "h100-hgx-8gpu-8nic",
               "fabric": {"rails": "aligned", "nodes_per_su": 32, "sus_per_pod": 16, "pxn": true}},
               "parallel": {"tp": 8, "pp": 8, "ep": 64},
               "model": {"layers": 64, "first_dense_layers": 3, "hidden": 7168, "heads": 128, "kv_heads": 128,
                         "head_dim": 128, "ffn_hidden": 18432, "vocab": 129280,
                         "moe": {"experts": 256, "topk": 8, "ffn_hidden": 2048, "shared_experts": 1}},
               "training": {"global_batch": 4096, "micro_batch": 1, "seq_len": 4096, "distributed_optimizer": true},
               "transport": {"compare": ["tcp", "gdrdma"]}})";
    // The same at the limits: 262,144 nodes (2,097,152 GPUs), 512 pods; the batch covers dp 32,768.
    std::ofstream(tmp + "/layout-262144x8-moe.json")
        << R"({"cluster": {"nodes": 262144, "node": "h100-hgx-8gpu-8nic",
               "fabric": {"rails": "aligned", "nodes_per_su": 32, "sus_per_pod": 16, "pxn": true}},
               "parallel": {"tp": 8, "pp": 8, "ep": 64},
               "model": {"layers": 64, "first_dense_layers": 3, "hidden": 7168, "heads": 128, "kv_heads": 128,
                         "head_dim": 128, "ffn_hidden": 18432, "vocab": 129280,
                         "moe": {"experts": 256, "topk": 8, "ffn_hidden": 2048, "shared_experts": 1}},
               "training": {"global_batch": 65536, "micro_batch": 1, "seq_len": 4096, "distributed_optimizer": true},
               "transport": {"compare": ["tcp", "gdrdma"]}})";
    // 1,024 nodes (8,192 GPUs) in 32 scalable units: EP=64 all-to-all spans 8 nodes per group.
    std::ofstream(tmp + "/layout-1024x8.json")
        << R"({"cluster": {"nodes": 1024, "node": "h100-hgx-8gpu-8nic",
               "fabric": {"rails": "aligned", "nodes_per_su": 32, "sus_per_pod": 16, "pxn": true}},
               "parallel": {"tp": 1, "pp": 4, "cp": 1, "ep": 64}})";
    // The same cluster and spec with a model and training: the report draws and scores it all.
    std::ofstream(tmp + "/layout-1024x8-moe.json")
        << R"({"cluster": {"nodes": 1024, "node": "h100-hgx-8gpu-8nic",
               "fabric": {"rails": "aligned", "nodes_per_su": 32, "sus_per_pod": 16, "pxn": true}},
               "parallel": {"tp": 1, "pp": 4, "cp": 1, "ep": 64},
               "model": {"layers": 48, "first_dense_layers": 3, "hidden": 4096, "heads": 32, "kv_heads": 4,
                         "head_dim": 128, "ffn_hidden": 12288, "vocab": 129280,
                         "moe": {"experts": 256, "topk": 8, "ffn_hidden": 2048, "shared_experts": 1}},
               "training": {"global_batch": 4096, "micro_batch": 1, "seq_len": 4096},
               "transport": {"compare": ["tcp", "gdrdma"]}})";
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> wanted(argv + 1, argv + argc);
    const bool markdown = std::find(wanted.begin(), wanted.end(), "--markdown") != wanted.end();
    wanted.erase(std::remove(wanted.begin(), wanted.end(), "--markdown"), wanted.end());
    // A folder of its own (mkdtemp): two benchmark runs at once must not share or remove each
    // other's inputs.
    std::string pattern = (std::filesystem::temp_directory_path() / "planlayout-bench.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
        std::perror("planlayout_bench: mkdtemp");
        return 1;
    }
    const std::string tmp = pattern;
    if (markdown) {
        std::printf("| benchmark | wall s | peak RSS MB | output MB | goal |\n|---|---|---|---|---|\n");
    } else {
        std::printf("%-24s %10s %12s %14s  %s\n", "benchmark", "wall s", "peak RSS MB", "output MB", "target");
    }
    std::fflush(stdout);
    for (const auto& b : benches(tmp)) {
        if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), b.name) == wanted.end()) {
            continue;
        }
        write_layouts(tmp, b.name);
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
        const char* failed = WEXITSTATUS(status) == 0 ? "" : "  (FAILED)";
        if (markdown) {
            std::printf("| `%s` | %.3f | %.1f | %.1f | %s%s |\n", b.name, wall, static_cast<double>(ru.ru_maxrss) / 1024.0,
                        out_mb, b.target, failed);
        } else {
            std::printf("%-24s %10.3f %12.1f %14.1f  %s%s\n", b.name, wall, static_cast<double>(ru.ru_maxrss) / 1024.0,
                        out_mb, b.target, failed);
        }
        std::fflush(stdout);
        std::filesystem::remove_all(tmp);
        std::filesystem::create_directories(tmp);
    }
    std::filesystem::remove_all(tmp);
    return 0;
}
