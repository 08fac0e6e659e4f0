// Tests: the scheduler JSON, hostfile and launch snippets of the seed's layout A.
#include <doctest/doctest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "planlayout/emit/scheduler_emit.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/plan.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
namespace fs = std::filesystem;

namespace {

Report plan_layout(const std::string& rel) {
    const std::string path = (fs::path(PLANLAYOUT_SOURCE_DIR) / rel).string();
    PlanRequest request;
    request.layout_text = read_text_file(path);
    request.layout_name = rel;
    request.base_dir = parent_dir(path);
    return plan(request);
}

}  // namespace

TEST_CASE("scheduler JSON: every rank's host, local rank, GPU, NIC, NUMA and CPUs; per node the environment") {
    const Report r = plan_layout("layouts/seed-2x8-ep16.json");
    const auto j = nlohmann::json::parse(scheduler_json(r));
    CHECK(j["schema_version"] == 1);
    REQUIRE(j["ranks"].size() == 16);
    for (std::size_t i = 0; i < 16; ++i) {
        const auto& rank = j["ranks"][i];
        CHECK(rank["rank"] == i);
        CHECK(rank["local_rank"] == i % 8);
        CHECK(rank["gpu"] == i % 8);
        CHECK(rank["nic"] == "mlx5_" + std::to_string(i % 8) + ":1");
        CHECK(rank["numa"] == (i % 8 < 4 ? 0 : 1));
        CHECK(rank["cpus"] == (i % 8 < 4 ? "0-55,112-167" : "56-111,168-223"));
    }
    REQUIRE(j["nodes"].size() == 2);
    CHECK(j["nodes"][0]["CUDA_VISIBLE_DEVICES"] == "0,1,2,3,4,5,6,7");
    CHECK(j["nodes"][0]["env"]["NCCL_IB_HCA"] ==
          "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
    CHECK(j["nodes"][0]["env"]["NCCL_CROSS_NIC"] == "0");
    CHECK(j["nodes"][0]["env"]["NCCL_PXN_DISABLE"] == "0");
    CHECK(j["groups"]["ep"].size() == 1);
    CHECK(j["groups"]["ep"][0].size() == 16);
    CHECK(j.contains("score"));
}

TEST_CASE("hostfile and launch snippets name every node once, with its slots and Megatron's flags") {
    const Report r = plan_layout("layouts/seed-2x8-pp2-ep8.json");
    const std::string hosts = hostfile_text(r);
    const std::string host0 = r.cluster.nodes[0].host;
    const std::string host1 = r.cluster.nodes[1].host;
    CHECK(hosts.find(host0 + " slots=8\n") != std::string::npos);
    CHECK(hosts.find(host1 + " slots=8\n") != std::string::npos);
    const std::string launch = launch_text(r);
    CHECK(launch.find("torchrun --nnodes 2 --nproc-per-node 8") != std::string::npos);
    CHECK(launch.find("--pipeline-model-parallel-size 2") != std::string::npos);
    CHECK(launch.find("--expert-model-parallel-size 8") != std::string::npos);
    CHECK(launch.find("srun --nodes 2 --ntasks-per-node 8") != std::string::npos);
    CHECK(launch.find("--cpu-bind=map_ldom:0,0,0,0,1,1,1,1") != std::string::npos);
}
