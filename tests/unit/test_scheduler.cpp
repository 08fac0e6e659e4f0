// Tests: the scheduler JSON, hostfile and launch snippets of the seed's layout A.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "planlayout/emit/nccl_topo_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/emit/scheduler_emit.hpp"
#include "planlayout/ingest/nccl_topo_xml.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/launch_script.hpp"
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

// The seed's layout A with what a capture of its nodes would add (the built-in template has no
// bus ids and no CPU ids): GPU i at 0000:(18+i):00.0, NIC i at 0000:(58+i):00.0, Intel CPUs.
Report seed_with_capture_ids() {
    Report r = plan_layout("layouts/seed-2x8-ep16.json");
    for (auto& t : r.cluster.templates) {
        for (std::size_t i = 0; i < t.gpus.size(); ++i) {
            t.gpus[i].bus_id = "0000:" + std::to_string(18 + i) + ":00.0";
        }
        for (std::size_t i = 0; i < t.nics.size(); ++i) {
            t.nics[i].bus_id = "0000:" + std::to_string(58 + i) + ":00.0";
        }
        for (auto& c : t.cpus) {
            c.arch = "x86_64";
            c.vendor = "GenuineIntel";
            c.family_id = 6;
            c.model_id = 143;
        }
    }
    return r;
}

}  // namespace

TEST_CASE("scheduler JSON: every rank's host, local rank, GPU, NIC, NUMA and CPUs - per node the environment") {
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
    CHECK(hostfile_text(r, "mpich").find(host0 + ":8\n") != std::string::npos);
    CHECK(hostfile_text(r, "deepspeed") == hosts);
    CHECK_THROWS(hostfile_text(r, "lsf"));
    // No --megatron-args: pretrain_gpt.py and the sizes that differ from Megatron's defaults.
    const std::string launch = launch_text(r, LaunchOptions{"torchrun", "", {}, ""});
    CHECK(launch.find("exec torchrun --nnodes 2 --nproc-per-node 8 --node-rank \"$NODE_RANK\"") != std::string::npos);
    CHECK(launch.find("set -- pretrain_gpt.py --pipeline-model-parallel-size 2 --expert-model-parallel-size 8\n") !=
          std::string::npos);
    const std::string tasks = launch_text(r, LaunchOptions{"slurm-tasks", "", {}, ""});
    CHECK(tasks.find("#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=8\n#SBATCH --gpus-per-node=8\n") != std::string::npos);
    CHECK(tasks.find("srun --nodes=2 --ntasks-per-node=8 --export=ALL --cpu-bind=map_ldom:0,0,0,0,1,1,1,1") !=
          std::string::npos);
    // The plan's rank from the plan's node rank (found by host name): SLURM_PROCID follows Slurm's node order.
    CHECK(tasks.find("export RANK=$((NODE_RANK * 8 + SLURM_LOCALID)) LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=$SLURM_NTASKS\n") !=
          std::string::npos);
    CHECK(tasks.find("SLURM_PROCID") == std::string::npos);
    CHECK(tasks.find("SLURM_NODEID") == std::string::npos);
    // GPUs set inside the task, after srun (which sets CUDA_VISIBLE_DEVICES per step), not before it.
    const auto gpus = tasks.find("export CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7");
    CHECK(gpus != std::string::npos);
    CHECK(gpus > tasks.find("read -r -d '' TASK"));
    CHECK(tasks.find("HCA=(=mlx5_0:1 =mlx5_1:1 ") != std::string::npos);
    CHECK_THROWS(launch_text(r, LaunchOptions{"mpirun", "", {}, ""}));
}

TEST_CASE("launch: the user's arguments pass on unchanged but the parallel sizes, set to the plan's") {
    const Report r = plan_layout("layouts/seed-2x8-pp2-ep8.json");  // tp 1, pp 2, ep 8
    const std::vector<LaunchArg> given = {{"--tensor_model_parallel_size=4", false}, {"--data-path", false},
                                          {"/my data/x", false},  {"--pipeline-model-parallel-size", false},
                                          {"4", false},           {"--save", false},
                                          {"$CKPT/run", true, {{"${CKPT-}", true, false}, {"/run", false, false}}}};
    const auto out = with_plan_sizes(r, given);
    REQUIRE(out.size() == 9);
    CHECK(out[0].text == "--tensor_model_parallel_size=1");
    CHECK(out[2].text == "/my data/x");
    CHECK(out[4].text == "2");
    CHECK(out[6].text == "$CKPT/run");
    CHECK(out[6].runtime);
    CHECK(out[7].text == "--expert-model-parallel-size");
    CHECK(out[8].text == "8");
    const std::string text = launch_text(r, LaunchOptions{"slurm-torchrun", "train.py", given, "t.sh:3"});
    CHECK(text.find("train.py --tensor_model_parallel_size=1 --data-path '/my data/x'") != std::string::npos);
    CHECK(text.find(" ${CKPT-}/run") != std::string::npos);  // unquoted in the script: bare, split as there
    CHECK(text.find("bash -c \"$TASK\" plan-layout-task") != std::string::npos);
}

