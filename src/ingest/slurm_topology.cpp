// Ingest: Slurm topology.conf (tree / block) → FabricTopology (docs/formats/captures.md).
#include "planlayout/ingest/slurm_topology.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "ingest_util.hpp"
#include "planlayout/error.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/names.hpp"

namespace planlayout {
namespace {

using ingest_detail::trim;


/// Splits at commas outside brackets.
std::vector<std::string> top_level_items(const std::string& s) {
    std::vector<std::string> out;
    int depth = 0;
    std::string cur;
    for (const char c : s) {
        if (c == '[') {
            ++depth;
        } else if (c == ']') {
            --depth;
        }
        if (c == ',' && depth == 0) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

void expand_item(const std::string& item, const std::string& where, std::vector<std::string>& out) {
    const auto open = item.find('[');
    if (open == std::string::npos) {
        if (item.find(']') != std::string::npos) {
            throw input_error(where, "']' without '[' in hostlist '" + item + "'",
                              "write ranges as name[01-16,20]");
        }
        if (!item.empty()) {
            out.push_back(item);
        }
        return;
    }
    const auto close = item.find(']', open);
    if (close == std::string::npos) {
        throw input_error(where, "'[' without ']' in hostlist '" + item + "'",
                          "close the range: name[01-16]");
    }
    const std::string prefix = item.substr(0, open);
    const std::string rest = item.substr(close + 1);
    std::vector<std::string> tails;
    expand_item(rest.empty() ? std::string() : rest, where, tails);
    if (rest.empty()) {
        tails = {""};
    }
    for (const auto& range : ingest_detail::split(item.substr(open + 1, close - open - 1), ',')) {
        const std::string r = trim(range);
        const auto dash = r.find('-');
        const std::string lo_s = dash == std::string::npos ? r : r.substr(0, dash);
        const std::string hi_s = dash == std::string::npos ? r : r.substr(dash + 1);
        const long lo = ingest_detail::parse_uint(lo_s);
        const long hi = ingest_detail::parse_uint(hi_s);
        if (lo < 0 || hi < 0) {
            throw input_error(where, "'" + r + "' in hostlist '" + item + "' is not a number or range",
                              "write ranges as 01-16 or single numbers");
        }
        if (hi < lo) {
            throw input_error(where, "range '" + r + "' in hostlist '" + item + "' runs backwards",
                              "write the smaller number first");
        }
        if (static_cast<std::size_t>(hi - lo + 1) * tails.size() + out.size() > kMaxSlurmNames) {
            throw input_error(where, "hostlist '" + item + "' expands to more than " + std::to_string(kMaxSlurmNames) + " names",
                              "check the range");
        }
        for (long v = lo; v <= hi; ++v) {
            std::string num = std::to_string(v);
            if (num.size() < lo_s.size()) {
                num.insert(0, lo_s.size() - num.size(), '0');
            }
            for (const auto& tail : tails) {
                out.push_back(prefix + num + tail);
            }
        }
    }
}

std::string name_prefix(const std::string& host) {
    const auto end = host.find_last_not_of("0123456789");
    return end == std::string::npos ? std::string() : host.substr(0, end + 1);
}

// Tier of every switch (leaves 0, a parent one above its highest child), by an iterative
// depth-first walk: linear in switches + links, with no recursion however long a chain is.
// A cycle is an error naming the line of the switch where it closes and the switches on it.
void assign_tiers(FabricTopology& f, const std::vector<std::vector<std::size_t>>& child_index,
                  const std::vector<std::size_t>& switch_lines, const std::string& where) {
    enum class Mark : unsigned char { New, Open, Done };
    std::vector<Mark> mark(f.switches.size(), Mark::New);
    struct Frame {
        std::size_t sw;
        std::size_t next_child;
    };
    std::vector<Frame> stack;
    for (std::size_t root = 0; root < f.switches.size(); ++root) {
        if (mark[root] != Mark::New) {
            continue;
        }
        stack.push_back({root, 0});
        mark[root] = Mark::Open;
        while (!stack.empty()) {
            Frame& top = stack.back();
            const auto& children = child_index[top.sw];
            if (top.next_child < children.size()) {
                const std::size_t c = children[top.next_child++];
                if (mark[c] == Mark::Open) {
                    // The cycle is the stack from c's frame up to the top, then c again.
                    std::size_t from = stack.size() - 1;
                    while (stack[from].sw != c) {
                        --from;
                    }
                    constexpr std::size_t kShown = 6;
                    std::string path;
                    const std::size_t length = stack.size() - from;
                    for (std::size_t k = from; k < stack.size() && k < from + kShown; ++k) {
                        path += f.switches[stack[k].sw].name + " -> ";
                    }
                    if (length > kShown) {
                        path += "... (" + std::to_string(length - kShown) + " more) -> ";
                    }
                    path += f.switches[c].name;
                    throw input_error(where + ":" + std::to_string(switch_lines[top.sw]),
                                      "switch '" + f.switches[c].name + "' is its own ancestor (" + path + ")",
                                      "remove the cycle from the Switches= lists");
                }
                if (mark[c] == Mark::New) {
                    mark[c] = Mark::Open;
                    stack.push_back({c, 0});
                }
                continue;
            }
            int t = 0;
            for (const std::size_t c : children) {
                t = std::max(t, f.switches[c].tier + 1);
            }
            f.switches[top.sw].tier = t;
            mark[top.sw] = Mark::Done;
            stack.pop_back();
        }
    }
}


// A topology.conf line's Key=Value words: keys in lower case (Slurm compares them without case),
// `order` the keys as given. A key given twice is refused: Slurm keeps the last, and the nodes
// of the first are dropped without a word.
std::map<std::string, std::string> line_keys(const std::string& line, const std::string& lw, std::vector<std::string>& order) {
    std::map<std::string, std::string> kv;
    for (const auto& tok : ingest_detail::split_ws(line)) {
        const auto eq = tok.find('=');
        if (eq == std::string::npos || eq == 0) {
            throw input_error(lw, "'" + tok + "' is not Key=Value",
                              "topology.conf lines are SwitchName=.. [Switches=..] [Nodes=..], "
                              "BlockName=.. Nodes=.. or BlockSizes=..");
        }
        std::string key = tok.substr(0, eq);
        std::transform(key.begin(), key.end(), key.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        if (!kv.emplace(key, tok.substr(eq + 1)).second) {
            throw input_error(lw, "'" + tok.substr(0, eq) + "=' is given twice on one line",
                              "give each key once per line: list all the nodes or switches in one hostlist "
                              "(Nodes=n[0-3]), or split the line into two switches or blocks");
        }
        order.push_back(key);
    }
    return kv;
}

}  // namespace

std::vector<std::string> expand_hostlist(const std::string& expr, const std::string& where) {
    std::vector<std::string> out;
    for (const auto& item : top_level_items(trim(expr))) {
        expand_item(trim(item), where, out);
    }
    return out;
}

FabricTopology read_slurm_topology(const std::string& text, const std::string& where) {
    ingest_detail::require_utf8(text, where);
    FabricTopology f;
    f.source = where;
    std::map<std::string, std::string> labels;  // "# name=label" comments (topograph)
    const auto lines = ingest_detail::lines_of(text);
    // Each hostlist is limited on its own; the whole file is too (found by fuzzing: many
    // near-limit lines made the reader slow and memory-hungry).
    std::size_t entries = 0;
    const auto count_entries = [&entries](std::size_t n, const std::string& at) {
        entries += n;
        if (entries > kMaxSlurmNames) {
            throw input_error(at, "the file lists more than " + std::to_string(kMaxSlurmNames) + " node and switch names in total",
                              "a real topology.conf is far smaller: check the hostlists (node[1-100000000]?)");
        }
    };
    std::set<std::string> switch_names;
    std::set<std::string> block_names;
    std::vector<std::size_t> switch_lines;  // the line each switch is defined on, for messages
    std::vector<std::string> child_exprs;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string lw = where + ":" + std::to_string(i + 1);
        std::string line = trim(lines[i]);
        if (line.empty()) {
            continue;
        }
        if (line[0] == '#') {
            const std::string c = trim(line.substr(1));
            const auto eq = c.find('=');
            if (eq != std::string::npos && c.find(' ') == std::string::npos) {
                labels[c.substr(0, eq)] = c.substr(eq + 1);
            }
            continue;
        }
        if (const auto hash = line.find('#'); hash != std::string::npos) {
            line = trim(line.substr(0, hash));
        }
        std::vector<std::string> order;
        std::map<std::string, std::string> kv = line_keys(line, lw, order);
        const std::string first = order.front();
        if (first == "switchname") {
            if (f.plugin == "block") {
                throw input_error(lw, "SwitchName in a file with BlockName lines",
                                  "a topology.conf is either tree (SwitchName) or block (BlockName)");
            }
            f.plugin = "tree";
            FabricSwitch s;
            s.name = kv["switchname"];
            require_device_name(s.name, lw, "switch");
            for (const auto& [k, v] : kv) {
                if (k == "switches") {
                    s.children = expand_hostlist(v, lw);
                    count_entries(s.children.size(), lw);
                    ingest_detail::require_distinct_switches(s.children, s.name, lw);
                } else if (k == "nodes") {
                    s.nodes = expand_hostlist(v, lw);
                    count_entries(s.nodes.size(), lw);
                    for (const auto& n : s.nodes) {
                        require_host_name(n, lw);
                    }
                } else if (k == "linkspeed") {
                    s.link_speed = v;
                } else if (k != "switchname") {
                    throw input_error(lw, "unknown key '" + k + "' on a SwitchName line",
                                      "use Switches=, Nodes= or LinkSpeed=");
                }
            }
            if (!switch_names.insert(s.name).second) {
                throw input_error(lw, "switch '" + s.name + "' is defined twice",
                                  "merge the two lines");
            }
            f.switches.push_back(std::move(s));
            switch_lines.push_back(i + 1);
        } else if (first == "blockname") {
            if (f.plugin == "tree") {
                throw input_error(lw, "BlockName in a file with SwitchName lines",
                                  "a topology.conf is either tree (SwitchName) or block (BlockName)");
            }
            f.plugin = "block";
            FabricBlock b;
            b.name = kv["blockname"];
            require_device_name(b.name, lw, "block");
            for (const auto& [k, v] : kv) {
                if (k == "nodes") {
                    b.nodes = expand_hostlist(v, lw);
                    count_entries(b.nodes.size(), lw);
                    for (const auto& n : b.nodes) {
                        require_host_name(n, lw);
                    }
                } else if (k != "blockname") {
                    throw input_error(lw, "unknown key '" + k + "' on a BlockName line",
                                      "use Nodes=");
                }
            }
            if (!block_names.insert(b.name).second) {
                throw input_error(lw, "block '" + b.name + "' is defined twice", "merge the two lines, or rename one block");
            }
            f.blocks.push_back(std::move(b));
        } else if (first == "blocksizes") {
            for (const auto& v : ingest_detail::split(kv["blocksizes"], ',')) {
                const long n = ingest_detail::parse_uint(trim(v));
                if (n <= 0) {
                    throw input_error(lw, "BlockSizes value '" + v + "' is not a positive number",
                                      "write BlockSizes=8,16,32");
                }
                f.block_sizes.push_back(static_cast<int>(n));
            }
        } else {
            throw input_error(lw, "unknown line type '" + order.front() + "='",
                              "topology.conf lines start with SwitchName=, BlockName= or "
                              "BlockSizes=");
        }
    }
    if (f.switches.empty() && f.blocks.empty()) {
        throw input_error(where, "no SwitchName or BlockName lines",
                          "pass a Slurm topology.conf (topology/tree or topology/block)");
    }
    for (auto& s : f.switches) {
        if (const auto it = labels.find(s.name); it != labels.end()) {
            s.label = it->second;
        }
    }
    for (auto& b : f.blocks) {
        if (const auto it = labels.find(b.name); it != labels.end()) {
            b.label = it->second;
        }
    }

    complete_fabric(f, switch_lines, where);
    if (f.plugin == "block" && f.block_sizes.empty()) {
        f.warnings.emplace_back("no BlockSizes line: Slurm uses the block size alone");
    }
    return f;
}

void complete_fabric(FabricTopology& f, const std::vector<std::size_t>& switch_lines,
                     const std::string& where) {
    // Tiers: leaves 0, a parent one above its highest child. Cycles are an error. The walk is
    // iterative (an explicit stack): a chain of 50,000 switches overflowed the call stack when
    // it was recursive.
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < f.switches.size(); ++i) {
        index[f.switches[i].name] = i;
    }
    std::vector<std::vector<std::size_t>> child_index(f.switches.size());
    for (std::size_t i = 0; i < f.switches.size(); ++i) {
        for (const auto& c : f.switches[i].children) {
            if (const auto it = index.find(c); it != index.end()) {
                child_index[i].push_back(it->second);
            }
        }
    }
    assign_tiers(f, child_index, switch_lines, where);
    std::map<std::string, int> parents;
    for (std::size_t i = 0; i < f.switches.size(); ++i) {
        for (const auto& c : f.switches[i].children) {
            ++parents[c];
            if (index.count(c) == 0) {
                f.warnings.push_back("switch '" + f.switches[i].name + "' lists child switch '" +
                                     c + "', which is never defined");
            }
        }
    }
    std::vector<std::string> roots;
    for (const auto& s : f.switches) {
        if (parents.count(s.name) == 0) {
            roots.push_back(s.name);
        }
    }
    if (roots.size() > 1) {
        std::string list;
        for (const auto& r : roots) {
            list += (list.empty() ? "" : ", ") + r;
        }
        f.warnings.push_back("switches " + list +
                             " have no common parent: Slurm cannot place one job across them");
    }

    // Nodes listed twice, and host names whose prefix differs from the rest.
    std::map<std::string, std::vector<std::string>> owner;
    std::map<std::string, int> prefix_count;
    auto visit = [&](const std::string& group, const std::vector<std::string>& nodes) {
        for (const auto& n : nodes) {
            owner[n].push_back(group);
            ++prefix_count[name_prefix(n)];
        }
    };
    for (const auto& s : f.switches) {
        visit(s.name, s.nodes);
    }
    for (const auto& b : f.blocks) {
        visit(b.name, b.nodes);
    }
    constexpr std::size_t kMaxListedTwice = 20;  // one warning a node would flood the output
    std::size_t listed_twice = 0;
    for (const auto& [node, groups] : owner) {
        if (groups.size() > 1 && ++listed_twice <= kMaxListedTwice) {
            std::string list;
            for (const auto& g : groups) {
                list += (list.empty() ? "" : " and ") + g;
            }
            f.warnings.push_back("node '" + node + "' is listed under " + list);
        }
    }
    if (listed_twice > kMaxListedTwice) {
        f.warnings.push_back("... and " + std::to_string(listed_twice - kMaxListedTwice) +
                             " more nodes listed under more than one switch or block");
    }
    if (prefix_count.size() > 1) {
        const auto major = std::max_element(
            prefix_count.begin(), prefix_count.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
        for (const auto& [prefix, count] : prefix_count) {
            if (prefix != major->first) {
                f.warnings.push_back(std::to_string(count) + " host name(s) start with '" + prefix +
                                     "' while " + std::to_string(major->second) + " start with '" +
                                     major->first + "': a missing prefix in a hostlist?");
            }
        }
    }
}

nlohmann::json to_json(const FabricTopology& f) {
    nlohmann::json j;
    j["source"] = f.source;
    j["plugin"] = f.plugin;
    std::size_t total = 0;
    nlohmann::json sw = nlohmann::json::array();
    for (const auto& s : f.switches) {
        nlohmann::json o = {{"name", s.name}, {"tier", s.tier}, {"switches", s.children},
                            {"nodes", s.nodes}};
        if (!s.label.empty()) {
            o["label"] = s.label;
        }
        if (!s.link_speed.empty()) {
            o["link_speed"] = s.link_speed;
        }
        total += s.nodes.size();
        sw.push_back(std::move(o));
    }
    nlohmann::json bl = nlohmann::json::array();
    for (const auto& b : f.blocks) {
        nlohmann::json o = {{"name", b.name}, {"nodes", b.nodes}};
        if (!b.label.empty()) {
            o["label"] = b.label;
        }
        total += b.nodes.size();
        bl.push_back(std::move(o));
    }
    j["switches"] = std::move(sw);
    j["blocks"] = std::move(bl);
    j["block_sizes"] = f.block_sizes;
    j["node_entries"] = total;
    j["warnings"] = f.warnings;
    // Fields only some sources have: absent (not empty) for topology.conf, so its output stays.
    if (!f.topology.empty()) {
        j["topology"] = f.topology;
    }
    if (!f.label_scheme.empty()) {
        j["label_scheme"] = f.label_scheme;
        j["tier_labels"] = f.tier_labels;
        if (!f.domain_label.empty()) {
            j["domain_label"] = f.domain_label;
        }
        nlohmann::json nodes = nlohmann::json::array();
        for (const auto& n : f.nodes) {
            nlohmann::json o = {{"name", n.name}};
            if (!n.gpu_product.empty()) {
                o["gpu_product"] = n.gpu_product;
            }
            if (n.gpu_count > 0) {
                o["gpu_count"] = n.gpu_count;
            }
            if (n.gpu_capacity > 0) {
                o["gpu_capacity"] = n.gpu_capacity;
            }
            if (!n.nvlink_domain.empty()) {
                o["nvlink_domain"] = n.nvlink_domain;
            }
            nodes.push_back(std::move(o));
        }
        j["nodes"] = std::move(nodes);
    }
    return j;
}

}  // namespace planlayout
