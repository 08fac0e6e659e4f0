// Ingest: Slurm topology.yaml (Slurm 25.05+) → FabricTopology (docs/formats/slurm-topology-yaml.md).
// Schema from SchedMD/slurm doc/man/man5/topology.yaml.5 (commit 0b755e6c30537af103c40e1d285b5872296a1b6f,
// https://slurm.schedmd.com/topology.yaml.html): a list of topologies, each
//   topology: NAME            (first attribute)
//   cluster_default: BOOL     (the first true one serves partitions without a topology)
//   and exactly one of
//   tree:  {switches: [{switch: NAME, children: HOSTLIST, nodes: HOSTLIST}]}
//   block: {block_sizes: [N, ...], blocks: [{block: NAME, nodes: HOSTLIST}]}
//   flat:  true
// YAML is parsed by libyaml (Debian libyaml-dev), whose marks give the line of every message.
#include <yaml.h>

#include <algorithm>
#include <memory>
#include <set>

#include "ingest_util.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/ingest/slurm_topology.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/names.hpp"

namespace planlayout {
namespace {

struct Doc {
    yaml_parser_t parser{};
    yaml_document_t doc{};
    bool loaded = false;
    Doc() = default;
    Doc(const Doc&) = delete;
    Doc& operator=(const Doc&) = delete;
    Doc(Doc&&) = delete;
    Doc& operator=(Doc&&) = delete;
    ~Doc() {
        if (loaded) {
            yaml_document_delete(&doc);
        }
        yaml_parser_delete(&parser);
    }
};

class YamlReader {
public:
    YamlReader(yaml_document_t* doc, std::string where) : doc_(doc), where_(std::move(where)) {}

    [[nodiscard]] std::string at(const yaml_node_t* n) const {
        return where_ + ":" + std::to_string(n->start_mark.line + 1);
    }
    [[nodiscard]] const yaml_node_t* node(int id) const { return yaml_document_get_node(doc_, id); }

    [[nodiscard]] std::string scalar(const yaml_node_t* n, const std::string& what) const {
        if (n->type != YAML_SCALAR_NODE) {
            throw input_error(at(n), what + " is not a plain value", "write " + what + ": VALUE");
        }
        return {reinterpret_cast<const char*>(n->data.scalar.value), n->data.scalar.length};
    }

    [[nodiscard]] bool boolean(const yaml_node_t* n, const std::string& what) const {
        std::string v = scalar(n, what);
        std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (v == "true" || v == "yes") {
            return true;
        }
        if (v == "false" || v == "no") {
            return false;
        }
        throw input_error(at(n), what + " is '" + v + "', not true or false", "write " + what + ": true");
    }

    [[nodiscard]] std::vector<const yaml_node_t*> sequence(const yaml_node_t* n, const std::string& what) const {
        if (n->type != YAML_SEQUENCE_NODE) {
            throw input_error(at(n), what + " is not a list", "write it as a YAML list: '- ...' lines");
        }
        std::vector<const yaml_node_t*> out;
        for (const yaml_node_item_t* it = n->data.sequence.items.start; it < n->data.sequence.items.top; ++it) {
            out.push_back(node(*it));
        }
        return out;
    }

    /// A mapping's pairs in file order; unknown keys are refused naming the known ones.
    [[nodiscard]] std::vector<std::pair<std::string, const yaml_node_t*>> mapping(
        const yaml_node_t* n, const std::string& what, const std::vector<std::string>& known) const {
        if (n->type != YAML_MAPPING_NODE) {
            throw input_error(at(n), what + " is not a mapping", "write key: value lines (" + join_names(known) + ")");
        }
        std::vector<std::pair<std::string, const yaml_node_t*>> out;
        std::set<std::string> seen;
        for (const yaml_node_pair_t* p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; ++p) {
            const yaml_node_t* k = node(p->key);
            const std::string key = scalar(k, "a key");
            if (std::find(known.begin(), known.end(), key) == known.end()) {
                throw input_error(at(k), "unknown key '" + key + "' in " + what, "use " + join_names(known));
            }
            if (!seen.insert(key).second) {
                throw input_error(at(k), "key '" + key + "' given twice in " + what, "keep one");
            }
            out.emplace_back(key, node(p->value));
        }
        return out;
    }

