// Emit: scheduler JSON, hostfile and launch snippets from a Report.
// Over 500 lines: the outputs a scheduler takes from one Report (the scheduler JSON, the hostfile
// and the launch snippets) share the per-rank NIC, NUMA and CPU lookups (launch_nodes, hca_of).
// to split: the launch snippets (with_plan_sizes, the shell-word writer, launch_text and its
// helpers, over half the file) could be a source of their own; launch_nodes is already public.
#include "planlayout/emit/scheduler_emit.hpp"

#include "planlayout/analysis/sched_levels.hpp"
#include "planlayout/emit/score_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/names.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <ostream>
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

// Written to `os` in 64 KiB pieces as it is produced: the entry per rank and every group's ranks
// (2,097,152 ranks made a 1.5 GB string before).
void write_scheduler_json(std::ostream& os, const Report& r) {
    constexpr std::size_t kPiece = std::size_t{1} << 16U;
    std::string out;
    out.reserve(kPiece + 4096);
    const auto pass_on = [&os, &out](std::size_t at_least) {
        if (out.size() >= at_least) {
            os.write(out.data(), static_cast<std::streamsize>(out.size()));
            out.clear();
        }
    };
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
        pass_on(kPiece);
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
        pass_on(kPiece);
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
            pass_on(kPiece);
            out += "]";
        }
        out += "]";
    }
    out += "\n  }";
    if (r.score) {
        out += ",\n  \"score\": " + to_json(*r.score).dump();
    }
    out += "\n}\n";
    pass_on(0);
}

std::string scheduler_json(const Report& r) {
    std::ostringstream out;
    write_scheduler_json(out, r);
    return out.str();
}

std::string hostfile_text(const Report& r, const std::string& style) {
    const bool mpich = style == "mpich";
    if (!mpich && style != "openmpi" && style != "deepspeed") {
        throw input_error("--hostfile-style " + printable(style), "not a hostfile style", "give openmpi, deepspeed or mpich");
    }
    std::ostringstream out;
    out << "# " << printable(r.layout_name) << ": " << r.placement.world() << " ranks, " << printable(r.placement.description)
        << (mpich ? " (MPICH / Hydra hostfile: host:ranks)\n" : " (Open MPI / DeepSpeed hostfile)\n");
    for (const auto& n : launch_nodes(r)) {
        // A hostfile has no quoting: a name that is not a host name cannot be written safely.
        if (const auto problem = host_name_problem(n.host); !problem.empty()) {
            throw input_error("hostfile", "host name '" + printable(n.host) + "' " + problem,
                              "host names are letters, digits, '-' and '.' (RFC 1123)");
        }
        out << n.host << (mpich ? ":" : " slots=") << n.ranks.size() << "\n";
    }
    return out.str();
}