TEST_CASE("launch (issue 27 items 1, 2): known text single-quoted, the script's unknown variables in the quoting they had") {
    const Report r = plan_layout("layouts/seed-2x8-pp2-ep8.json");
    const auto words = read_launch_script(
        "torchrun p.py --pipeline-model-parallel-size 2 --expert-model-parallel-size 8 --save '$(touch /tmp/x)'\"$UNSET_DIR\" "
        "--name 'a\\'\"$2\" $EXTRA_ARGS --tag ${TAG:-run-1}",
        "t.sh", {});
    const auto training = training_command(words);
    REQUIRE(training);
    LaunchOptions o{"torchrun", training->script.text, {}, "t.sh:1"};
    for (const auto& w : training->args) {  // as analyze --format launch passes them
        REQUIRE_FALSE(w.refusal);
        LaunchArg a{w.text, false, {}};
        for (const auto& p : w.parts) {
            a.parts.push_back({p.text, p.expansion, p.quoted});
            a.runtime = a.runtime || p.expansion;
        }
        o.args.push_back(a.runtime ? a : LaunchArg{w.text, false, {}});
    }
    const std::string text = launch_text(r, o);
    CHECK(text.find("--save '$(touch /tmp/x)'\"${UNSET_DIR-}\" --name 'a\\'\"${2-}\" ${EXTRA_ARGS-} \\\n") != std::string::npos);
    CHECK(text.find("--tag ${TAG:-run-1}\n") != std::string::npos);
    CHECK(text.find("\"$(touch") == std::string::npos);  // never inside double quotes, where the job would run it
}

TEST_CASE("launch: the one shell-word writer runs only the expansions the reader makes") {
    const Report r = plan_layout("layouts/seed-2x8-pp2-ep8.json");
    const auto with_part = [&](const std::string& expansion) {
        const std::vector<LaunchArg> given = {{"--save", false}, {"x", true, {{expansion, true, true}}}};
        return launch_text(r, LaunchOptions{"torchrun", "train.py", given, "t.sh:1"});
    };
    for (const char* ok : {"${X-}", "${1-}", "$@", "$*", "$#", "${X:-/data/a.b}", "${X-v}", "${X:+--flag}"}) {
        CAPTURE(ok);
        CHECK_NOTHROW((void)with_part(ok));
    }
    // Script text reaching the writer as an "expansion" would run in the job: refused as a bug (exit 4).
    for (const char* bad : {"$(touch /tmp/x)", "${X#a}", "`id`", "${X:-$(id)}", "${X-a b}", "$X", "${1X-}", "${-}"}) {
        CAPTURE(bad);
        CHECK_THROWS_WITH_AS((void)with_part(bad), doctest::Contains("an expansion the job cannot run as written"), Error);
    }
}

