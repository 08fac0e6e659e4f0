// Emit: scheduler JSON, hostfile and launch snippets from a Report.
#include "planlayout/emit/scheduler_emit.hpp"

#include "planlayout/emit/score_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/names.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace planlayout {
namespace {

// The NIC a rank uses, as NCCL_IB_HCA spells it: "mlx5_3:1"; "" when it has no rail NIC.
std::string hca_of(const Report& r, std::int64_t rank) {
    const auto i = static_cast<std::size_t>(rank);
    const std::int32_t node = r.placement.node[i];
    const TemplateFacts& f = r.cluster.facts_of(node);
    const int rail = f.gpu_rail[static_cast<std::size_t>(r.placement.gpu[i])];
    if (rail < 0) {
        return {};
    }
    const Nic& nic = r.cluster.template_of(node).nics[static_cast<std::size_t>(f.rail_nics[static_cast<std::size_t>(rail)])];
    return (nic.device.empty() ? nic.name : nic.device) + ":" + std::to_string(nic.port);
}

int numa_of(const Report& r, std::int64_t rank) {
    const auto i = static_cast<std::size_t>(rank);
    const NodeTemplate& t = r.cluster.template_of(r.placement.node[i]);
    return t.gpus[static_cast<std::size_t>(r.placement.gpu[i])].numa;
}

// The CPUs to bind a rank to: the cpuset of the socket on its GPU's NUMA node.
std::string cpus_of(const Report& r, std::int64_t rank) {
    const int numa = numa_of(r, rank);
    const NodeTemplate& t = r.cluster.template_of(r.placement.node[static_cast<std::size_t>(rank)]);
    std::string out;
    for (const auto& c : t.cpus) {
        if (numa >= 0 && c.numa == numa && !c.cpuset.empty()) {
            out += (out.empty() ? "" : ",") + c.cpuset;
        }
    }
    return out;
}

std::string socket_ifname(const Report& r, const NodeTemplate& t) {
    std::string out;
    for (const auto& i : t.tcp) {
        out += (out.empty() ? "=" : ",") + i.name;
    }
    if (out.empty() && r.sections.contains("transport") && r.sections["transport"].contains("tcp") &&
        r.sections["transport"]["tcp"].contains("interface") && r.sections["transport"]["tcp"]["interface"].is_string()) {
        out = "=" + r.sections["transport"]["tcp"]["interface"].get<std::string>();
    }
    return out;
}

std::string json_string(const std::string& s) { return nlohmann::json(s).dump(); }

const char* const kMegatronFlag[][2] = {{"tp", "--tensor-model-parallel-size"},
                                        {"pp", "--pipeline-model-parallel-size"},
                                        {"cp", "--context-parallel-size"},
                                        {"ep", "--expert-model-parallel-size"},
                                        {"etp", "--expert-tensor-parallel-size"}};

std::string megatron_flags(const Report& r) {
    const ResolvedSpec& s = r.groups.spec;
    const std::int64_t v[] = {s.tp, s.pp, s.cp, s.ep, s.etp};
    std::string out;
    for (std::size_t i = 0; i < 5; ++i) {
        out += std::string(i ? " " : "") + kMegatronFlag[i][1] + " " + std::to_string(v[i]);
    }
    if (s.order == "tp-cp-ep-pp-dp") {
        out += " --use-tp-pp-dp-mapping";
    }
    return out;
}

// How ranks fill the nodes: the order the layout chose, the placement in words, the nodes in
// the order their ranks start (what the hostfile lists).
std::string placement_json(const Report& r) {
    std::string order = "node-major";
    const auto& layout = r.layout;
    if (layout.is_object() && layout.contains("placement") && layout.at("placement").is_object()) {
        const auto& p = layout.at("placement");
        if (p.contains("ranks")) {
            order = "explicit";
        } else if (p.contains("order") && p.at("order").is_string()) {
            order = p.at("order").get<std::string>();
        }
    }
    nlohmann::ordered_json j;
    j["order"] = order;
    j["description"] = r.placement.description;
    j["node_order"] = nlohmann::ordered_json::array();
    std::set<std::int32_t> seen;
    for (const std::int32_t n : r.placement.node) {
        if (seen.insert(n).second) {
            j["node_order"].push_back(r.cluster.nodes[static_cast<std::size_t>(n)].host);
        }
    }
    return j.dump();
}

}  // namespace

