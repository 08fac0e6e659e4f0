// Emit: a DOT graph as a value (subgraphs, nodes, edges, attributes) and our own DOT writer.
// Diagrams are built here and written without Graphviz, so the DOT text depends on nothing but
// the graph: not on Graphviz's process-wide defaults, nor on what was rendered before.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace planlayout::dot {

/// Attributes in the order they are given; stored sorted by name (the writer's order).
using Attrs = std::vector<std::pair<std::string, std::string>>;

/// An undirected DOT graph. Subgraphs and nodes are referred to by index; index 0 is the root
/// graph. Names are unique per kind, as in DOT. Written in creation order: each subgraph with
/// its nodes where they were created, then the root's nodes, then every edge.
class Graph {
public:
    using SubgraphId = std::size_t;
    using NodeId = std::size_t;
    static constexpr SubgraphId kRoot = 0;

    explicit Graph(std::string name);

    /// Defaults: `graph [...]`, `node [...]`, `edge [...]` of the root.
    void set_graph_default(const std::string& key, const std::string& value);
    void set_node_default(const std::string& key, const std::string& value);
    void set_edge_default(const std::string& key, const std::string& value);

    /// A subgraph of `parent`; an existing name returns the existing subgraph.
    SubgraphId subgraph(SubgraphId parent, const std::string& name);

    /// A node created in `where`; an existing name returns the existing node (where it was).
    NodeId node(SubgraphId where, const std::string& name);

    [[nodiscard]] std::optional<NodeId> find_node(const std::string& name) const;

    void edge(NodeId a, NodeId b, const Attrs& attrs);

    /// Makes an existing node a member of another subgraph too (written there by name only):
    /// rank constraints over nodes of several clusters.
    void add_member(SubgraphId subgraph, NodeId node);

    void set(SubgraphId subgraph, const Attrs& attrs);
    void set_node(NodeId node, const Attrs& attrs);

    /// DOT text. Values are escString: `\n`, `\l`, `\r` pass through, any other backslash and
    /// every quote is escaped, a newline becomes `\n`, other control bytes become `?`.
    [[nodiscard]] std::string write() const;

private:
    using AttrMap = std::map<std::string, std::string>;

    struct Subgraph {
        std::string name;
        AttrMap attrs;
        std::vector<SubgraphId> children;
        std::vector<NodeId> nodes;
        std::vector<NodeId> members;  // nodes declared elsewhere (add_member)
    };

    struct Node {
        std::string name;
        AttrMap attrs;
    };

    struct Edge {
        NodeId a = 0;
        NodeId b = 0;
        AttrMap attrs;
    };

    void write_subgraph(std::string& out, SubgraphId id, int depth) const;

    AttrMap graph_defaults_;
    AttrMap node_defaults_;
    AttrMap edge_defaults_;
    std::vector<Subgraph> subgraphs_;
    std::map<std::string, SubgraphId> subgraph_ids_;
    std::vector<Node> nodes_;
    std::map<std::string, NodeId> node_ids_;
    std::vector<Edge> edges_;
};

/// A DOT ID or value as written: bare when it is a plain identifier or number, else quoted.
[[nodiscard]] std::string quote(const std::string& text, bool is_value = true);

}  // namespace planlayout::dot
