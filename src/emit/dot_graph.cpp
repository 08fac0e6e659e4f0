// Emit: the DOT graph value and its writer (no Graphviz involved).
#include "dot_graph.hpp"

#include <cctype>
#include <strings.h>

namespace planlayout::dot {
namespace {

bool is_keyword(const std::string& s) {
    for (const char* k : {"node", "edge", "graph", "digraph", "subgraph", "strict"}) {
        if (strcasecmp(s.c_str(), k) == 0) {
            return true;
        }
    }
    return false;
}

// DOT's bare IDs: [A-Za-z_\200-\377][A-Za-z_0-9\200-\377]*, or a numeral -?(.[0-9]+|[0-9]+(.[0-9]*)?).
bool is_bare(const std::string& s) {
    if (s.empty() || is_keyword(s)) {
        return false;
    }
    auto id_char = [](unsigned char c) { return std::isalnum(c) != 0 || c == '_' || c >= 0x80; };
    const auto first = static_cast<unsigned char>(s[0]);
    if (std::isdigit(first) == 0 && first != '-' && first != '.') {
        for (const char c : s) {
            if (!id_char(static_cast<unsigned char>(c))) {
                return false;
            }
        }
        return true;
    }
    std::size_t i = s[0] == '-' ? 1 : 0;
    int dots = 0;
    int digits = 0;
    for (; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '.') {
            ++dots;
        } else if (std::isdigit(c) != 0) {
            ++digits;
        } else {
            return false;
        }
    }
    return dots <= 1 && digits > 0;
}

std::string attr_list(const std::map<std::string, std::string>& attrs) {
    std::string out = "[";
    bool first = true;
    for (const auto& [k, v] : attrs) {
        out += first ? "" : ", ";
        out += quote(k, false) + "=" + quote(v);
        first = false;
    }
    return out + "]";
}

void put_defaults(std::string& out, const char* what, const std::map<std::string, std::string>& attrs) {
    if (!attrs.empty()) {
        out += "\t";
        out += what;
        out += " " + attr_list(attrs) + ";\n";
    }
}

void merge(std::map<std::string, std::string>& into, const Attrs& attrs) {
    for (const auto& [k, v] : attrs) {
        into[k] = v;
    }
}

}  // namespace

std::string quote(const std::string& text, bool is_value) {
    if (is_bare(text)) {
        return text;
    }
    std::string out = "\"";
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const auto u = static_cast<unsigned char>(c);
        if (c == '"') {
            out += "\\\"";
        } else if (c == '\\') {
            const char next = i + 1 < text.size() ? text[i + 1] : '\0';
            if (is_value && (next == 'n' || next == 'l' || next == 'r')) {
                out += c;
                out += next;
                ++i;
            } else {
                out += "\\\\";
            }
        } else if (c == '\n') {
            out += "\\n";
        } else if (u < 0x20 || u == 0x7f) {
            out += '?';
        } else {
            out += c;
        }
    }
    return out + "\"";
}

Graph::Graph(std::string name) { subgraphs_.push_back({std::move(name), {}, {}, {}, {}}); }

void Graph::set_graph_default(const std::string& key, const std::string& value) { graph_defaults_[key] = value; }

void Graph::set_node_default(const std::string& key, const std::string& value) { node_defaults_[key] = value; }

void Graph::set_edge_default(const std::string& key, const std::string& value) { edge_defaults_[key] = value; }

Graph::SubgraphId Graph::subgraph(SubgraphId parent, const std::string& name) {
    const auto it = subgraph_ids_.find(name);
    if (it != subgraph_ids_.end()) {
        return it->second;
    }
    const SubgraphId id = subgraphs_.size();
    subgraphs_.push_back({name, {}, {}, {}, {}});
    subgraphs_[parent].children.push_back(id);
    subgraph_ids_.emplace(name, id);
    return id;
}

Graph::NodeId Graph::node(SubgraphId where, const std::string& name) {
    const auto it = node_ids_.find(name);
    if (it != node_ids_.end()) {
        return it->second;
    }
    const NodeId id = nodes_.size();
    nodes_.push_back({name, {}});
    subgraphs_[where].nodes.push_back(id);
    node_ids_.emplace(name, id);
    return id;
}

std::optional<Graph::NodeId> Graph::find_node(const std::string& name) const {
    const auto it = node_ids_.find(name);
    if (it == node_ids_.end()) {
        return std::nullopt;
    }
    return it->second;
}

void Graph::edge(NodeId a, NodeId b, const Attrs& attrs) {
    Edge e{a, b, {}};
    merge(e.attrs, attrs);
    edges_.push_back(std::move(e));
}

void Graph::add_member(SubgraphId subgraph, NodeId node) { subgraphs_[subgraph].members.push_back(node); }

void Graph::set(SubgraphId subgraph, const Attrs& attrs) {
    merge(subgraph == kRoot ? graph_defaults_ : subgraphs_[subgraph].attrs, attrs);
}

void Graph::set_node(NodeId node, const Attrs& attrs) { merge(nodes_[node].attrs, attrs); }

void Graph::write_subgraph(std::string& out, SubgraphId id, int depth) const {
    const Subgraph& s = subgraphs_[id];
    const std::string indent(static_cast<std::size_t>(depth), '\t');
    out += indent + "subgraph " + quote(s.name, false) + " {\n";
    if (!s.attrs.empty()) {
        out += indent + "\tgraph " + attr_list(s.attrs) + ";\n";
    }
    for (const SubgraphId child : s.children) {
        write_subgraph(out, child, depth + 1);
    }
    for (const NodeId n : s.nodes) {
        out += indent + "\t" + quote(nodes_[n].name, false);
        out += nodes_[n].attrs.empty() ? ";\n" : " " + attr_list(nodes_[n].attrs) + ";\n";
    }
    for (const NodeId n : s.members) {
        out += indent + "\t" + quote(nodes_[n].name, false) + ";\n";
    }
    out += indent + "}\n";
}

std::string Graph::write() const {
    const Subgraph& root = subgraphs_[kRoot];
    std::string out = "graph " + quote(root.name, false) + " {\n";
    put_defaults(out, "graph", graph_defaults_);
    put_defaults(out, "node", node_defaults_);
    put_defaults(out, "edge", edge_defaults_);
    for (const SubgraphId child : root.children) {
        write_subgraph(out, child, 1);
    }
    for (const NodeId n : root.nodes) {
        out += "\t" + quote(nodes_[n].name, false);
        out += nodes_[n].attrs.empty() ? ";\n" : " " + attr_list(nodes_[n].attrs) + ";\n";
    }
    for (const Edge& e : edges_) {
        out += "\t" + quote(nodes_[e.a].name, false) + " -- " + quote(nodes_[e.b].name, false);
        out += e.attrs.empty() ? ";\n" : " " + attr_list(e.attrs) + ";\n";
    }
    return out + "}\n";
}

}  // namespace planlayout::dot