std::vector<LaunchNode> launch_nodes(const Report& r) {
    std::vector<LaunchNode> nodes;
    std::map<std::int32_t, std::size_t> index;
    for (std::int64_t rank = 0; rank < r.placement.world(); ++rank) {
        const std::int32_t node = r.placement.node[static_cast<std::size_t>(rank)];
        auto it = index.find(node);
        if (it == index.end()) {
            it = index.emplace(node, nodes.size()).first;
            nodes.emplace_back();
            nodes.back().host = r.cluster.nodes[static_cast<std::size_t>(node)].host;
        }
        LaunchNode& n = nodes[it->second];
        n.cuda_visible_devices += (n.ranks.empty() ? "" : ",") + std::to_string(r.placement.gpu[static_cast<std::size_t>(rank)]);
        n.ranks.push_back(rank);
        n.numa.push_back(numa_of(r, rank));
    }
    for (auto& [node, i] : index) {
        LaunchNode& n = nodes[i];
        std::set<std::string> hcas;
        for (const auto rank : n.ranks) {
            const std::string h = hca_of(r, rank);
            if (!h.empty()) {
                hcas.insert(h);
            }
        }
        std::string hca;
        for (const auto& h : hcas) {
            hca += (hca.empty() ? "=" : ",") + h;
        }
        if (!hca.empty()) {
            n.env.emplace_back("NCCL_IB_HCA", hca);
        }
        const std::string ifname = socket_ifname(r, r.cluster.template_of(node));
        if (!ifname.empty()) {
            n.env.emplace_back("NCCL_SOCKET_IFNAME", ifname);
        }
        // Rail-aligned fabrics keep each ring on one NIC index; PXN as the plan assumed it.
        n.env.emplace_back("NCCL_CROSS_NIC", r.cluster.fabric.aligned && r.cluster.wiring.empty() ? "0" : "1");
        n.env.emplace_back("NCCL_PXN_DISABLE", r.cluster.fabric.pxn ? "0" : "1");
    }
    return nodes;
}

std::string scheduler_json(const Report& r) {
    std::string out;
    out.reserve(static_cast<std::size_t>(r.placement.world()) * 160 + 4096);
    out += "{\n  \"schema_version\": 1,\n  \"format\": \"plan-layout scheduler\",\n  \"layout\": " +
           json_string(r.layout_name) + ",\n  \"world\": " + std::to_string(r.placement.world()) +
           ",\n  \"placement\": " + placement_json(r) + ",\n  \"spec\": " + to_json(r.groups.spec).dump() + ",\n  \"ranks\": [";
    std::vector<std::int64_t> local(static_cast<std::size_t>(r.cluster.node_count()), 0);
    for (std::int64_t rank = 0; rank < r.placement.world(); ++rank) {
        const auto i = static_cast<std::size_t>(rank);
        const std::int32_t node = r.placement.node[i];
        const std::string hca = hca_of(r, rank);
        out += rank ? ",\n    {\"rank\": " : "\n    {\"rank\": ";
        out += std::to_string(rank) + ", \"host\": " + json_string(r.cluster.nodes[static_cast<std::size_t>(node)].host) +
               ", \"node\": " + std::to_string(node) +
               ", \"local_rank\": " + std::to_string(local[static_cast<std::size_t>(node)]++) +
               ", \"gpu\": " + std::to_string(r.placement.gpu[i]) + ", \"nic\": " + (hca.empty() ? "null" : json_string(hca)) +
               ", \"numa\": " + std::to_string(numa_of(r, rank)) + ", \"cpus\": " + json_string(cpus_of(r, rank)) + "}";
    }
    out += "\n  ],\n  \"nodes\": [";
    bool first = true;
    for (const auto& n : launch_nodes(r)) {
        nlohmann::ordered_json env = nlohmann::ordered_json::object();
        for (const auto& [k, v] : n.env) {
            env[k] = v;
        }
        out += first ? "\n    " : ",\n    ";
        first = false;
        out += "{\"host\": " + json_string(n.host) + ", \"slots\": " + std::to_string(n.ranks.size()) +
               ", \"first_rank\": " + std::to_string(n.ranks.front()) + ", \"CUDA_VISIBLE_DEVICES\": " +
               json_string(n.cuda_visible_devices) + ", \"env\": " + env.dump() + "}";
    }
    out += "\n  ],\n  \"groups\": {";
    first = true;
    for (const auto& k : r.groups.kinds) {
        out += first ? "\n    " : ",\n    ";
        first = false;
        out += json_string(k.name) + ": [";
        for (std::int64_t g = 0; g < k.group_count(); ++g) {
            out += g ? ", [" : "[";
            for (std::int64_t m = 0; m < k.group_size(); ++m) {
                out += (m ? ", " : "") + std::to_string(k.member(g, m));
            }
            out += "]";
        }
        out += "]";
    }
    out += "\n  }";
    if (r.score) {
        out += ",\n  \"score\": " + to_json(*r.score).dump();
    }
    out += "\n}\n";
    return out;
}