TEST_CASE("nccl-topo: the XML read back by the NCCL XML reader gives the node's GPUs, NICs, PCIe tree, NVLink and NUMA") {
    const Report r = seed_with_capture_ids();
    const std::string xml = nccl_topo_xml(r, r.cluster.nodes[1].host);
    CHECK(xml.find("<system version=\"1\">") != std::string::npos);
    // What NCCL fills for its own GPU and then keeps is never written (issue 31): rank, gdr, dev, sm.
    for (const char* filled : {" rank=", " gdr=", " sm=", "<gpu dev="}) {
        CAPTURE(filled);
        CHECK(xml.find(filled) == std::string::npos);
    }
    CHECK(xml.find(R"(<cpu numaid="0" affinity="000000ff,ffffffff,ffff0000,00000000,00ffffff,ffffffff" arch="x86_64" )"
                   R"(vendor="GenuineIntel" familyid="6" modelid="143">)") != std::string::npos);
    CHECK(xml.find(R"(<pci busid="0000:18:00.0" class="0x030200" vendor="0x10de" link_speed="32.0 GT/s PCIe" link_width="16">)") !=
          std::string::npos);
    const NodeTemplate back = read_nccl_topo_xml(xml, "written.xml");
    const NodeTemplate& t = r.cluster.template_of(1);
    REQUIRE(back.gpus.size() == t.gpus.size());
    REQUIRE(back.nics.size() == t.nics.size());
    REQUIRE(back.cpus.size() == t.cpus.size());
    CHECK(back.pcie_switches.size() == t.pcie_switches.size());
    for (std::size_t i = 0; i < t.cpus.size(); ++i) {
        CHECK(back.cpus[i].numa == t.cpus[i].numa);
        CHECK(back.cpus[i].cpuset == t.cpus[i].cpuset);
        CHECK(back.cpus[i].arch == t.cpus[i].arch);
        CHECK(back.cpus[i].vendor == t.cpus[i].vendor);
        CHECK(back.cpus[i].family_id == t.cpus[i].family_id);
        CHECK(back.cpus[i].model_id == t.cpus[i].model_id);
    }
    for (std::size_t i = 0; i < t.gpus.size(); ++i) {
        CHECK(back.gpus[i].bus_id == t.gpus[i].bus_id);
    }
    for (std::size_t i = 0; i < t.gpus.size(); ++i) {
        CHECK(back.gpus[i].numa == t.gpus[i].numa);
        CHECK(back.gpus[i].pcie.gen == t.gpus[i].pcie.gen);
        CHECK(back.gpus[i].pcie.width == t.gpus[i].pcie.width);
    }
    for (std::size_t i = 0; i < t.nics.size(); ++i) {
        CHECK(back.nics[i].device == t.nics[i].device);
        CHECK(back.nics[i].port == t.nics[i].port);
        CHECK(back.nics[i].numa == t.nics[i].numa);
        CHECK(back.nics[i].speed_gbit_s == t.nics[i].speed_gbit_s);
        CHECK(back.nics[i].link_layer == t.nics[i].link_layer);
    }
    CHECK(back.nvlink.nvswitch == t.nvlink.nvswitch);
    CHECK(back.nvlink.links_per_gpu == t.nvlink.links_per_gpu);
    CHECK(back.gdr_level == t.gdr_level);
    // Every GPU/NIC pair has the same PCIe class (PIX for GPU i and NIC i, ...), as derived.
    CHECK(gpu_nic_classes(back) == gpu_nic_classes(t));
    CHECK_THROWS(nccl_topo_xml(r, "node9"));
}

TEST_CASE("nccl-topo: refused where NCCL would load another machine or stop - GPUs without bus ids, CPUs without ids") {
    const Report bare = plan_layout("layouts/seed-2x8-ep16.json");  // a hand-written template: no bus ids
    CHECK_THROWS_WITH_AS(nccl_topo_xml(bare, ""),
                         doctest::Contains("node template h100-hgx-8gpu-8nic (layouts/nodes/h100-hgx-8gpu-8nic.json): GPU0 has no PCI "
                                           "bus id; NCCL matches the file's GPUs to the machine's by bus id"),
                         Error);
    Report r = seed_with_capture_ids();
    r.cluster.templates[0].cpus[1].arch.clear();  // two CPUs: NCCL fills only the one above its own GPU
    CHECK_THROWS_WITH_AS(nccl_topo_xml(r, ""), doctest::Contains("CPU1 has no arch/vendor/familyid/modelid"), Error);
    r.cluster.templates[0].cpus[1].arch = "x86_64";
    r.cluster.templates[0].cpus[1].model_id = -1;  // Intel: NCCL reads the model to pick its CPU bandwidth
    CHECK_THROWS_WITH_AS(nccl_topo_xml(r, ""), doctest::Contains("CPU1 has no arch"), Error);
    r.cluster.templates[0].cpus[1].vendor = "AuthenticAMD";  // AMD: NCCL reads no family or model
    CHECK_NOTHROW((void)nccl_topo_xml(r, ""));
    // One CPU: NCCL fills its ids from the machine it runs on, so none are needed.
    Report one = seed_with_capture_ids();
    NodeTemplate& t = one.cluster.templates[0];
    t.cpus.resize(1);
    t.cpus[0].arch.clear();
    const auto on_cpu0 = [](std::string& parent) {
        if (parent.rfind("CPU", 0) == 0) {
            parent = "CPU0";
        }
    };
    for (auto& g : t.gpus) {
        on_cpu0(g.parent);
        g.numa = 0;
    }
    for (auto& sw : t.pcie_switches) {
        on_cpu0(sw.parent);
    }
    for (auto& n : t.nics) {
        on_cpu0(n.parent);
        n.numa = 0;
    }
    const std::string xml = nccl_topo_xml(one, "");
    CHECK(xml.find("<cpu numaid=\"0\"") != std::string::npos);
    CHECK(xml.find(" arch=") == std::string::npos);
    CHECK(xml.find("the CPU's arch, vendor, family and model") != std::string::npos);  // said in the header
}

