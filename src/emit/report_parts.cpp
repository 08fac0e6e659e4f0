// Emit: the report's parts that other emitters show too — the assumed values, memory per GPU,
// the cluster summary, pair counts by class, GPU and NIC names (declared in report_emit.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "planlayout/emit/report_emit.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout {
namespace {

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
        out << "  " << left_aligned("states", 12) << e.accounting << "\n";
    }
    const auto row = [&out](const char* name, double bytes, const std::string& formula) {
        out << "  " << left_aligned(name, 12) << right_aligned(human_bytes(bytes), 10) << (formula.empty() ? "" : "  " + formula) << "\n";
    };
    row("params", e.params_bytes, e.params_formula);
    row("grads", e.grads_bytes, e.grads_formula);
    row("optimizer", e.optimizer_bytes, e.optimizer_formula);
    if (e.optimizer_step_bytes > 0) {
        row("opt. step", e.optimizer_step_bytes, e.optimizer_step_formula);
    }
    row("activations", e.activations_bytes, e.activations_formula);
    if (e.gathered_bytes > 0) {
        row("gathered", e.gathered_bytes, e.gathered_formula);
    }
    if (e.offloaded_bytes > 0) {
        row("offloaded", e.offloaded_bytes, "in host memory or on NVMe, not in the total");
    }
    out << "  " << left_aligned("total", 12) << right_aligned(human_bytes(e.total_bytes()), 10);
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
    out << "  " << left_aligned("budget", 12) << right_aligned(budget.substr(0, first), 10) << budget.substr(first) << "\n";
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
                        {"optimizer_step", bytes(e.optimizer_step_bytes)},
                        {"grads_after_activations", e.grads_after_activations},
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
                                      {"gathered", e.gathered_formula},
                                      {"optimizer_step", e.optimizer_step_formula}}}};
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

std::string verdict_assumed_text(const Report& report) {
    if (!report.score) {
        return {};
    }
    // The compared arms' priors ({value, low, high} under /transport/ARM/KEY) that no input gave.
    std::map<std::string, const Assumption*> by_path;
    for (const Assumption& a : report.assumptions) {
        by_path[a.path] = &a;
    }
    std::vector<std::string> priors;
    for (const Transport arm : {report.score->baseline, report.score->candidate}) {
        const std::string base = "/transport/" + std::string(to_string(arm)) + "/";
        for (auto it = by_path.lower_bound(base); it != by_path.end() && it->first.rfind(base, 0) == 0; ++it) {
            const std::string& path = it->first;
            const std::string tail = "/value";
            if (path.size() <= tail.size() || path.compare(path.size() - tail.size(), tail.size(), tail) != 0 ||
                it->second->source != "default") {
                continue;
            }
            const std::string key = path.substr(0, path.size() - tail.size());
            const auto low = by_path.find(key + "/low");
            const auto high = by_path.find(key + "/high");
            if (low == by_path.end() || high == by_path.end()) {
                continue;
            }
            priors.push_back(key.substr(std::string("/transport/").size()) + " " + value_text(it->second->value) + " (" +
                             value_text(low->second->value) + ".." + value_text(high->second->value) + ")");
        }
    }
    if (priors.empty()) {
        return {};
    }
    std::sort(priors.begin(), priors.end());
    priors.erase(std::unique(priors.begin(), priors.end()), priors.end());
    for (std::size_t i = 0; i < priors.size(); ++i) {
        priors[i] += i + 1 < priors.size() ? "," : " set this verdict";
    }
    // What they are and what to do, then the priors wrapped before kTextWrap columns.
    return "assumed (not measured; calibrate yours, see all: plan-layout numbers --class assumed):\n" +
           wrapped_text(priors, "  ", "  ", " ") + "\n";
}

}  // namespace planlayout