std::string hostfile_text(const Report& r) {
    std::ostringstream out;
    out << "# " << printable(r.layout_name) << ": " << r.placement.world() << " ranks, " << printable(r.placement.description)
        << " (MPI / DeepSpeed hostfile)\n";
    for (const auto& n : launch_nodes(r)) {
        // A hostfile has no quoting: a name that is not a host name cannot be written safely.
        if (const auto problem = host_name_problem(n.host); !problem.empty()) {
            throw input_error("hostfile", "host name '" + printable(n.host) + "' " + problem,
                              "host names are letters, digits, '-' and '.' (RFC 1123)");
        }
        out << n.host << " slots=" << n.ranks.size() << "\n";
    }
    return out.str();
}

std::string launch_text(const Report& r) {
    const std::vector<LaunchNode> nodes = launch_nodes(r);
    std::ostringstream out;
    const std::size_t per_node = nodes.front().ranks.size();
    bool uniform = true;
    for (const auto& n : nodes) {
        uniform = uniform && n.ranks.size() == per_node && n.env == nodes.front().env &&
                  n.cuda_visible_devices == nodes.front().cuda_visible_devices;
    }
    auto exports = [](const LaunchNode& n) {
        std::string s;
        for (const auto& [k, v] : n.env) {
            s += "export " + k + "=" + shell_quote(v) + "\n";
        }
        return s;
    };
    const std::string flags = megatron_flags(r);
    // Names are checked where they enter and quoted here, so no input can add a command: shell
    // words go through shell_quote, comments through printable (no newline ends a comment early).
    out << "# " << printable(r.layout_name) << ": " << r.placement.world() << " ranks on " << nodes.size() << " node(s), "
        << per_node << " per node; global rank = node rank x " << per_node << " + local rank\n";
    out << "\n# torchrun: run on every node with NODE_RANK = its index in this list: ";
    for (std::size_t i = 0; i < nodes.size() && i < 8; ++i) {
        out << (i ? " " : "") << printable(nodes[i].host);
    }
    out << (nodes.size() > 8 ? " ..." : "") << "\n";
    if (uniform) {
        out << exports(nodes.front());
        out << "export CUDA_VISIBLE_DEVICES=" << shell_quote(nodes.front().cuda_visible_devices) << "\n";
    } else {
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            out << "# node " << i << " (" << printable(nodes[i].host) << ")\n" << exports(nodes[i]);
            out << "export CUDA_VISIBLE_DEVICES=" << shell_quote(nodes[i].cuda_visible_devices) << "\n";
        }
    }
    out << "torchrun --nnodes " << nodes.size() << " --nproc-per-node " << per_node
        << " --node-rank \"$NODE_RANK\" --master-addr " << shell_quote(nodes.front().host) << " --master-port 29500 \\\n"
        << "    pretrain_gpt.py " << flags << "\n";
    // Slurm: one task per GPU; map_ldom binds each local rank to its GPU's NUMA node.
    std::string ldom;
    bool numa_known = true;
    for (const int n : nodes.front().numa) {
        numa_known = numa_known && n >= 0;
        ldom += (ldom.empty() ? "" : ",") + std::to_string(n);
    }
    std::string nodelist;
    for (const auto& n : nodes) {
        nodelist += (nodelist.empty() ? "" : ",") + n.host;
    }
    // The environment goes into the shell first: --export splits on commas, NCCL_IB_HCA has them.
    out << "\n# Slurm: one task per GPU, each bound to its GPU's NUMA node\n" << exports(nodes.front());
    out << "srun --nodes " << nodes.size() << " --ntasks-per-node " << per_node << " --gpus-per-node " << per_node
        << " \\\n    --nodelist " << shell_quote(nodelist)
        << (numa_known ? " --cpu-bind=map_ldom:" + shell_quote(ldom) : std::string()) << " \\\n"
        << "    --export=ALL \\\n"
        << "    python pretrain_gpt.py " << flags << "\n";
    return out.str();
}

}  // namespace planlayout