namespace {

// "--tensor_model_parallel_size=4" -> "--tensor-model-parallel-size" (argparse reads both).
std::string flag_name(const std::string& word) {
    std::string name = word.substr(0, word.find('='));
    if (name.rfind("--", 0) != 0) {
        return {};
    }
    std::replace(name.begin() + 2, name.end(), '_', '-');
    return name;
}

// The one writer of shell words: known text through shell_quote, an expansion the job's shell does
// in the quoting the user's script gave it ("${X-}" stays one word, bare ${X-} splits as there).
// An expansion's text is the reader's (ScriptWord::parts: a parameter, or ${X:-w} with w plain
// text), never the script's raw text.
// True for the expansions the launch-script reader writes for the job (ingest/shell_expand.cpp):
// "$@", "$*", "$#", "${NAME-}", "${1-}" and "${NAME:-w}"/"${NAME-w}"/"${NAME:+w}" with w of
// [A-Za-z0-9/._,:=@+%-]. Anything else would be script text run by the job's shell.
bool is_job_expansion(const std::string& e) {
    if (e == "$@" || e == "$*" || e == "$#") {
        return true;
    }
    if (e.size() < 4 || e.compare(0, 2, "${") != 0 || e.back() != '}') {
        return false;
    }
    const std::string inner = e.substr(2, e.size() - 3);
    std::size_t i = 0;
    const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    if (!inner.empty() && std::isdigit(static_cast<unsigned char>(inner[0])) != 0) {
        while (i < inner.size() && std::isdigit(static_cast<unsigned char>(inner[i])) != 0) {
            ++i;
        }
    } else {
        while (i < inner.size() && (alnum(inner[i]) || inner[i] == '_')) {  // a name: it does not start with a digit
            ++i;
        }
    }
    if (i == 0) {
        return false;
    }
    if (i < inner.size() && inner[i] == ':') {
        ++i;
    }
    if (i >= inner.size() || (inner[i] != '-' && inner[i] != '+')) {
        return false;
    }
    return std::all_of(inner.begin() + static_cast<std::ptrdiff_t>(i) + 1, inner.end(),
                       [&](char c) { return alnum(c) || std::strchr("/._,:=@+%-", c) != nullptr; });
}

std::string arg_word(const LaunchArg& a) {
    if (a.parts.empty()) {
        return shell_quote(a.text);
    }
    std::string out;
    for (const auto& p : a.parts) {
        if (!p.expansion) {
            out += shell_quote(p.text);  // '' for an empty part: the word stays a word, as in the script
        } else {
            if (!is_job_expansion(p.text)) {  // the one writer of shell words keeps this true by construction
                throw Error(ExitCode::Internal, "--format launch",
                            "the launch-script reader made an expansion the job cannot run as written: " + printable(p.text),
                            "please report this with the script");
            }
            out += p.quoted ? "\"" + p.text + "\"" : p.text;
        }
    }
    return out.empty() ? "''" : out;
}

std::string words_of(const std::vector<LaunchArg>& args, const std::string& indent) {
    std::string out;
    std::size_t width = 0;
    for (const auto& a : args) {
        const std::string w = arg_word(a);
        // A flag starts a new line once the line is long; a value stays beside its flag.
        if (width > 60 && a.text.rfind("--", 0) == 0) {
            out += " \\\n" + indent;
            width = 0;
        } else if (!out.empty() || width > 0) {
            out += " ";
        }
        out += w;
        width += w.size() + 1;
    }
    return out;
}

// The environment lines of one node, each `export NAME=value`; CUDA_VISIBLE_DEVICES only with
// `with_gpus` (under Slurm it is set inside the task: srun sets it anew for every step).
std::string node_exports(const LaunchNode& n, const std::string& indent, bool with_hca, bool with_gpus) {
    std::string s;
    for (const auto& [k, v] : n.env) {
        if (with_hca || k != "NCCL_IB_HCA") {
            s += indent + "export " + k + "=" + shell_quote(v) + "\n";
        }
    }
    if (with_gpus) {
        s += indent + "export CUDA_VISIBLE_DEVICES=" + shell_quote(n.cuda_visible_devices) + "\n";
    }
    return s;
}

}  // namespace

std::vector<LaunchArg> with_plan_sizes(const Report& r, std::vector<LaunchArg> args) {
    const ResolvedSpec& s = r.groups.spec;
    const std::int64_t v[] = {s.tp, s.pp, s.cp, s.ep, s.etp};
    bool seen[5] = {};
    bool mapping = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string name = flag_name(args[i].text);
        mapping = mapping || name == "--use-tp-pp-dp-mapping";
        for (std::size_t k = 0; k < 5; ++k) {
            if (name != kMegatronFlag[k][1]) {
                continue;
            }
            seen[k] = true;
            const std::string value = std::to_string(v[k]);
            if (args[i].text.find('=') != std::string::npos) {
                args[i] = {args[i].text.substr(0, args[i].text.find('=') + 1) + value, false};
            } else if (i + 1 < args.size()) {
                args[i + 1] = {value, false};
            } else {
                args.push_back({value, false});
            }
        }
    }
    // Megatron-LM's defaults (megatron/training/arguments.py): 1 for tp, pp, cp and ep; the
    // expert tensor size, when not given, is the tensor size. A size the plan shares with the
    // default is not added, so a script that leaves it out is passed on as it is.
    const std::int64_t megatron_default[] = {1, 1, 1, 1, s.tp};
    for (std::size_t k = 0; k < 5; ++k) {
        if (!seen[k] && v[k] != megatron_default[k]) {
            args.push_back({kMegatronFlag[k][1], false});
            args.push_back({std::to_string(v[k]), false});
        }
    }
    if (s.order == "tp-cp-ep-pp-dp" && !mapping) {
        args.push_back({"--use-tp-pp-dp-mapping", false});
    }
    return args;
}

