// Emit: report as text and JSON.
#include "planlayout/emit/score_emit.hpp"
#include "planlayout/emit/report_emit.hpp"

#include <charconv>
#include <map>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "planlayout/emit/allocation_emit.hpp"
#include "planlayout/text_format.hpp"
#include "planlayout/version.hpp"

namespace planlayout {
namespace {

std::string fixed(double v, int digits = 1) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string pad(std::string s, std::size_t width) {
    if (s.size() < width) {
        s.resize(width, ' ');
    }
    return s;
}

std::string lpad(const std::string& s, std::size_t width) {
    return s.size() < width ? std::string(width - s.size(), ' ') + s : s;
}

bool crosses(const KindEdges& k) { return k.cross_pairs() > 0; }

// A value as the assumed block shows it: large counts in e-notation, others as JSON writes them.
std::string value_text(const nlohmann::json& v) {
    if (v.is_number_float()) {
        const double d = v.get<double>();
        char buf[32];
        std::snprintf(buf, sizeof buf, d >= 1e6 ? "%.3g" : "%.6g", d);
        return buf;
    }
    return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// "launch.sh:12" → "launch.sh"; "command line (--tp)" → "command line".
std::string source_file(const std::string& source) {
    const auto paren = source.find(" (");
    std::string s = paren == std::string::npos ? source : source.substr(0, paren);
    const auto colon = s.rfind(':');
    if (colon != std::string::npos && colon + 1 < s.size() &&
        s.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
        s.resize(colon);
    }
    return s;
}

}  // namespace

AssumedValues assumed_values(const std::vector<Assumption>& assumptions) {
    std::vector<std::string> labels;                 // in order of first appearance
    std::map<std::string, std::vector<std::string>> items;  // label → "key value"
    std::map<std::string, std::size_t> given;
    std::vector<std::string> given_order;
    for (std::size_t i = 0; i < assumptions.size(); ++i) {
        const Assumption& a = assumptions[i];
        const bool hardware = a.path.rfind("/hardware/", 0) == 0;
        // The compute model's GPU and constants: from the GPU spec files and the docs, never the input.
        const bool compute = a.path.rfind("/compute/", 0) == 0;
        if (!hardware && !compute && a.source != "default" && a.source != "derived") {
            const std::string file = source_file(a.source);
            if (given[file]++ == 0) {
                given_order.push_back(file);
            }
            continue;
        }
        const auto second = a.path.find('/', 1);
        std::string section = a.path.substr(1, second - 1);
        std::string key = a.path.substr(second + 1);
        if (hardware) {
            const auto third = a.path.find('/', second + 1);
            section = nlohmann::json::json_pointer(a.path.substr(0, third)).back();  // the template name, unescaped
            key = a.path.substr(third + 1);
        }
        std::string value = value_text(a.value);
        // A prior {high, low, value} (JSON orders keys) of one source reads as "key 0.9 (0.8..0.95)".
        const auto prior_part = [&](std::size_t k, const char* leaf) {
            const std::string& p = assumptions[k].path;
            const std::string tail = std::string("/") + leaf;
            return p.size() > tail.size() && p.compare(p.size() - tail.size(), tail.size(), tail) == 0 &&
                   p.substr(0, p.size() - tail.size()) == a.path.substr(0, a.path.size() - 5) &&
                   assumptions[k].source == a.source;
        };
        if (key.size() > 5 && key.compare(key.size() - 5, 5, "/high") == 0 && i + 2 < assumptions.size() &&
            prior_part(i + 1, "low") && prior_part(i + 2, "value")) {
            key.resize(key.size() - 5);
            value = value_text(assumptions[i + 2].value) + " (" + value_text(assumptions[i + 1].value) + ".." + value + ")";
            i += 2;
        }
        const std::string label = hardware ? "node " + section : compute ? section : a.source + " " + section;
        if (items.count(label) == 0) {
            labels.push_back(label);
        }
        const bool say_source = (hardware && a.source == "default") || (compute && key == "gpu");
        items[label].push_back(key + " " + value + (say_source ? " (" + a.source + ")" : ""));
    }
    AssumedValues out;
    for (const auto& label : labels) {
        out.labels.emplace_back(label, items[label]);
    }
    for (const auto& file : given_order) {
        out.given.emplace_back(file, given[file]);
    }
    return out;
}

namespace {

// The "assumed" block as text: each label's items wrapped before 100 columns, then the given count per input.
void assumed_text(std::ostringstream& out, const std::vector<Assumption>& assumptions) {
    const AssumedValues assumed = assumed_values(assumptions);
    if (assumed.labels.empty() && assumed.given.empty()) {
        return;
    }
    out << "\nassumed (not given: derived or default; --format json lists every value with its source):\n";
    for (const auto& [label, items] : assumed.labels) {
        out << "  " << label << ": ";
        std::size_t width = label.size() + 4;  // wrap the items of a label before 100 columns
        bool first = true;
        for (const auto& item : items) {
            if (!first && width + item.size() + 2 > 100) {
                out << ",\n    " << item;
                width = 4 + item.size();
            } else {
                out << (first ? "" : ", ") << item;
                width += item.size() + (first ? 0 : 2);
            }
            first = false;
        }
        out << "\n";
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

std::string class_counts_text(const ClassCounts& counts, bool cross_only) {
    std::string s;
    for (int c = cross_only ? static_cast<int>(PathClass::Rail) : 0; c < kPathClassCount; ++c) {
        const auto v = counts[static_cast<std::size_t>(c)];
        if (v > 0) {
            s += (s.empty() ? "" : ", ") + std::string(to_string(static_cast<PathClass>(c))) + " " + std::to_string(v);
        }
    }
    return s.empty() ? "-" : s;
}

std::string gpu_name(const Report& report, std::int64_t rank) {
    const auto r = static_cast<std::size_t>(rank);
    return report.cluster.nodes[static_cast<std::size_t>(report.placement.node[r])].host + "/gpu" +
           std::to_string(report.placement.gpu[r]);
}

std::string nic_name(const Report& report, std::int64_t rank) {
    const auto r = static_cast<std::size_t>(rank);
    const std::int32_t node = report.placement.node[r];
    const TemplateFacts& f = report.cluster.facts_of(node);
    const int rail = f.gpu_rail[static_cast<std::size_t>(report.placement.gpu[r])];
    if (rail < 0) {
        return "";
    }
    const Nic& nic = report.cluster.template_of(node).nics[static_cast<std::size_t>(f.rail_nics[static_cast<std::size_t>(rail)])];
    return report.cluster.nodes[static_cast<std::size_t>(node)].host + "/" + (nic.device.empty() ? nic.name : nic.device);
}

std::string memory_text(const MemoryReport& m) {
    const MemoryEstimate& e = m.estimate;
    std::ostringstream out;
    out << "memory per GPU (the busiest rank: the first pipeline stage):\n";
    if (!e.accounting.empty()) {
        out << "  " << pad("states", 12) << e.accounting << "\n";
    }
    const auto row = [&out](const char* name, double bytes, const std::string& formula) {
        out << "  " << pad(name, 12) << lpad(human_bytes(bytes), 10) << (formula.empty() ? "" : "  " + formula) << "\n";
    };
    row("params", e.params_bytes, e.params_formula);
    row("grads", e.grads_bytes, e.grads_formula);
    row("optimizer", e.optimizer_bytes, e.optimizer_formula);
    row("activations", e.activations_bytes, e.activations_formula);
    if (e.gathered_bytes > 0) {
        row("gathered", e.gathered_bytes, e.gathered_formula);
    }
    if (e.offloaded_bytes > 0) {
        row("offloaded", e.offloaded_bytes, "in host memory or on NVMe, not in the total");
    }
    out << "  " << pad("total", 12) << lpad(human_bytes(e.total_bytes()), 10);
    const auto fits = m.fits();
    if (!fits) {
        out << ": not checked, the budget is unknown\n";
    } else if (*fits) {
        out << ": fits in the budget (" << percent_text(e.total_bytes() / m.budget.budget_bytes(), 0) << " of it)\n";
    } else {
        out << ": does NOT fit, " << human_bytes(e.total_bytes() - m.budget.budget_bytes()) << " over the budget\n";
    }
    const std::string budget = memory_budget_text(m.budget);  // "73.6 GiB = ..." or "unknown (...)"
    const std::size_t first = m.budget.known() ? human_bytes(m.budget.budget_bytes()).size() : budget.size();
    out << "  " << pad("budget", 12) << lpad(budget.substr(0, first), 10) << budget.substr(first) << "\n";
    return out.str();
}

nlohmann::json to_json(const MemoryReport& m) {
    const MemoryEstimate& e = m.estimate;
    const auto bytes = [](double v) { return static_cast<std::int64_t>(std::llround(v)); };
    nlohmann::json j = {{"params", bytes(e.params_bytes)},
                        {"grads", bytes(e.grads_bytes)},
                        {"optimizer", bytes(e.optimizer_bytes)},
                        {"activations", bytes(e.activations_bytes)},
                        {"gathered", bytes(e.gathered_bytes)},
                        {"offloaded", bytes(e.offloaded_bytes)},
                        {"total", bytes(e.total_bytes())},
                        {"gpu_memory", bytes(m.budget.gpu_memory_bytes)},
                        {"headroom", bytes(m.budget.headroom_bytes)},
                        {"budget", bytes(m.budget.budget_bytes())},
                        {"budget_source", m.budget.source},
                        {"states", e.accounting},
                        {"formulas", {{"params", e.params_formula},
                                      {"grads", e.grads_formula},
                                      {"optimizer", e.optimizer_formula},
                                      {"activations", e.activations_formula},
                                      {"gathered", e.gathered_formula}}}};
    const auto fits = m.fits();
    j["fits"] = fits ? nlohmann::json(*fits) : nlohmann::json(nullptr);
    return j;
}

namespace {

// Nodes per NVLink domain, smallest and largest, and the nodes in one.
struct DomainSizes {
    std::int64_t smallest = 0;
    std::int64_t largest = 0;
    std::int64_t nodes = 0;
};

DomainSizes domain_sizes(const Cluster& c) {
    std::vector<std::int64_t> size(c.nvlink.names.size(), 0);
    DomainSizes d;
    for (std::int64_t n = 0; n < c.node_count(); ++n) {
        if (const std::int32_t k = c.domain_of(n); k >= 0) {
            ++size[static_cast<std::size_t>(k)];
            ++d.nodes;
        }
    }
    if (!size.empty()) {
        d.smallest = *std::min_element(size.begin(), size.end());
        d.largest = *std::max_element(size.begin(), size.end());
    }
    return d;
}

}  // namespace

std::string nvlink_domains_text(const Cluster& c) {
    if (c.nvlink.empty()) {
        return {};
    }
    const DomainSizes d = domain_sizes(c);
    const std::size_t k = c.nvlink.names.size();
    std::string s = "nvlink domains: " + std::to_string(k) + " of " +
                    (d.smallest == d.largest ? std::to_string(d.largest)
                                             : std::to_string(d.smallest) + " to " + std::to_string(d.largest)) +
                    " node(s) (MNNVL between the nodes of one domain)";
    if (d.nodes < c.node_count()) {
        s += ", " + std::to_string(c.node_count() - d.nodes) + " node(s) in none";
    }
    return s + "; " + c.nvlink.source;
}

nlohmann::json cluster_summary_json(const Cluster& c) {
    nlohmann::json j;
    j["nodes"] = c.node_count();
    j["gpus"] = c.total_gpus();
    j["rails"] = c.rails;
    j["homogeneous"] = c.homogeneous();
    nlohmann::json templates = nlohmann::json::array();
    for (std::size_t i = 0; i < c.templates.size(); ++i) {
        const auto& t = c.templates[i];
        const auto& f = c.facts[i];
        std::int64_t count = 0;
        for (const auto& n : c.nodes) {
            count += n.template_index == static_cast<int>(i) ? 1 : 0;
        }
        templates.push_back({{"name", t.name},
                             {"nodes", count},
                             {"gpus_per_node", f.gpu_count},
                             {"gpu_model", t.gpu_model},
                             {"rail_nics", f.rail_nics.size()},
                             {"nvlink_gbyte_s", f.nvlink_gbyte_s},
                             {"tcp_gbit_s", f.tcp_gbit_s}});
    }
    j["templates"] = templates;
    j["fabric"] = {{"rails", c.fabric.aligned ? "aligned" : "explicit"},
                   {"nodes_per_su", c.fabric.nodes_per_su},
                   {"sus_per_pod", c.fabric.sus_per_pod},
                   {"oversubscription", c.fabric.oversubscription},
                   {"pxn", c.fabric.pxn}};
    if (!c.regular_units()) {  // an irregular fabric: the real sizes (nodes_per_su, sus_per_pod are the largest)
        j["fabric"]["su_sizes"] = c.su_sizes();
    }
    if (!c.nvlink.empty()) {
        const DomainSizes d = domain_sizes(c);
        j["nvlink_domains"] = {{"domains", c.nvlink.names.size()},
                               {"smallest_nodes", d.smallest},
                               {"largest_nodes", d.largest},
                               {"nodes_in_domains", d.nodes},
                               {"source", c.nvlink.source}};
    }
    if (!c.topology_file.empty()) {
        j["topology"] = {{"file", c.topology_file},
                         {"leaf_switches", c.su_names.size()},
                         {"spine_switches", c.pod_names.size()},
                         {"core", c.core_name}};
    }
    return j;
}

std::string report_text(const Report& report, const ReportOptions& options) {
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
    out << "placement: " << report.placement.description << "\n\n";
    out << pad("kind", 24) << lpad("groups x size", 14) << lpad("nodes", 7) << "  " << pad("worst", 6)
        << lpad("GB/s", 8) << "  pairs by class\n";
    for (const auto& k : report.kinds) {
        const std::string shape = std::to_string(k.groups) + " x " + std::to_string(k.size);
        out << pad(k.kind, 24) << lpad(shape, 14) << lpad(std::to_string(k.max_nodes), 7) << "  "
            << pad(k.size == 1 ? "-" : std::string(to_string(k.worst)), 6)
            << lpad(k.bottleneck_gbyte_s > 0 ? fixed(k.bottleneck_gbyte_s) : "-", 8) << "  "
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
    if (options.ranks) {
        const PairClassifier classifier(report.cluster, report.placement);
        out << "\nranks:\n" << pad("  rank", 8) << pad("gpu", 18) << pad("nic", 20) << "gpu-nic\n";
        for (std::int64_t r = 0; r < report.placement.world(); ++r) {
            const std::string nic = nic_name(report, r);
            out << "  " << pad(std::to_string(r), 6) << pad(gpu_name(report, r), 18) << pad(nic.empty() ? "-" : nic, 20)
                << (nic.empty() ? "-" : std::string(to_string(classifier.nic_class_of(r)))) << "\n";
        }
    }
    return out.str();
}

std::string report_json(const Report& report) {
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
    std::string text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    // The placement is streamed: it has one entry per rank (131,072 at scale), so the per-node
    // and per-rail strings are built once.
    const Cluster& c = report.cluster;
    std::vector<std::vector<std::string>> rail_names(c.templates.size());
    for (std::size_t t = 0; t < c.templates.size(); ++t) {
        for (const int idx : c.facts[t].rail_nics) {
            const Nic& nic = c.templates[t].nics[static_cast<std::size_t>(idx)];
            rail_names[t].push_back(nic.device.empty() ? nic.name : nic.device);
        }
    }
    std::string placement = ",\n  \"placement\": [";
    placement.reserve(static_cast<std::size_t>(report.placement.world()) * 110 + 64);
    for (std::int64_t r = 0; r < report.placement.world(); ++r) {
        const auto i = static_cast<std::size_t>(r);
        const std::int32_t node = report.placement.node[i];
        const int gpu = report.placement.gpu[i];
        const auto tmpl = static_cast<std::size_t>(c.nodes[static_cast<std::size_t>(node)].template_index);
        const TemplateFacts& f = c.facts[tmpl];
        const int rail = f.gpu_rail[static_cast<std::size_t>(gpu)];
        const std::string& host = c.nodes[static_cast<std::size_t>(node)].host;
        placement += r ? ",\n    {\"rank\": " : "\n    {\"rank\": ";
        placement += std::to_string(r);
        placement += ", \"node\": \"";
        placement += host;
        placement += "\", \"gpu\": ";
        placement += std::to_string(gpu);
        if (rail < 0) {
            placement += ", \"nic\": null, \"nic_class\": null}";
            continue;
        }
        placement += ", \"nic\": \"";
        placement += host;
        placement += '/';
        placement += rail_names[tmpl][static_cast<std::size_t>(rail)];
        placement += "\", \"nic_class\": \"";
        placement += to_string(f.gpu_nic_class[static_cast<std::size_t>(gpu)]);
        placement += "\"}";
    }
    placement += "\n  ]";
    text.insert(text.size() - 2, placement);
    return text + "\n";
}

}  // namespace planlayout