    /// A hostlist: one string ("node[01-04]") or a list of them.
    [[nodiscard]] std::vector<std::string> hostlist(const yaml_node_t* n, const std::string& what) const {
        std::vector<std::string> out;
        if (n->type == YAML_SEQUENCE_NODE) {
            for (const auto* item : sequence(n, what)) {
                const auto part = expand_hostlist(scalar(item, what), at(item));
                out.insert(out.end(), part.begin(), part.end());
            }
        } else {
            out = expand_hostlist(scalar(n, what), at(n));
        }
        if (out.size() > kMaxSlurmNames) {
            throw input_error(at(n), what + " lists more than " + std::to_string(kMaxSlurmNames) + " names",
                              "check the hostlist (node[1-100000000]?)");
        }
        return out;
    }

private:
    static std::string join_names(const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v) {
            s += (s.empty() ? "" : ", ") + x;
        }
        return s;
    }
    yaml_document_t* doc_;
    std::string where_;
};

FabricTopology read_tree(const YamlReader& r, const yaml_node_t* tree, const std::string& where) {
    FabricTopology f;
    f.plugin = "tree";
    std::vector<std::size_t> lines;
    std::set<std::string> names;
    std::size_t entries = 0;
    for (const auto& [key, value] : r.mapping(tree, "tree", {"switches"})) {
        (void)key;
        for (const auto* item : r.sequence(value, "switches")) {
            FabricSwitch s;
            bool named = false;
            for (const auto& [k, v] : r.mapping(item, "a switch", {"switch", "children", "nodes"})) {
                if (k == "switch") {
                    s.name = r.scalar(v, "switch");
                    require_device_name(s.name, r.at(v), "switch");
                    named = true;
                } else if (k == "children") {
                    s.children = r.hostlist(v, "children");
                    entries += s.children.size();
                } else {
                    s.nodes = r.hostlist(v, "nodes");
                    entries += s.nodes.size();
                    for (const auto& n : s.nodes) {
                        require_host_name(n, r.at(v));
                    }
                }
            }
            if (!named) {
                throw input_error(r.at(item), "a switch without 'switch:' (its name)", "add switch: NAME");
            }
            if (!names.insert(s.name).second) {
                throw input_error(r.at(item), "switch '" + s.name + "' is defined twice", "merge the two entries");
            }
            ingest_detail::require_distinct_switches(s.children, s.name, r.at(item));
            if (entries > kMaxSlurmNames) {
                throw input_error(r.at(item), "more than " + std::to_string(kMaxSlurmNames) + " node and switch names",
                                  "check the hostlists");
            }
            lines.push_back(item->start_mark.line + 1);
            f.switches.push_back(std::move(s));
        }
    }
    if (f.switches.empty()) {
        throw input_error(r.at(tree), "a tree topology without switches", "list them under tree: switches:");
    }
    complete_fabric(f, lines, where);
    return f;
}

FabricTopology read_block(const YamlReader& r, const yaml_node_t* block, const std::string& where) {
    FabricTopology f;
    f.plugin = "block";
    std::size_t entries = 0;
    std::set<std::string> block_names;
    for (const auto& [key, value] : r.mapping(block, "block", {"block_sizes", "blocks"})) {
        if (key == "block_sizes") {
            std::vector<const yaml_node_t*> items;
            if (value->type == YAML_SCALAR_NODE) {
                items.push_back(value);  // "block_sizes: 4" or "4,16"
            } else {
                items = r.sequence(value, "block_sizes");
            }
            for (const auto* it : items) {
                for (const auto& v : ingest_detail::split(r.scalar(it, "block_sizes"), ',')) {
                    const long n = ingest_detail::parse_uint(ingest_detail::trim(v));
                    if (n <= 0 || n > kMaxNodes) {
                        throw input_error(r.at(it), "block size '" + v + "' is not a positive node count",
                                          "write block_sizes: [4, 16]");
                    }
                    f.block_sizes.push_back(static_cast<int>(n));
                }
            }
        } else {
            for (const auto* item : r.sequence(value, "blocks")) {
                FabricBlock b;
                bool named = false;
                for (const auto& [k, v] : r.mapping(item, "a block", {"block", "nodes"})) {
                    if (k == "block") {
                        b.name = r.scalar(v, "block");
                        require_device_name(b.name, r.at(v), "block");
                        named = true;
                    } else {
                        b.nodes = r.hostlist(v, "nodes");
                        entries += b.nodes.size();
                        for (const auto& n : b.nodes) {
                            require_host_name(n, r.at(v));
                        }
                    }
                }
                if (!named) {
                    throw input_error(r.at(item), "a block without 'block:' (its name)", "add block: NAME");
                }
                if (!block_names.insert(b.name).second) {
                    throw input_error(r.at(item), "block '" + b.name + "' is defined twice", "merge the two entries, or rename one block");
                }
                if (entries > kMaxSlurmNames) {
                    throw input_error(r.at(item), "more than " + std::to_string(kMaxSlurmNames) + " node names",
                                      "check the hostlists");
                }
                f.blocks.push_back(std::move(b));
            }
        }
    }
    if (f.blocks.empty()) {
        throw input_error(r.at(block), "a block topology without blocks", "list them under block: blocks:");
    }
    complete_fabric(f, {}, where);
    if (f.block_sizes.empty()) {
        f.warnings.emplace_back("no block_sizes: Slurm plans with the smallest block's size");
    }
    return f;
}

// libyaml's event parser, freed on every path.
struct EventParser {
    yaml_parser_t parser{};
    bool started = false;
    EventParser() = default;
    EventParser(const EventParser&) = delete;
    EventParser& operator=(const EventParser&) = delete;
    EventParser(EventParser&&) = delete;
    EventParser& operator=(EventParser&&) = delete;
    ~EventParser() {
        if (started) {
            yaml_parser_delete(&parser);
        }
    }
};

// One pass over libyaml's events before the document is loaded: nesting of sequences and
// mappings over kMaxYamlDepth is refused at the line where it crosses the limit. libyaml's
// scanner is quadratic in flow nesting (100,000 nested '[' took 55 s) and produces events lazily,
// so stopping here scans only the first levels. Syntax errors are left to the loader's message.
void check_yaml_depth(const std::string& text, const std::string& where) {
    EventParser p;
    if (yaml_parser_initialize(&p.parser) == 0) {
        throw input_error(where, "the YAML parser could not start", "retry; out of memory?");
    }
    p.started = true;
    yaml_parser_set_input_string(&p.parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    std::size_t depth = 0;
    while (true) {
        yaml_event_t event{};
        if (yaml_parser_parse(&p.parser, &event) == 0) {
            return;
        }
        const yaml_event_type_t type = event.type;
        const std::size_t line = event.start_mark.line + 1;
        yaml_event_delete(&event);
        if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) {
            if (++depth > kMaxYamlDepth) {
                throw input_error(where + ":" + std::to_string(line),
                                  "YAML nested more than " + std::to_string(kMaxYamlDepth) + " levels deep (kMaxYamlDepth)",
                                  "topology.yaml is a few levels deep (topology: tree: switches: - switch: ...): check "
                                  "that this is the right file");
            }
        } else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) {
            --depth;
        } else if (type == YAML_STREAM_END_EVENT) {
            return;
        }
    }
}

}  // namespace

