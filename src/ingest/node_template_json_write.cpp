// Ingest: node templates to JSON (the writer of node_template_json.hpp; the reader is
// node_template_json.cpp): what `import` and `discover` print.
#include "planlayout/ingest/node_template_json.hpp"

#include <algorithm>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace planlayout {
namespace {

using nlohmann::json;

json pcie_json(const PcieLink& l) {
    json j = json::object();
    if (l.gen != 0) {
        j["gen"] = l.gen;
    }
    if (l.width != 0) {
        j["width"] = l.width;
    }
    if (l.max_gen != 0) {
        j["max_gen"] = l.max_gen;
    }
    if (l.max_width != 0) {
        j["max_width"] = l.max_width;
    }
    if (l.gbyte_s != 0) {
        j["gbyte_s"] = l.gbyte_s;
    }
    return j;
}

void put_pcie(json& j, const PcieLink& l) {
    json p = pcie_json(l);
    if (!p.empty()) {
        j["pcie"] = std::move(p);
    }
}

/// The template's pairs, each with its ends in device order, sorted by device. Names are ranked
/// once (device_less parses them: once per comparison was most of the sort of 523,776 pairs);
/// names device_less cannot tell apart share a rank.
struct Ranked {
    std::size_t a;
    std::size_t b;
    const DevicePath* p;
    bool swapped;  // p's ends in the other order

    [[nodiscard]] const std::string& first() const { return swapped ? p->b : p->a; }
    [[nodiscard]] const std::string& second() const { return swapped ? p->a : p->b; }
};

std::vector<Ranked> sorted_paths(const NodeTemplate& t) {
    std::vector<std::string> names;
    {
        std::unordered_set<std::string> distinct;
        for (const auto& p : t.paths) {
            distinct.insert(p.a);
            distinct.insert(p.b);
        }
        names.assign(distinct.begin(), distinct.end());
    }
    std::sort(names.begin(), names.end());
    std::stable_sort(names.begin(), names.end(), device_less);
    std::unordered_map<std::string, std::size_t> rank;
    for (std::size_t i = 0, r = 0; i < names.size(); ++i) {
        if (i > 0 && device_less(names[i - 1], names[i])) {
            ++r;
        }
        rank.emplace(names[i], r);
    }
    std::vector<Ranked> order;
    order.reserve(t.paths.size());
    for (const auto& p : t.paths) {
        const std::size_t ra = rank.at(p.a);
        const std::size_t rb = rank.at(p.b);
        order.push_back(rb < ra ? Ranked{rb, ra, &p, true} : Ranked{ra, rb, &p, false});
    }
    std::sort(order.begin(), order.end(), [](const Ranked& x, const Ranked& y) {
        return std::tie(x.a, x.b) < std::tie(y.a, y.b);
    });
    return order;
}

json path_json(const Ranked& r) {
    const DevicePath& p = *r.p;
    json o = {{"a", r.first()}, {"b", r.second()}, {"class", std::string(to_string(p.path_class))}};
    if (p.nvlinks != 0) {
        o["nvlinks"] = p.nvlinks;
    }
    return o;
}

json template_json(const NodeTemplate& t, bool with_paths) {
    json j = json::object();
    if (!t.name.empty()) {
        j["name"] = t.name;
    }
    if (!t.source.empty()) {
        j["source"] = t.source;
    }
    if (!t.gpu_model.empty()) {
        j["gpu_model"] = t.gpu_model;
    }
    if (t.gpu_memory_bytes > 0) {
        j["gpu_memory_mib"] = t.gpu_memory_bytes / 0x1p20;  // exact: captures give KiB
    }
    json nv = json::object();
    nv["nvswitch"] = t.nvlink.nvswitch;
    nv["links_per_gpu"] = t.nvlink.links_per_gpu;
    nv["gbyte_s_per_link"] = t.nvlink.gbyte_s_per_link;
    j["nvlink"] = nv;

    json cpus = json::array();
    for (const auto& c : t.cpus) {
        json o = {{"name", c.name}, {"numa", c.numa}};
        if (!c.cpuset.empty()) {
            o["cpuset"] = c.cpuset;
        }
        if (!c.arch.empty()) {
            o["arch"] = c.arch;
        }
        if (!c.vendor.empty()) {
            o["vendor"] = c.vendor;
        }
        if (c.family_id >= 0) {
            o["familyid"] = c.family_id;
        }
        if (c.model_id >= 0) {
            o["modelid"] = c.model_id;
        }
        cpus.push_back(std::move(o));
    }
    j["cpus"] = std::move(cpus);

    json sws = json::array();
    for (const auto& s : t.pcie_switches) {
        json o = {{"name", s.name}};
        if (!s.parent.empty()) {
            o["parent"] = s.parent;
        }
        put_pcie(o, s.link);
        sws.push_back(std::move(o));
    }
    j["pcie_switches"] = std::move(sws);

    json gpus = json::array();
    for (const auto& g : t.gpus) {
        json o = {{"name", g.name}, {"numa", g.numa}};
        if (!g.model.empty()) {
            o["model"] = g.model;
        }
        if (!g.bus_id.empty()) {
            o["bus_id"] = g.bus_id;
        }
        if (!g.parent.empty()) {
            o["parent"] = g.parent;
        }
        if (g.nvswitch_links != 0) {
            o["nvswitch_links"] = g.nvswitch_links;
        }
        put_pcie(o, g.pcie);
        gpus.push_back(std::move(o));
    }
    j["gpus"] = std::move(gpus);

    json nics = json::array();
    for (const auto& n : t.nics) {
        json o = {{"name", n.name},
                  {"numa", n.numa},
                  {"rdma", n.rdma},
                  {"role", n.role},
                  {"speed_gbit_s", n.speed_gbit_s}};
        if (!n.device.empty()) {
            o["device"] = n.device;
        }
        if (!n.bus_id.empty()) {
            o["bus_id"] = n.bus_id;
        }
        if (!n.parent.empty()) {
            o["parent"] = n.parent;
        }
        if (!n.link_layer.empty()) {
            o["link_layer"] = n.link_layer;
        }
        if (n.port != 1) {
            o["port"] = n.port;
        }
        if (!n.netdev.empty()) {
            o["netdev"] = n.netdev;
        }
        put_pcie(o, n.pcie);
        nics.push_back(std::move(o));
    }
    j["nics"] = std::move(nics);

    json tcp = json::array();
    for (const auto& i : t.tcp) {
        json o = {{"name", i.name}, {"numa", i.numa}, {"speed_gbit_s", i.speed_gbit_s}};
        tcp.push_back(std::move(o));
    }
    j["tcp"] = std::move(tcp);

    json pj = json::array();
    if (with_paths) {
        for (const auto& p : sorted_paths(t)) {
            pj.push_back(path_json(p));
        }
    }
    j["paths"] = std::move(pj);
    if (t.gdr_level != PathClass::Pxb) {
        j["gdr_level"] = std::string(to_string(t.gdr_level));
    }
    j["warnings"] = t.warnings;
    return j;
}

}  // namespace

