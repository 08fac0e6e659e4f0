// Emit: the report as text and JSON (its parts shared with other emitters: report_parts.cpp).
#include "planlayout/emit/report_emit.hpp"

#include <cstdio>
#include <sstream>

#include "planlayout/emit/allocation_emit.hpp"
#include "planlayout/emit/numbers_emit.hpp"
#include "planlayout/emit/score_emit.hpp"
#include "planlayout/text_format.hpp"
#include "planlayout/version.hpp"

namespace planlayout {
namespace {

bool crosses(const KindEdges& k) { return k.cross_pairs() > 0; }

// The "assumed" block as text: each label's items wrapped before kTextWrap columns, then the given count per input.
void assumed_text(std::ostream& out, const std::vector<Assumption>& assumptions) {
    const AssumedValues assumed = assumed_values(assumptions);
    if (assumed.labels.empty() && assumed.given.empty()) {
        return;
    }
    out << "\nassumed (not given: derived or default; --format json lists every value with its source):\n";
    for (const auto& [label, items] : assumed.labels) {
        out << wrapped_text(items, "  " + label + ": ", "    ", ", ") << "\n";
    }
    if (!assumed.given.empty()) {
        out << "  given: ";
        for (std::size_t i = 0; i < assumed.given.size(); ++i) {
            out << (i ? ", " : "") << assumed.given[i].first << " (" << assumed.given[i].second << ")";
        }
        out << "\n";
    }
}

}  // namespace

void write_report_text(std::ostream& stream, const Report& report, const ReportOptions& options) {
    // Everything but the ranks is made before a byte is written: a failure (a non-finite number
    // refused by text_format) leaves standard output empty.
    std::ostringstream out;
    const Cluster& c = report.cluster;
    const ResolvedSpec& s = report.groups.spec;
    out << "layout: " << report.layout_name << "\n";
    out << "cluster: " << c.node_count() << " nodes, " << c.total_gpus() << " GPUs";
    if (c.homogeneous()) {
        out << " (" << c.facts.front().gpu_count << " per node, " << c.templates.front().name << ")";
    } else {
        out << " (" << c.templates.size() << " node templates)";
    }
    out << ", " << c.rails << " rails " << (c.fabric.aligned ? "rail-aligned" : "explicitly wired");
    if (c.fabric.nodes_per_su > 0) {
        out << ", " << c.su_size_text();
    }
    if (!c.topology_file.empty()) {  // an imported fabric: its leaf switches are the units, its spines the pods
        out << ", from topology " << c.topology_file << " (" << c.su_names.size() << (c.topology_blocks ? " block(s)" : " leaf switch(es)");
        if (!c.pod_names.empty()) {
            out << " under " << c.pod_names.size() << " spine switch(es)";
        }
        out << ")";
    }
    out << ", PXN " << (c.fabric.pxn ? "on" : "off");
    if (c.fabric.oversubscription != 1.0) {  // 1:1 (non-blocking) is the default and says nothing
        const double r = c.fabric.oversubscription;
        out << ", leaf uplinks " << (r == std::floor(r) ? std::to_string(static_cast<long long>(r)) : fixed_text(r, 2))
            << ":1 oversubscribed";
    }
    out << "\n";
    if (!c.nvlink.empty()) {
        out << nvlink_domains_text(c) << "\n";
    }
    if (report.groups.framework != "megatron") {
        out << "framework: " << report.groups.framework << " (" << report.groups.framework_degrees
            << "); Megatron's sizes below";
        // The score and its tables name the traffic by role; say which kind carries each.
        std::string roles;
        for (const auto& k : report.groups.kinds) {
            if (!k.role.empty() && k.role != k.name && report.groups.find_role(k.role) == &k) {
                roles += (roles.empty() ? "" : ", ") + k.name + " carries " + k.role;
            }
        }
        if (!roles.empty()) {
            out << "; " << roles;
        }
        out << "\n";
    }
    out << "spec: tp=" << s.tp << " pp=" << s.pp << " cp=" << s.cp << " dp=" << s.dp << " | ep=" << s.ep
        << " etp=" << s.etp << " expert_dp=" << s.expert_dp << " | order " << s.order << " | world " << s.world << "\n";
    out << "placement: " << report.placement.description << "\n";
    out << verdict_assumed_text(report) << "\n";
    out << left_aligned("kind", 24) << right_aligned("groups x size", 14) << right_aligned("nodes", 7) << "  " << left_aligned("worst", 6)
        << right_aligned("GB/s", 8) << "  pairs by class\n";
    for (const auto& k : report.kinds) {
        const std::string shape = std::to_string(k.groups) + " x " + std::to_string(k.size);
        out << left_aligned(k.kind, 24) << right_aligned(shape, 14) << right_aligned(std::to_string(k.max_nodes), 7) << "  "
            << left_aligned(k.size == 1 ? "-" : std::string(to_string(k.worst)), 6)
            << right_aligned(k.bottleneck_gbyte_s > 0 ? fixed_text(k.bottleneck_gbyte_s, 1) : "-", 8) << "  "
            << (k.size == 1 ? "(singletons)" : class_counts_text(k.pairs)) << "\n";
    }
    out << "\ncross-node summary:\n";
    std::string inside;
    bool any = false;
    bool mnnvl = false;  // some kind stays inside an NVLink domain, across its nodes
    for (const auto& k : report.kinds) {
        if (!crosses(k)) {
            if (k.size > 1) {
                inside += (inside.empty() ? "" : ", ") + k.kind;
                mnnvl = mnnvl || k.worst == PathClass::Mnnvl;
            }
            continue;
        }
        any = true;
        out << "  " << k.kind << ": " << k.groups << (k.groups == 1 ? " group" : " groups") << " of " << k.size
            << " over " << (k.max_nodes == 1 ? "1 node" : "up to " + std::to_string(k.max_nodes) + " nodes") << "; "
            << k.cross_pairs() << " of " << k.total_pairs() << " used pairs cross nodes ("
            << class_counts_text(k.pairs, true) << ")";
        if (const auto in_domain = k.pairs[static_cast<std::size_t>(PathClass::Mnnvl)]; in_domain > 0) {
            out << ", " << in_domain << " more join nodes of one NVLink domain (MNNVL)";
        }
        out << "\n";
    }
    if (!any) {
        out << "  no group crosses nodes\n";
    }
    out << (mnnvl ? "  stay inside a node or an NVLink domain: " : "  stay inside a node: ") << (inside.empty() ? "-" : inside)
        << "\n";
    if (report.allocation) {
        out << "\n" << allocation_text(report);
    }
    if (report.score) {
        out << "\n" << render_text(*report.score);
    }
    if (report.memory) {
        out << "\n" << memory_text(*report.memory);
    }
    if (report.score) {
        assumed_text(out, report.assumptions);
    }
    if (!report.warnings.empty()) {
        out << "\nwarnings:\n";
        for (const auto& w : report.warnings) {
            out << "  " << w << "\n";
        }
    }
    stream << out.str();
    if (options.ranks) {
        const PairClassifier classifier(report.cluster, report.placement);
        stream << "\nranks:\n" << left_aligned("  rank", 8) << left_aligned("gpu", 18) << left_aligned("nic", 20) << "gpu-nic\n";
        for (std::int64_t r = 0; r < report.placement.world(); ++r) {
            const std::string nic = nic_name(report, r);
            stream << "  " << left_aligned(std::to_string(r), 6) << left_aligned(gpu_name(report, r), 18) << left_aligned(nic.empty() ? "-" : nic, 20)
                << (nic.empty() ? "-" : std::string(to_string(classifier.nic_class_of(r)))) << "\n";
        }
    }
}

std::string report_text(const Report& report, const ReportOptions& options) {
    std::ostringstream out;
    write_report_text(out, report, options);
    return out.str();
}

namespace {

// The report as JSON without the placement: an object of the small parts (nlohmann sorts its
// keys), read from the report.
nlohmann::json report_json_head(const Report& report) {
    nlohmann::json j;
    j["schema_version"] = kSchemaVersion;
    j["layout"] = report.layout_name;
    j["cluster"] = cluster_summary_json(report.cluster);
    j["spec"] = to_json(report.groups.spec);
    if (report.groups.framework != "megatron") {
        j["framework"] = {{"name", report.groups.framework}, {"degrees", report.groups.framework_degrees}};
    }
    nlohmann::json kinds = nlohmann::json::object();
    for (const auto& k : report.kinds) {
        nlohmann::json pairs = nlohmann::json::object();
        for (int c = 0; c < kPathClassCount; ++c) {
            if (k.pairs[static_cast<std::size_t>(c)] > 0) {
                pairs[std::string(to_string(static_cast<PathClass>(c)))] = k.pairs[static_cast<std::size_t>(c)];
            }
        }
        kinds[k.kind] = {{"groups", k.groups},
                         {"size", k.size},
                         {"max_nodes", k.max_nodes},
                         {"pairs", pairs},
                         {"cross_pairs", k.cross_pairs()},
                         {"worst", to_string(k.worst)},
                         {"bottleneck_gbyte_s", k.bottleneck_gbyte_s}};
    }
    j["kinds"] = kinds;
    j["warnings"] = report.warnings;
    if (report.score) {
        j["score"] = to_json(*report.score);
        j["model_numbers"] = model_numbers_json();
    }
    if (report.memory) {
        j["memory"] = to_json(*report.memory);
    }
    if (report.allocation) {
        j["allocation"] = allocation_json(report);
    }
    j["assumptions"] = nlohmann::json::array();
    for (const auto& a : report.assumptions) {
        j["assumptions"].push_back({{"path", a.path}, {"value", a.value}, {"source", a.source}});
    }
    return j;
}

// The "placement" array, one entry per rank (2,097,152 at the limits), written into `out` in
// chunks of about 1 MB: the per-node and per-rail strings are built once, the entries never all
// held.
void write_placement(std::ostream& out, const Report& report) {
    const Cluster& c = report.cluster;
    std::vector<std::vector<std::string>> rail_names(c.templates.size());
    for (std::size_t t = 0; t < c.templates.size(); ++t) {
        for (const int idx : c.facts[t].rail_nics) {
            const Nic& nic = c.templates[t].nics[static_cast<std::size_t>(idx)];
            rail_names[t].push_back(nic.device.empty() ? nic.name : nic.device);
        }
    }
    constexpr std::size_t kChunk = std::size_t{1} << 20U;
    std::string chunk = ",\n  \"placement\": [";
    chunk.reserve(kChunk + 256);
    for (std::int64_t r = 0; r < report.placement.world(); ++r) {
        const auto i = static_cast<std::size_t>(r);
        const std::int32_t node = report.placement.node[i];
        const int gpu = report.placement.gpu[i];
        const auto tmpl = static_cast<std::size_t>(c.nodes[static_cast<std::size_t>(node)].template_index);
        const TemplateFacts& f = c.facts[tmpl];
        const int rail = f.gpu_rail[static_cast<std::size_t>(gpu)];
        const std::string& host = c.nodes[static_cast<std::size_t>(node)].host;
        chunk += r ? ",\n    {\"rank\": " : "\n    {\"rank\": ";
        chunk += std::to_string(r);
        chunk += ", \"node\": \"";
        chunk += host;
        chunk += "\", \"gpu\": ";
        chunk += std::to_string(gpu);
        if (rail < 0) {
            chunk += ", \"nic\": null, \"nic_class\": null}";
        } else {
            chunk += ", \"nic\": \"";
            chunk += host;
            chunk += '/';
            chunk += rail_names[tmpl][static_cast<std::size_t>(rail)];
            chunk += "\", \"nic_class\": \"";
            chunk += to_string(f.gpu_nic_class[static_cast<std::size_t>(gpu)]);
            chunk += "\"}";
        }
        if (chunk.size() >= kChunk) {
            out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
            chunk.clear();
        }
    }
    chunk += "\n  ]";
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
}

}  // namespace

void write_report_json(std::ostream& out, const Report& report) {
    // The small parts dumped once, then the placement (the last key) streamed before the closing "\n}".
    const std::string head = report_json_head(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    out.write(head.data(), static_cast<std::streamsize>(head.size() - 2));
    write_placement(out, report);
    out << "\n}\n";
}

std::string report_json(const Report& report) {
    std::ostringstream out;
    write_report_json(out, report);
    return out.str();
}

}  // namespace planlayout