namespace {

// torchrun and Slurm number the ranks node by node: rank = node rank x G + local rank. Refuses a
// placement that numbers them otherwise.
void require_node_major(const Report& r, const std::vector<LaunchNode>& nodes, std::size_t per_node) {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        for (std::size_t l = 0; l < nodes[i].ranks.size(); ++l) {
            const auto expected = static_cast<std::int64_t>(i * per_node + l);
            if (nodes[i].ranks.size() != per_node || nodes[i].ranks[l] != expected) {
                throw input_error("--format launch",
                                  "the placement (" + printable(r.placement.description) + ") puts rank " +
                                      std::to_string(nodes[i].ranks[l]) + " on " + printable(nodes[i].host) +
                                      " as its local rank " + std::to_string(l) +
                                      ", but torchrun and Slurm number ranks node by node (node rank x " +
                                      std::to_string(per_node) + " + local rank, the same count on every node)",
                                  "use --format scheduler (host and GPU per rank) with a launcher that takes a rank "
                                  "map, or a node-major placement");
            }
        }
    }
}

// The lines that set NODE_RANK: under Slurm the place of the task's node (SLURMD_NODENAME) in the
// plan's HOSTS, whatever number Slurm gave that node (its own order, slurm.conf); else NODE_RANK
// as given or this host's place in HOSTS (not needed by a uniform rendezvous).
std::string node_rank_text(bool slurm, bool rdzv, bool uniform) {
    if (slurm) {
        return "NODE=${SLURMD_NODENAME:-$(hostname -s)}\nNODE_RANK=\n"
               "for i in \"${!HOSTS[@]}\"; do if [ \"${HOSTS[$i]}\" = \"$NODE\" ]; then NODE_RANK=$i; fi; done\n"
               "if [ -z \"$NODE_RANK\" ]; then\n"
               "    echo \"node $NODE is not a node of the plan (${HOSTS[*]}): submit with its --nodelist\" >&2\n"
               "    exit 1\nfi\n";
    }
    if (!rdzv || !uniform) {
        return "if [ -z \"${NODE_RANK:-}\" ]; then\n"
               "    for i in \"${!HOSTS[@]}\"; do if [ \"${HOSTS[$i]}\" = \"$(hostname -s)\" ]; then NODE_RANK=$i; fi; done\n"
               "fi\n"
               ": \"${NODE_RANK:?set NODE_RANK to the place of this node in HOSTS, 0 for the first}\"\n";
    }
    return {};
}

// NCCL_IB_HCA per rank for slurm-tasks: the rail NIC of its GPU (exact match), by local rank on
// each node; one array when every node has the same, else one per node rank.
std::string hca_by_local_rank(const Report& r, const std::vector<LaunchNode>& nodes) {
    const auto set_of = [&r](const LaunchNode& n) {
        std::string set;
        for (const auto rank : n.ranks) {
            const std::string h = hca_of(r, rank);
            set += (set.empty() ? "" : " ") + (h.empty() ? std::string("''") : shell_quote("=" + h));
        }
        return set;
    };
    std::set<std::string> hca_sets;
    for (const auto& n : nodes) {
        hca_sets.insert(set_of(n));
    }
    if (hca_sets.size() == 1) {
        return "HCA=(" + *hca_sets.begin() + ")  # by local rank: its GPU's rail NIC\n";
    }
    std::string body = "case \"$NODE_RANK\" in\n";
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        body += std::to_string(i) + ") HCA=(" + set_of(nodes[i]) + ") ;;\n";
    }
    return body + "esac\n";
}

}  // namespace