FabricTopology read_slurm_topology_yaml(const std::string& text, const std::string& where,
                                        const std::string& topology) {
    require_text_size(text, where, kMaxCaptureBytes, "kMaxCaptureBytes",
                      "topology.yaml files are kilobytes: check that this is the right file");
    check_yaml_depth(text, where);
    Doc d;
    if (yaml_parser_initialize(&d.parser) == 0) {
        throw input_error(where, "the YAML parser could not start", "retry; out of memory?");
    }
    yaml_parser_set_input_string(&d.parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    if (yaml_parser_load(&d.parser, &d.doc) == 0) {
        const std::string problem = d.parser.problem != nullptr ? d.parser.problem : "malformed YAML";
        throw input_error(where + ":" + std::to_string(d.parser.problem_mark.line + 1), "YAML: " + problem,
                          "fix the indentation or quoting on that line (topology.yaml(5) shows the layout)");
    }
    d.loaded = true;
    const yaml_node_t* root = yaml_document_get_root_node(&d.doc);
    if (root == nullptr) {
        throw input_error(where, "the file holds no YAML document", "pass Slurm's topology.yaml");
    }
    const YamlReader r(&d.doc, where);
    const auto entries = r.sequence(root, "the file");
    if (entries.empty()) {
        throw input_error(r.at(root), "the list of topologies is empty", "add '- topology: NAME' entries");
    }
    struct Entry {
        std::string name;
        bool is_default = false;
        const yaml_node_t* node = nullptr;
        std::string kind;
        const yaml_node_t* body = nullptr;
    };
    std::vector<Entry> all;
    std::set<std::string> names;
    for (const auto* e : entries) {
        Entry en;
        en.node = e;
        const auto pairs = r.mapping(e, "a topology", {"topology", "cluster_default", "tree", "block", "flat"});
        for (const auto& [k, v] : pairs) {
            if (k == "topology") {
                en.name = r.scalar(v, "topology");
            } else if (k == "cluster_default") {
                en.is_default = r.boolean(v, "cluster_default");
            } else {
                if (!en.kind.empty()) {
                    throw input_error(r.at(v), "topology has both '" + en.kind + "' and '" + k + "'",
                                      "each topology is exactly one of tree, block or flat");
                }
                if (k == "flat" && !r.boolean(v, "flat")) {
                    throw input_error(r.at(v), "flat: false names no topology type", "write flat: true, or use tree/block");
                }
                en.kind = k;
                en.body = v;
            }
        }
        if (en.name.empty()) {
            throw input_error(r.at(e), "a topology without 'topology:' (its name)", "start the entry with - topology: NAME");
        }
        if (pairs.front().first != "topology") {
            throw input_error(r.at(e), "topology '" + en.name + "' does not start with its name",
                              "Slurm needs 'topology:' as the first attribute");
        }
        if (!names.insert(en.name).second) {
            throw input_error(r.at(e), "topology '" + en.name + "' is defined twice", "names must be unique");
        }
        if (en.kind.empty()) {
            throw input_error(r.at(e), "topology '" + en.name + "' has none of tree, block, flat",
                              "add tree: {switches: ...}, block: {blocks: ...} or flat: true");
        }
        all.push_back(en);
    }
    const Entry* pick = nullptr;
    if (!topology.empty()) {
        for (const auto& en : all) {
            if (en.name == topology) {
                pick = &en;
            }
        }
        if (pick == nullptr) {
            std::string list;
            for (const auto& en : all) {
                list += (list.empty() ? "" : ", ") + en.name;
            }
            throw input_error(where, "no topology named '" + topology + "'", "pick one of: " + list);
        }
    } else {
        for (const auto& en : all) {
            if (en.is_default) {
                pick = &en;
                break;
            }
        }
    }
    FabricTopology f;
    const Entry& chosen = pick != nullptr ? *pick : all.front();
    if (chosen.kind == "tree") {
        f = read_tree(r, chosen.body, where);
    } else if (chosen.kind == "block") {
        f = read_block(r, chosen.body, where);
    } else {
        f.plugin = "flat";
        f.warnings.emplace_back("topology '" + chosen.name + "' is flat: Slurm sees no switches, so no level to keep groups inside");
    }
    f.topology = chosen.name;
    if (pick == nullptr && all.size() > 1) {
        f.warnings.push_back("no topology has cluster_default: true; read the first, '" + chosen.name +
                             "' (choose with --topology NAME)");
    }
    if (all.size() > 1) {
        std::string others;
        for (const auto& en : all) {
            if (&en != &chosen) {
                others += (others.empty() ? "" : ", ") + en.name + " (" + en.kind + ")";
            }
        }
        f.warnings.push_back("the file also defines " + others + "; read another with --topology NAME");
    }
    return f;
}

}  // namespace planlayout