nlohmann::json to_json(const NodeTemplate& t) { return template_json(t, true); }

void write_json(const NodeTemplate& t, const nlohmann::json& extra, std::ostream& out) {
    json j = template_json(t, false);
    for (const auto& [key, value] : extra.items()) {
        j[key] = value;
    }
    const std::string text = j.dump(2);
    const std::string empty = "\n  \"paths\": []";
    const std::size_t at = text.find(empty);
    if (at == std::string::npos || t.paths.empty()) {
        out << text << '\n';
        return;
    }
    out.write(text.data(), static_cast<std::streamsize>(at));
    out << "\n  \"paths\": [";
    // Each pair as dump(2) writes it one level deeper, by hand: a DOM and a dump per pair took
    // most of the time of a 1,024-device import.
    auto quoted = [](const std::string& s) {
        const bool plain = std::all_of(s.begin(), s.end(), [](char ch) {
            return ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\';
        });
        return plain ? '"' + s + '"' : json(s).dump();
    };
    std::string item;
    bool first = true;
    for (const auto& r : sorted_paths(t)) {
        const DevicePath& p = *r.p;
        item.assign(first ? "\n    {\n      \"a\": " : ",\n    {\n      \"a\": ");
        first = false;
        item += quoted(r.first());
        item += ",\n      \"b\": ";
        item += quoted(r.second());
        item += ",\n      \"class\": \"";
        item += to_string(p.path_class);
        item += '"';
        if (p.nvlinks != 0) {
            item += ",\n      \"nvlinks\": ";
            item += std::to_string(p.nvlinks);
        }
        item += "\n    }";
        out.write(item.data(), static_cast<std::streamsize>(item.size()));
    }
    out << "\n  ]";
    out.write(text.data() + at + empty.size(), static_cast<std::streamsize>(text.size() - at - empty.size()));
    out << '\n';
}

}  // namespace planlayout