std::string launch_text(const Report& r, const LaunchOptions& o) {
    const std::vector<LaunchNode> nodes = launch_nodes(r);
    const std::size_t per_node = nodes.front().ranks.size();
    require_node_major(r, nodes, per_node);
    bool uniform = true;
    for (const auto& n : nodes) {
        uniform = uniform && n.env == nodes.front().env && n.cuda_visible_devices == nodes.front().cuda_visible_devices;
    }
    const bool slurm = o.launcher == "slurm-torchrun" || o.launcher == "slurm-tasks";
    const bool tasks = o.launcher == "slurm-tasks";
    const bool rdzv = o.launcher == "torchrun-rdzv";
    if (!slurm && !rdzv && o.launcher != "torchrun") {
        throw input_error("--launcher " + printable(o.launcher), "not a launcher",
                          "give torchrun, torchrun-rdzv, slurm-torchrun or slurm-tasks");
    }
    std::vector<LaunchArg> args;
    args.push_back({o.script.empty() ? std::string("pretrain_gpt.py") : o.script, !o.script_parts.empty(), o.script_parts});
    for (auto& a : with_plan_sizes(r, o.args)) {
        args.push_back(std::move(a));
    }
    std::string hosts;
    std::string nodelist;
    for (const auto& n : nodes) {
        hosts += (hosts.empty() ? "" : " ") + shell_quote(n.host);
        nodelist += (nodelist.empty() ? "" : ",") + n.host;
    }
    const std::string master = nodes.front().host;
    for (const auto& n : nodes) {
        // #SBATCH lines are comments to the shell: no quoting holds there.
        if (const auto problem = host_name_problem(n.host); slurm && !problem.empty()) {
            throw input_error("--launcher " + o.launcher, "host name '" + printable(n.host) + "' " + problem,
                              "host names are letters, digits, '-' and '.' (RFC 1123)");
        }
    }

    std::ostringstream out;
    // Names are checked where they enter and quoted here, so no input can add a command: shell
    // words go through shell_quote, comments through printable (no newline ends a comment early).
    out << "#!/bin/bash\n";
    if (slurm) {
        out << "#SBATCH --nodes=" << nodes.size() << "\n#SBATCH --ntasks-per-node=" << (tasks ? per_node : 1)
            << "\n#SBATCH --gpus-per-node=" << per_node << "\n#SBATCH --nodelist=" << shell_quote(nodelist) << "\n";
        // The switch count the plan uses, when the job spans leaf switches (sched_levels: the
        // --format slurm-topology advice); without @time slurm.conf's max_switch_wait applies.
        const SchedulerLevels levels = scheduler_levels(r.cluster, r.placement, r.groups);
        if (levels.job_span != SchedLevel::Node && levels.leaf_groups_used > 0) {
            out << "# at most " << levels.leaf_groups_used << " leaf switch(es), as planned (append @HH:MM:SS to bound the wait)\n"
                << "#SBATCH --switches=" << levels.leaf_groups_used << "\n";
        }
        if (levels.domain_level && levels.required == SchedLevel::Domain) {  // --format slurm-topology's blocks
            const auto seg = levels.job_required ? static_cast<std::int64_t>(levels.job_nodes.size()) : levels.slice_nodes;
            out << "# with TopologyPlugin=topology/block (one block per NVLink domain) use instead of --switches:\n"
                << "#   #SBATCH --segment=" << seg << "   (each " << seg << " node(s) inside one NVLink domain)\n";
        }
    }
    out << "# " << printable(r.layout_name) << ": " << r.placement.world() << " ranks on " << nodes.size() << " node(s), "
        << per_node << " per node; rank = node rank x " << per_node << " + local rank\n";
    if (o.script.empty()) {
        out << "# no --megatron-args: pretrain_gpt.py and the parallel sizes stand in for your script and its arguments\n";
    } else {
        out << "# the training command of " << printable(o.source) << ", every argument as the script gives it"
            << " (the parallel sizes: the plan's)\n";
    }
    if (std::any_of(args.begin(), args.end(), [](const LaunchArg& a) { return a.runtime; })) {
        out << "# ${...}: values the script takes from its environment, expanded when the job runs (quoted where\n"
               "# the script quoted them)\n";
    }
    if (rdzv) {
        out << "# run on every node; the rendezvous numbers the nodes in the order they join, so the node order\n"
               "# above (rails, leaves) is not kept: --launcher torchrun keeps it\n";
    } else if (!slurm) {
        out << "# run on every node: its node rank is NODE_RANK if set, else its place in HOSTS by host name\n";
    } else {
        out << "# submit with sbatch; Slurm numbers the nodes in its own order (slurm.conf): each task finds its\n"
               "# node rank by its node's name in HOSTS, and sets its GPUs after srun (which sets them per step)\n";
    }
    out << "set -euo pipefail\n";
    out << "export MASTER_ADDR=" << shell_quote(master) << " MASTER_PORT=29500\n";
    if (uniform) {
        out << node_exports(nodes.front(), "", !tasks, !slurm);
    }
    // The per-node (and per-task) part, read by the shell of each node or task.
    std::string body;
    body += "HOSTS=(" + hosts + ")\n";
    body += node_rank_text(slurm, rdzv, uniform);
    if (uniform && slurm) {
        body += "export CUDA_VISIBLE_DEVICES=" + shell_quote(nodes.front().cuda_visible_devices) + "  # after srun, which sets it per step\n";
    }
    if (!uniform) {
        body += "case \"$NODE_RANK\" in\n";
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            body += std::to_string(i) + ")  # " + printable(nodes[i].host) + "\n" + node_exports(nodes[i], "    ", !tasks, true) + "    ;;\n";
        }
        body += "esac\n";
    }
    if (tasks) {
        body += hca_by_local_rank(r, nodes);
        body += "if [ -n \"${HCA[$SLURM_LOCALID]}\" ]; then export NCCL_IB_HCA=\"${HCA[$SLURM_LOCALID]}\"; fi\n";
        // The plan's rank, from the plan's node rank: Slurm's SLURM_PROCID follows its own node order.
        body += "export RANK=$((NODE_RANK * " + std::to_string(per_node) +
                " + SLURM_LOCALID)) LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=$SLURM_NTASKS\n";
        body += "exec python \"$@\"\n";
    } else {
        body += "exec torchrun --nnodes " + std::to_string(nodes.size()) + " --nproc-per-node " + std::to_string(per_node) +
                (rdzv ? std::string(" --rdzv-backend c10d --rdzv-endpoint \"$MASTER_ADDR:$MASTER_PORT\" --rdzv-id ") +
                            (slurm ? "\"$SLURM_JOB_ID\"" : "plan-layout")
                      : std::string(" --node-rank \"$NODE_RANK\" --master-addr \"$MASTER_ADDR\" --master-port \"$MASTER_PORT\"")) +
                " \"$@\"\n";
    }
    if (slurm) {
        // The task's commands in a quoted here-document: no quoting inside it is changed, and the
        // training command reaches bash -c as its arguments ("$@"), each one word.
        // The delimiter is no line of the body (a quoted name could hold one).
        std::string delimiter = "PLAN_LAYOUT_TASK";
        while (("\n" + body).find("\n" + delimiter + "\n") != std::string::npos) {
            delimiter += "_";
        }
        out << "read -r -d '' TASK <<'" << delimiter << "' || true\n" << body << delimiter << "\n";
        out << "srun --nodes=" << nodes.size() << " --ntasks-per-node=" << (tasks ? per_node : 1) << " --export=ALL";
        if (tasks) {
            std::string ldom;
            bool numa_known = true;
            for (const int n : nodes.front().numa) {
                numa_known = numa_known && n >= 0;
                ldom += (ldom.empty() ? "" : ",") + std::to_string(n);
            }
            out << (numa_known ? " --cpu-bind=map_ldom:" + shell_quote(ldom) : std::string());
        }
        out << " \\\n    bash -c \"$TASK\" plan-layout-task \\\n    " << words_of(args, "    ") << "\n";
    } else {
        out << "set -- " << words_of(args, "    ") << "\n" << body;
    }
    return out.str();
}

}  // namespace planlayout