TEST_CASE("nccl-topo: a real NCCL topology file read, written and read again keeps its facts") {
    for (const char* name : {"azure-ndv5-topo.xml", "aws-p4d-24xlarge-topo.xml", "pcie-8x-rtx3090-plx-switch-cx6-ib-topo.xml"}) {
        CAPTURE(name);
        const std::string path = std::string(PLANLAYOUT_FIXTURES_DIR) + "/nccl-topo-xml/" + name;
        const NodeTemplate first = read_nccl_topo_xml(read_text_file(path), name);
        Report r;
        r.cluster.templates.push_back(first);
        r.cluster.nodes.push_back({});
        r.cluster.nodes[0].host = "n0";
        r.placement.node.assign(first.gpus.size(), 0);
        for (std::size_t i = 0; i < first.gpus.size(); ++i) {
            r.placement.gpu.push_back(static_cast<std::int32_t>(i));
        }
        const NodeTemplate again = read_nccl_topo_xml(nccl_topo_xml(r, "n0"), "again.xml");
        REQUIRE(again.gpus.size() == first.gpus.size());
        REQUIRE(again.nics.size() == first.nics.size());
        CHECK(again.pcie_switches.size() == first.pcie_switches.size());
        CHECK(gpu_nic_classes(again) == gpu_nic_classes(first));
        for (std::size_t i = 0; i < first.nics.size(); ++i) {
            CHECK(again.nics[i].device == first.nics[i].device);
            CHECK(again.nics[i].link_layer == first.nics[i].link_layer);
        }
    }
}

TEST_CASE("nccl-topo: a hostile bus id or NIC name stays inside its attribute - the comments hold no \"--\"") {
    Report r = seed_with_capture_ids();
    NodeTemplate& t = r.cluster.templates[0];
    const std::string plain = nccl_topo_xml(r, r.cluster.nodes[0].host);
    // Straight into the report, as a library caller could (the readers refuse these at entry).
    t.gpus[0].bus_id = "0000:01:00.0\" evil=\"1\"><inject/>";
    t.nics[0].device = "mlx5_0\"/><inject/><x a=\"";
    r.cluster.nodes[0].host = "node0 --><inject/><!--";
    const std::string xml = nccl_topo_xml(r, r.cluster.nodes[0].host);
    auto without_comments = [](std::string text) {
        for (auto open = text.find("<!--"); open != std::string::npos; open = text.find("<!--")) {
            text.erase(open, text.find("-->", open) + 3 - open);
        }
        return text;
    };
    CHECK(without_comments(xml).find("<inject/>") == std::string::npos);  // inside a comment it is text
    CHECK(xml.find(" evil=\"1\"") == std::string::npos);
    CHECK(xml.find("busid=\"0000:01:00.0&quot; evil=&quot;1&quot;&gt;&lt;inject/&gt;\"") != std::string::npos);
    // Every comment, in both outputs: no "--" between <!-- and -->.
    for (const std::string* text : {&plain, &xml}) {
        for (auto open = text->find("<!--"); open != std::string::npos; open = text->find("<!--", open + 4)) {
            const auto close = text->find("-->", open + 4);
            REQUIRE(close != std::string::npos);
            const std::string body = text->substr(open + 4, close - open - 4);
            CHECK_MESSAGE(body.find("--") == std::string::npos, body);
            CHECK(body.back() != '-');
        }
    }
    // Same elements as with clean names, outside the comments.
    auto tags = [&](const std::string& text) {
        const std::string stripped = without_comments(text);
        return std::count(stripped.begin(), stripped.end(), '<');
    };
    CHECK(tags(xml) == tags(plain));
}

TEST_CASE("bus ids are checked at read: template JSON and NCCL XML refuse anything but DDDD:BB:DD.F") {
    const std::string xml = R"(<system version="1"><cpu numaid="0" affinity="ff"><pci busid="0000:18:00.0&quot; evil=&quot;1" )"
                            R"(class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16"><gpu dev="0" sm="90" rank="0" gdr="1"/>)"
                            R"(</pci></cpu></system>)";
    CHECK_THROWS_WITH_AS(read_nccl_topo_xml(xml, "t.xml"),
                         doctest::Contains("<pci> busid '0000:18:00.0\" evil=\"1' is 21 bytes long, not a PCI bus id"), Error);
    // nvidia-smi's form is read as NCCL's.
    std::string ok = xml;
    ok.replace(ok.find("0000:18:00.0&quot; evil=&quot;1"), std::string("0000:18:00.0&quot; evil=&quot;1").size(), "00000000:1B:00.0");
    CHECK(read_nccl_topo_xml(ok, "t.xml").gpus.at(0).bus_id == "0000:1b:00.0");
}
