// Tests: telling capture formats apart by content, on every fixture.
#include <doctest/doctest.h>

#include <filesystem>

#include "fixture_support.hpp"
#include "planlayout/ingest/detect_format.hpp"

using planlayout::CaptureFormat;
using planlayout::detect_format;

TEST_CASE("every fixture of a topology format is detected as that format") {
    const std::pair<const char*, CaptureFormat> dirs[] = {
        {"hwloc-xml", CaptureFormat::Hwloc},          {"nvidia-smi-topo", CaptureFormat::NvidiaSmi},
        {"nccl-topo-xml", CaptureFormat::NcclXml},    {"nccl-graph-xml", CaptureFormat::NcclGraph},
        {"slurm-topology", CaptureFormat::Slurm},     {"slurm-topology-yaml", CaptureFormat::SlurmYaml}};
    int n = 0;
    for (const auto& [dir, format] : dirs) {
        for (const auto& e : std::filesystem::directory_iterator(std::string(PLANLAYOUT_FIXTURES_DIR) + "/" + dir)) {
            CAPTURE(e.path().string());
            CHECK(detect_format(fixture::text(std::string(dir) + "/" + e.path().filename().string())) == format);
            ++n;
        }
    }
    CHECK(n == 30);
}

TEST_CASE("logs, test output, garbage and empty text are not topology formats") {
    CHECK(detect_format(fixture::text("nccl-debug-log/nccl2.28.9-2xh200-vm-p2p-cumem-rank0.log")) == CaptureFormat::Unknown);
    CHECK(detect_format(fixture::text("nccl-tests/h200-baremetal-2node-16gpu-all-reduce-nccltests-issue256.txt")) == CaptureFormat::Unknown);
    CHECK(detect_format(std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10)) == CaptureFormat::Unknown);
    CHECK(detect_format("") == CaptureFormat::Unknown);
    CHECK(planlayout::to_string(CaptureFormat::NvidiaSmi) == "nvidia-smi");
}
