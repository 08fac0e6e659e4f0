// Tests: names that reach shells, hostfiles and DOT are checked where they enter and quoted where
// they leave (issue 20, item 2). The launch snippet is run by a real bash with hostile names.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <yaml.h>

#include "planlayout/emit/scheduler_emit.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/hostfile.hpp"
#include "planlayout/ingest/nvidia_smi_topo.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/names.hpp"
#include "planlayout/plan.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
namespace fs = std::filesystem;

namespace {

// Runs `script` with bash in `dir`; returns bash's exit status.
int run_bash(const fs::path& dir, const std::string& script) {
    const fs::path file = dir / "script.sh";
    std::ofstream(file, std::ios::binary) << script;
    const std::string cmd = "cd '" + dir.string() + "' && bash script.sh > out.txt 2> err.txt";
    const int rc = std::system(cmd.c_str());  // NOLINT(cert-env33-c): the test runs a real shell on purpose
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("planlayout-names-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

const char* const kHostile[] = {
    "a$(touch${IFS}CANARY)", "b`touch CANARY`", "c;touch CANARY;", "d'\"\ntouch CANARY\n#", "e\\", "f|touch CANARY",
    "g&&touch CANARY", "h>CANARY", "i $(touch CANARY) '", "j\x01\x7f\xff",
};

}  // namespace

TEST_CASE("shell_quote: every byte but NUL survives bash unchanged") {
    std::string all;
    for (int b = 1; b < 256; ++b) {
        all += static_cast<char>(b);
    }
    const fs::path dir = scratch("bytes");
    std::string script = "printf '%s' " + shell_quote(all) + " > bytes.out\n";
    for (const char* h : kHostile) {
        script += "printf '%s\\n' " + shell_quote(h) + " >> words.out\n";
    }
    REQUIRE(run_bash(dir, script) == 0);
    CHECK(slurp_file(dir / "bytes.out") == all);
    std::string words;
    for (const char* h : kHostile) {
        words += std::string(h) + "\n";
    }
    CHECK(slurp_file(dir / "words.out") == words);
    CHECK_FALSE(fs::exists(dir / "CANARY"));
    CHECK(shell_quote("mlx5_0:1,mlx5_1:1") == "mlx5_0:1,mlx5_1:1");
    CHECK(shell_quote("") == "''");
    CHECK(shell_quote("it's") == "'it'\\''s'");
    CHECK_THROWS_AS((void)shell_quote(std::string("a\0b", 3)), Error);
    fs::remove_all(dir);
}

TEST_CASE("the launch snippet, run by bash with hostile host, NIC and layout names, runs nothing of theirs") {
    const std::string path = (fs::path(PLANLAYOUT_SOURCE_DIR) / "layouts/seed-2x8-ep16.json").string();
    PlanRequest request;
    request.layout_text = read_text_file(path);
    request.layout_name = "x\ntouch CANARY\n";
    request.base_dir = parent_dir(path);
    Report r = plan(request);
    // Names a library caller could put in a Report directly (the readers refuse them at entry).
    r.cluster.nodes[0].host = kHostile[0];
    r.cluster.nodes[1].host = kHostile[3];
    for (std::size_t i = 0; i < r.cluster.templates[0].nics.size(); ++i) {
        r.cluster.templates[0].nics[i].device = kHostile[i % std::size(kHostile)];
    }
    r.cluster.templates[0].nics[9 % r.cluster.templates[0].nics.size()].device = "j\x01\x7f";
    const fs::path dir = scratch("launch");
    // Stand-ins for the launchers (executables: the script execs them) record their arguments and
    // the NCCL environment they see; srun runs its command as node 0, named as the plan names it.
    fs::create_directories(dir / "bin");
    std::ofstream(dir / "bin" / "torchrun")
        << "#!/bin/bash\nprintf '%s\\n' \"$@\" >> torchrun.args; printf '%s\\n' \"$NCCL_IB_HCA\" >> torchrun.env\n";
    std::ofstream(dir / "bin" / "srun")
        << "#!/bin/bash\nprintf '%s\\n' \"$@\" >> srun.args; while [ \"${1#--}\" != \"$1\" ]; do shift; done\n"
           "SLURM_NODEID=0 SLURM_LOCALID=1 SLURM_PROCID=1 SLURM_NTASKS=16 SLURMD_NODENAME=\"$H0\" \"$@\"\n";
    std::ofstream(dir / "bin" / "python") << "#!/bin/bash\nprintf '%s' \"$NCCL_IB_HCA\" > python.env\n";
    fs::permissions(dir / "bin" / "python", fs::perms::owner_all);
    fs::permissions(dir / "bin" / "torchrun", fs::perms::owner_all);
    fs::permissions(dir / "bin" / "srun", fs::perms::owner_all);
    // NCCL_IB_HCA reached the launcher byte for byte (checked below).
    std::string hca;
    std::set<std::string> devices;
    for (const auto& nic : r.cluster.templates[0].nics) {
        devices.insert(nic.device + ":" + std::to_string(nic.port));
    }
    for (const auto& d : devices) {
        hca += (hca.empty() ? "=" : ",") + d;
    }
    const std::string prelude = "export PATH=\"$PWD/bin:$PATH\" NODE_RANK=0 H0=" + shell_quote(kHostile[0]) + "\n";
    REQUIRE(run_bash(dir, prelude + launch_text(r, LaunchOptions{"torchrun", "", {}, ""})) == 0);
    CHECK_FALSE(fs::exists(dir / "CANARY"));
    const std::string torchrun = slurp_file(dir / "torchrun.args");
    CHECK(torchrun.find("--master-addr\n" + std::string(kHostile[0]) + "\n") != std::string::npos);
    CHECK(slurp_file(dir / "torchrun.env") == hca + "\n");
    // An #SBATCH line is a comment: no quoting holds there, so Slurm scripts refuse such names.
    CHECK_THROWS_AS((void)launch_text(r, LaunchOptions{"slurm-torchrun", "", {}, ""}), Error);
    // And the hostfile refuses to write a name it cannot quote.
    CHECK_THROWS_AS((void)hostfile_text(r), Error);
    // The task part of a Slurm script (one task per GPU: the NIC names are in it), with hostile NIC names and a name that holds its delimiter.
    r.cluster.nodes[0].host = "node0";
    r.cluster.nodes[1].host = "node1";
    r.cluster.templates[0].nics[1].device = "x\nPLAN_LAYOUT_TASK\ntouch CANARY\n";
    REQUIRE(run_bash(dir, prelude + "export H0=node0\n" + launch_text(r, LaunchOptions{"slurm-tasks", "", {}, ""})) == 0);
    CHECK_FALSE(fs::exists(dir / "CANARY"));
    CHECK(slurp_file(dir / "python.env") == "=" + r.cluster.templates[0].nics[1].device + ":1");  // local rank 1's NIC
    CHECK(slurp_file(dir / "srun.args").find("plan-layout-task\n") != std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("host names: RFC 1123 at entry, with the byte named and no raw bytes in the message") {
    CHECK(host_name_problem("node-01.cluster.local").empty());
    CHECK(host_name_problem("10.0.0.1").empty());
    CHECK(host_name_problem("a$(x)") == "has '$' at byte 2");
    CHECK(host_name_problem("a\nb") == "has byte \\x0A at byte 2");
    CHECK(host_name_problem("-a") == "has a label that starts or ends with '-'");
    CHECK(host_name_problem("a..b") == "has an empty label at byte 3");
    CHECK(host_name_problem(std::string(64, 'a')) == "has a label of 64 bytes, over the 63 a label may have");
    CHECK_FALSE(host_name_problem(std::string("a\0b", 3)).empty());
    CHECK_THROWS_WITH_AS(parse_hostfile("node0 slots=8\nnode1;reboot slots=8\n", "hosts.txt"),
                         "hosts.txt:2: host name 'node1;reboot' has ';' at byte 6; host names are letters, digits, "
                         "'-' and '.' (RFC 1123), as `hostname` prints them",
                         Error);
    CHECK_THROWS_WITH_AS(parse_hostfile(std::string("ok\nbad\xff\x01name\n"), "h"),
                         doctest::Contains("h:2: host name 'bad\\xFF\\x01name' has byte \\xFF at byte 4"), Error);
}

TEST_CASE("device names: a NIC named to run a command in an nvidia-smi capture is refused at entry") {
    const std::string smi =
        "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\n"
        "GPU0\t X \tNV18\tPIX\tSYS\t0-55\t0\n"
        "GPU1\tNV18\t X \tSYS\tPIX\t56-111\t1\n"
        "NIC0\tPIX\tSYS\t X \tSYS\n"
        "NIC1\tSYS\tPIX\tSYS\t X \n"
        "\nLegend:\n\n  X    = Self\n\nNIC Legend:\n\n  NIC0: mlx5_0$(touch${IFS}/tmp/x)\n  NIC1: mlx5_1\n";
    CHECK_THROWS_WITH_AS(read_nvidia_smi_topo(smi, "smi.txt"),
                         doctest::Contains("NIC0 device name 'mlx5_0$(touch${IFS}/tmp/x)' has '$' at byte 7"), Error);
    CHECK(device_name_problem("mlx5_0").empty());
    CHECK(device_name_problem("enp12s0f0np0").empty());
    CHECK(device_name_problem("bond0.100").empty());
    CHECK(device_name_problem("0000:18:00.0").empty());
    CHECK(device_name_problem("eth 0") == "has ' ' at byte 4");
}

// ---- issue 27 items 4 and 5: one writer per output language ----------------------------------

namespace {

// The value of "k: <scalar>" as libyaml reads it (the parser Slurm, Kueue and Volcano users feed).
std::string yaml_value(const std::string& scalar) {
    const std::string doc = "k: " + scalar + "\n";
    yaml_parser_t parser;
    REQUIRE(yaml_parser_initialize(&parser) != 0);
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(doc.data()), doc.size());
    yaml_document_t d;
    const bool ok = yaml_parser_load(&parser, &d) != 0;
    std::string value = "<parse error>";
    if (ok) {
        const yaml_node_t* root = yaml_document_get_root_node(&d);
        if (root != nullptr && root->type == YAML_MAPPING_NODE &&
            root->data.mapping.pairs.top - root->data.mapping.pairs.start == 1) {
            const yaml_node_t* v = yaml_document_get_node(&d, root->data.mapping.pairs.start->value);
            if (v->type == YAML_SCALAR_NODE) {
                value.assign(reinterpret_cast<const char*>(v->data.scalar.value), v->data.scalar.length);
            }
        }
        yaml_document_delete(&d);
    }
    yaml_parser_delete(&parser);
    return value;
}

}  // namespace

TEST_CASE("yaml_quote: every byte 1..127 and UTF-8 up to U+10FFFF read back by libyaml unchanged, on one line") {
    for (int c = 1; c < 128; ++c) {
        const std::string s = std::string("a") + static_cast<char>(c) + "b";
        const std::string q = yaml_quote(s);
        CHECK_MESSAGE(yaml_value(q) == s, "byte " << c);
        CHECK(q.find_first_of("\n\r") == std::string::npos);
    }
    for (const std::string s : {"\xC3\xA9t\xC3\xA9", "a\xE2\x80\xA8" "b", "\xF0\x9F\x98\x80", "\xC2\x85x", "\xEF\xBB\xBF" "x",
                                "evil\nSwitchName=evil Nodes=attacker[1-9]", "x\n---\nkind: Evil", "", "#", "- a", "a: b",
                                "{x}", "'", "\"", "\\", "&a *b !c"}) {
        const std::string q = yaml_quote(s);
        CHECK_MESSAGE(yaml_value(q) == s, q);
        for (const char c : q) {
            CHECK((c >= 0x20 && c < 0x7f));  // printable ASCII: nothing can end the line or the document
        }
    }
    CHECK_THROWS_AS((void)yaml_quote("bad\xff"), Error);
    CHECK_THROWS_AS((void)yaml_quote("\xC0\x80"), Error);  // overlong NUL
}

TEST_CASE("xml_attribute and xml_comment: no name adds an attribute or element or ends a comment") {
    CHECK(xml_attribute("0000:01:00.0\" evil=\"1\"><inject/>") ==
          "0000:01:00.0&quot; evil=&quot;1&quot;&gt;&lt;inject/&gt;");
    CHECK(xml_attribute("a&b'c\td\ne") == "a&amp;b&apos;c&#x9;d&#xA;e");
    CHECK(xml_attribute("\xC3\xA9") == "\xC3\xA9");
    CHECK_THROWS_AS((void)xml_attribute(std::string("a\0b", 3)), Error);
    CHECK_THROWS_AS((void)xml_attribute("a\x01"), Error);
    CHECK_THROWS_AS((void)xml_attribute("a\xff"), Error);
    for (const std::string s : {"--", "---", "-", "a-", "-->", "x -- y", "--format", "<!-- a -->", "\n--\n"}) {
        const std::string c = xml_comment(s);
        REQUIRE(c.rfind("<!-- ", 0) == 0);
        const std::string body = c.substr(4, c.size() - 4 - 3);
        CHECK_MESSAGE(body.find("--") == std::string::npos, c);
        CHECK_MESSAGE(body.back() != '-', c);
        CHECK(xml_comment_text(s).find("--") == std::string::npos);
    }
    CHECK(xml_comment("written by plan-layout analyze --format nccl-topo.\nsecond line") ==
          "<!-- written by plan-layout analyze - -format nccl-topo.\nsecond line -->");
}

TEST_CASE("bus ids: DDDD:BB:DD.F (domain 4..8 digits), nothing else") {
    CHECK(bus_id_problem("0000:0f:00.0").empty());
    CHECK(bus_id_problem("0000:0F:00.0").empty());
    CHECK(bus_id_problem("ffff:ff:00.0").empty());
    CHECK(bus_id_problem("10000:01:00.0").empty());  // an Intel VMD domain
    CHECK(bus_id_problem("00000000:0f:00.0").empty());
    CHECK(bus_id_problem("0000:01:00.0\" evil=\"1\"><inject/>") ==
          "is 32 bytes long, not a PCI bus id DDDD:BB:DD.F (as 0000:0f:00.0)");
    CHECK(bus_id_problem("0000:0g:00.0") == "has 'g' at byte 7, not a PCI bus id DDDD:BB:DD.F (as 0000:0f:00.0)");
    CHECK(bus_id_problem("0000:0f:00:0") == "has ':' at byte 11, not a PCI bus id DDDD:BB:DD.F (as 0000:0f:00.0)");
    CHECK_FALSE(bus_id_problem("").empty());
    CHECK_FALSE(bus_id_problem("000:0f:00.0").empty());
    CHECK_FALSE(bus_id_problem("0000:0f:00.0\n").empty());
}

TEST_CASE("Kubernetes label keys: [prefix/]name") {
    CHECK(label_key_problem("fabric.topograph.run/tier-0").empty());
    CHECK(label_key_problem("topology.k8s.aws/network-node-layer-3").empty());
    CHECK(label_key_problem("rack").empty());
    CHECK(label_key_problem("my_rack.id").empty());
    CHECK(label_key_problem("evil\nkind: Evil") == "has byte \\x0A at byte 5");
    CHECK(label_key_problem("a/b/c") == "has '/' at byte 4");
    CHECK(label_key_problem("a b/c") == "has a prefix that is not a DNS name: it has ' ' at byte 2");
    CHECK(label_key_problem("-rack") == "has '-' at byte 1");
    CHECK_FALSE(label_key_problem("x/").empty());
    CHECK_FALSE(label_key_problem(std::string(64, 'a')).empty());
}

// Issue 41 item 8: Volcano got HyperNodes named IB_Leaf01 and Spine:A (Kubernetes refuses both),
// Kueue's advice label values with ':'.
TEST_CASE("names and label values made valid for Kubernetes") {
    using planlayout::kubernetes_label_value;
    using planlayout::kubernetes_object_name;
    CHECK(kubernetes_object_name("IB_Leaf01") == "ib-leaf01");
    CHECK(kubernetes_object_name("Spine:A") == "spine-a");
    CHECK(kubernetes_object_name("switch.1.1") == "switch.1.1");  // valid: as is
    CHECK(kubernetes_object_name("dc6e40c4-d722-4357-9ba6-5291dd461278.2") == "dc6e40c4-d722-4357-9ba6-5291dd461278.2");
    CHECK(kubernetes_object_name("-a_.._b-") == "a.b");
    CHECK(kubernetes_object_name("_@+") == "x");
    CHECK(kubernetes_object_name("GPU-A0") == "gpu-a0");
    CHECK(kubernetes_label_value("Spine:A") == "Spine-A");
    CHECK(kubernetes_label_value("IB_Leaf01") == "IB_Leaf01");  // upper case and '_' are valid in a value
    CHECK(kubernetes_label_value("_a@") == "a");
    CHECK(kubernetes_label_value(std::string(64, 'a')) == std::string(63, 'a'));
    CHECK(kubernetes_label_value("::") == "x");
    const std::regex subdomain("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    const std::regex value("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
    // Every device name the readers let through maps to a valid name and value.
    for (const char* n : {"a", "A", "mlx5_0:1", "bond0.100", "x@y+z", "-", ".", "a..b", "0000:18:00.0", "_", "a-.-b", "Z_"}) {
        CAPTURE(n);
        CHECK(std::regex_match(kubernetes_object_name(n), subdomain));
        CHECK(std::regex_match(kubernetes_label_value(n), value));
        CHECK_FALSE(kubernetes_label_value(n).empty());
    }
}
