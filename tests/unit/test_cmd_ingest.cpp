// Tests: import / discover / lint through run_cli, including bad input (exit 2, no crash).
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "planlayout/cli/run.hpp"

namespace fs = std::filesystem;

namespace {

struct Result {
    int code = 0;
    std::string out;
    std::string err;
};

Result run(std::vector<std::string> args, const std::string& stdin_text = {}) {
    args.insert(args.begin(), "plan-layout");
    std::istringstream in(stdin_text);
    std::ostringstream out;
    std::ostringstream err;
    Result r;
    r.code = planlayout::run_cli(args, out, err, in);
    r.out = out.str();
    r.err = err.str();
    return r;
}

std::string fixture(const std::string& rel) { return std::string(PLANLAYOUT_FIXTURES_DIR) + "/" + rel; }

struct TempDir {
    fs::path path;
    TempDir() : path(fs::temp_directory_path() / ("planlayout-ingest-" + std::to_string(::getpid()))) {
        fs::create_directories(path);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

}  // namespace

TEST_CASE("import prints the template with schema_version 1, in every format and from stdin") {
    const auto a = run({"import", "nvidia-smi", fixture("nvidia-smi-topo/dgx-a100-8gpu-10nic-amd-nps4-clean.txt")});
    REQUIRE(a.code == 0);
    const auto j = nlohmann::json::parse(a.out);
    CHECK(j["schema_version"] == 1);
    CHECK(j["gpus"].size() == 8);
    CHECK(j["source"] == "dgx-a100-8gpu-10nic-amd-nps4-clean.txt");
    std::ifstream f(fixture("nvidia-smi-topo/dgx-a100-8gpu-10nic-amd-nps4-clean.txt"));
    std::stringstream ss;
    ss << f.rdbuf();
    const auto b = run({"import", "auto", "-"}, ss.str());
    REQUIRE(b.code == 0);
    auto jb = nlohmann::json::parse(b.out);
    CHECK(jb["source"] == "<stdin>");
    jb["source"] = j["source"];
    CHECK(jb == j);
    const auto s = run({"import", "slurm", fixture("slurm-topology/topograph-expected-dra-block-topology.conf")});
    CHECK(s.code == 0);
    CHECK(nlohmann::json::parse(s.out)["plugin"] == "block");
}

TEST_CASE("the JSON import writes reads back as a node template, unchanged") {
    const auto a = run({"import", "hwloc", fixture("hwloc-xml/hwloc2-nvidiaDGX2.xml")});
    REQUIRE(a.code == 0);
    const auto b = run({"import", "auto", "-"}, a.out);  // auto also takes node template JSON
    CHECK(b.code == 0);
    auto ja = nlohmann::json::parse(a.out);
    auto jb = nlohmann::json::parse(b.out);
    ja.erase("source");
    jb.erase("source");
    ja.erase("format");
    jb.erase("format");
    CHECK(ja == jb);
}

TEST_CASE("discover works on a host without GPUs") {
    const auto r = run({"discover"});
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["schema_version"] == 1);
    if (j["gpus"].empty()) {
        CHECK(std::find(j["warnings"].begin(), j["warnings"].end(), "no GPUs found on this host") != j["warnings"].end());
    }
}

TEST_CASE("lint exits 1 on errors, 0 otherwise, in text and JSON") {
    const auto bad = run({"lint", fixture("nvidia-smi-topo/dgx1-style-8x-v100-sxm2-1nic-legacy-header.txt")});
    CHECK(bad.code == 1);
    CHECK(bad.out.find("error [gpu-nic-cross-numa] GPU4's nearest RDMA NIC NIC0 (mlx5_0) is SYS") != std::string::npos);
    const auto ok = run({"lint", "--format", "json", fixture("nvidia-smi-topo/dgx-a100-8gpu-10nic-amd-nps4-clean.txt")});
    CHECK(ok.code == 0);
    const auto j = nlohmann::json::parse(ok.out);
    CHECK(j["counts"]["warning"] == 1);
    CHECK(j["findings"][0]["code"] == "nic-not-nearest");
}

TEST_CASE("bad input is a clear error naming the file, exit 2, never a crash") {
    TempDir tmp;
    const auto write = [&](const std::string& name, const std::string& content) {
        std::ofstream(tmp.path / name, std::ios::binary) << content;
        return (tmp.path / name).string();
    };
    SUBCASE("empty file") {
        const auto p = write("empty.txt", "");
        const auto r = run({"import", "auto", p});
        CHECK(r.code == 2);
        CHECK(r.err == "plan-layout: error: " + p + ": the input is empty; pass a topology capture "
                       "(auto, hwloc, nvidia-smi, nccl-xml, slurm, slurm-yaml, k8s-nodes)\n");
    }
    SUBCASE("a directory") {
        const auto r = run({"import", "hwloc", tmp.path.string()});
        CHECK(r.code == 2);
        CHECK(r.err == "plan-layout: error: " + tmp.path.string() + ": is a directory, not a file; name a file inside it\n");
    }
    SUBCASE("binary garbage") {
        std::string junk(4096, '\0');
        for (std::size_t i = 0; i < junk.size(); ++i) {
            junk[i] = static_cast<char>((i * 131U + 7U) & 0xffU);
        }
        const auto p = write("junk.bin", junk);
        for (const char* fmt : {"auto", "hwloc", "nvidia-smi", "nccl-xml", "slurm"}) {
            CAPTURE(fmt);
            const auto r = run({"import", fmt, p});
            CHECK(r.code == 2);
            CHECK(r.err == "plan-layout: error: " + p + ": the input is binary data, not a text capture; pass the "
                           "text output of lstopo, nvidia-smi topo -m, NCCL_TOPO_DUMP_FILE or topology.conf\n");
        }
    }
    SUBCASE("a 100 MB file") {
        const auto p = (tmp.path / "big.xml").string();
        {
            std::ofstream out(p, std::ios::binary);
            const std::string line(1024 * 1024, ' ');
            for (int i = 0; i < 100; ++i) {
                out << line;
            }
        }
        const auto r = run({"lint", p});
        CHECK(r.code == 2);
        CHECK(r.err.find(p + ": file is 104857600 bytes, over the limit of 67108864 bytes") != std::string::npos);
    }
    SUBCASE("truncated XML") {
        std::ifstream f(fixture("nccl-topo-xml/aws-p4d-24xlarge-topo.xml"));
        std::stringstream ss;
        ss << f.rdbuf();
        const auto p = write("cut.xml", ss.str().substr(0, 1500));
        const auto r = run({"import", "nccl-xml", p});
        CHECK(r.code == 2);
        CHECK(r.err.find("plan-layout: error: " + p + ":22: malformed XML: expected =; fix the XML there (is the file truncated or not XML?)\n") == 0);
    }
    SUBCASE("a matrix with a missing column") {
        const auto r = run({"import", "nvidia-smi", "-"}, "\tGPU0\tGPU1\tNIC0\nGPU0\t X \tNV4\nGPU1\tNV4\t X \tPIX\nNIC0\tPIX\tPIX\t X\n");
        CHECK(r.code == 2);
        CHECK(r.err == "plan-layout: error: <stdin>:2: row GPU0 has 2 relation cells, expected 3; each row needs one "
                       "cell per device column; is a column missing?\n");
    }
    SUBCASE("unknown format, missing file, unknown content") {
        CHECK(run({"import", "csv", "x"}).code == 2);
        CHECK(run({"import", "hwloc"}).code == 2);
        CHECK(run({"import", "hwloc", (tmp.path / "nope.xml").string()}).code == 3);
        const auto r = run({"import", "auto", "-"}, "just some words\n");
        CHECK(r.err == "plan-layout: error: <stdin>: cannot tell which topology format this is; name the format: "
                       "plan-layout import hwloc|nvidia-smi|nccl-xml|slurm|slurm-yaml|k8s-nodes FILE\n");
    }
}
