// Ingest: NCCL topology XML → NodeTemplate (docs/formats/captures.md), via boost::property_tree.
// Over 500 lines: one format's walk: TopoXmlReader descends NCCL's nested <cpu>, <pci>, <gpu> and
// <net> elements once, with the counts and structure checks that refuse a hostile file next to the
// elements they guard.
#include "planlayout/ingest/nccl_topo_xml.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include "ingest_util.hpp"
#include "planlayout/error.hpp"
#include "planlayout/names.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout {
namespace {

constexpr long kMaxLinkWidth = 32;  // PCIe links are x1 to x32
// NCCL writes gdr="0" on a <gpu> or <net> that cannot do GPUDirect RDMA (no peermem/DMA-BUF, or
// a GPU without it): the node's RDMA arm is then host-staged.
const char* const kNoGdr = "NCCL found no GPUDirect RDMA (gdr=\"0\"): gdr_level LOC, the RDMA arm is host-staged";

using boost::property_tree::ptree;
using ingest_detail::normalize_bus_id;
using ingest_detail::trim;

std::string xml_attr(const ptree& node, const char* name) {
    const auto a = node.get_child_optional("<xmlattr>");
    if (!a) {
        return {};
    }
    return trim(a->get<std::string>(name, ""));
}

bool has_attr(const ptree& node, const char* name) {
    const auto a = node.get_child_optional("<xmlattr>");
    return a && a->get_child_optional(name).has_value();
}

/// Warnings grouped by kind, in first-seen order: "<text> (a, b, c)".
class Notes {
public:
    void add(const std::string& kind, const std::string& item) {
        for (auto& g : groups_) {
            if (g.first == kind) {
                g.second.push_back(item);
                return;
            }
        }
        groups_.push_back({kind, {item}});
    }

    void flush(std::vector<std::string>& out) const {
        for (const auto& g : groups_) {
            std::string items;
            for (std::size_t i = 0; i < g.second.size() && i < 4; ++i) {
                items += (i ? ", " : "") + g.second[i];
            }
            if (g.second.size() > 4) {
                items += ", ... " + std::to_string(g.second.size()) + " in all";
            }
            out.push_back(g.first + " (" + items + ")");
        }
    }

private:
    std::vector<std::pair<std::string, std::vector<std::string>>> groups_;
};

struct RawGpu {
    Gpu gpu;
    long dev = -1;
    int sm = 0;
    std::vector<std::pair<std::string, int>> nvlinks;  // target bus id → count
    std::vector<std::string> nvlink_classes;
};

struct RawNic {
    Nic nic;
    long dev = -1;
};

struct TopoXmlReader {
    std::string where;
    NodeTemplate t;
    Notes notes;
    std::vector<RawGpu> gpus;
    std::vector<RawNic> nics;
    std::map<std::string, std::string> switch_ids;  // switch name → "vendor:device"
    std::map<std::string, int> unknown_elements;

    PcieLink link_of(const ptree& pci, const std::string& busid) {
        PcieLink l;
        const std::string speed = xml_attr(pci, "link_speed");
        const std::string width = xml_attr(pci, "link_width");
        static const std::vector<std::pair<std::string, int>> kGens = {
            {"2.5", 1}, {"5", 2}, {"8", 3}, {"16", 4}, {"32", 5}, {"64", 6}};
        const std::string num = speed.substr(0, speed.find(' '));
        for (const auto& [s, g] : kGens) {
            if (num == s || num == s + ".0") {
                l.gen = g;
            }
        }
        if (l.gen == 0) {
            l.gen = 3;
            notes.add("link_speed empty or unknown; assumed 8 GT/s (Gen3) as NCCL does",
                      busid + (speed.empty() ? "" : " '" + speed + "'"));
        } else if (speed != num + " GT/s" && speed != num + " GT/s PCIe") {
            notes.add("non-standard link_speed read by its prefix", busid + " '" + speed + "'");
        }
        const long w = ingest_detail::parse_uint(width);
        if (width.empty() || w == 0) {
            l.width = 16;
            notes.add("link_width 0 or empty; assumed x16 as NCCL does", busid);
        } else if (w < 0 || w > kMaxLinkWidth) {
            l.width = 16;
            notes.add("link_width is not a PCIe lane count (1 to 32); assumed x16", busid + " '" + width + "'");
        } else {
            l.width = static_cast<int>(w);
        }
        static const int kLaneCode[] = {0, 15, 30, 60, 120, 240, 480};  // 100 Mb/s per lane
        l.gbyte_s = l.width * kLaneCode[static_cast<int>(l.gen)] / 80.0;
        return l;
    }

    void note_unknown(const std::string& name) {
        if (name != "<xmlattr>" && name != "<xmlcomment>" && name != "<xmltext>") {
            ++unknown_elements[name];
        }
    }

    void read_nic(const ptree& nic, const std::string& parent, const std::string& busid,
                  const std::string& cls, const PcieLink& link, int numa,
                  const std::string& path) {
        int k = 0;
        for (const auto& [name, net] : nic) {
            if (name != "net") {
                note_unknown(name);
                continue;
            }
            ++k;
            RawNic r;
            r.nic.parent = parent;
            if (!busid.empty()) {  // a <nic> straight under <cpu> has no PCI place
                require_bus_id(busid, where + " (" + path + ")", "<pci> busid");
            }
            r.nic.bus_id = busid;
            r.nic.numa = numa;
            r.nic.pcie = link;
            r.nic.device = xml_attr(net, "name");
            r.dev = has_attr(net, "dev") ? ingest_detail::parse_uint(xml_attr(net, "dev")) : -1;
            if (r.dev < 0) {
                notes.add("<net> without dev: NCCL skips it; kept here", path + "/net");
            }
            const long port = ingest_detail::parse_uint(xml_attr(net, "port"));
            r.nic.port = port >= 0 ? static_cast<int>(port) : 1;
            const std::string speed = xml_attr(net, "speed");
            const long mbps = ingest_detail::parse_uint(speed);
            if (mbps <= 0) {
                r.nic.speed_gbit_s = 10;
                notes.add("<net> speed missing or <= 0; assumed 10 Gb/s as NCCL does",
                          r.nic.device);
            } else {
                r.nic.speed_gbit_s = static_cast<double>(mbps) / 1000.0;
            }
            const std::string& dn = r.nic.device;
            const bool netdev = dn.rfind("eth", 0) == 0 || dn.rfind("en", 0) == 0 ||
                                dn.rfind("ib", 0) == 0 || dn.rfind("bond", 0) == 0;
            if (netdev) {
                r.nic.rdma = false;
                r.nic.netdev = dn;
                r.nic.link_layer = "Ethernet";
                t.tcp.push_back({dn, r.nic.speed_gbit_s, numa});
            } else if (cls.rfind("0x0207", 0) == 0) {
                r.nic.link_layer = "IB";
            } else if (cls.rfind("0x0200", 0) == 0 && dn.rfind("mlx", 0) == 0) {
                r.nic.link_layer = "RoCE";
            }
            if (!netdev && xml_attr(net, "gdr") == "0") {
                t.gdr_level = PathClass::Loc;
                notes.add(kNoGdr, dn);
            }
            nics.push_back(r);
        }
        if (k == 0) {
            notes.add("<nic> without <net>: the NIC is ignored", path);
        }
    }

    void read_pci(const ptree& pci, const std::string& parent, int numa, const std::string& path) {
        const std::string busid = normalize_bus_id(xml_attr(pci, "busid"));
        const std::string cls = ascii_lower(xml_attr(pci, "class"));
        const std::string id = ascii_lower(xml_attr(pci, "vendor")) + ":" + ascii_lower(xml_attr(pci, "device"));
        if (busid.empty()) {
            throw input_error(where + " (" + path + ")", "<pci> without busid",
                              "give every <pci> a busid=\"dddd:bb:dd.f\"");
        }
        if (busid.rfind("ffff:ff:", 0) == 0) {
            notes.add("placeholder bus ids: hand-written stand-in bridges", busid);
        }
        const bool has_gpu = pci.get_child_optional("gpu").has_value();
        const bool has_nic = pci.get_child_optional("nic").has_value();
        const bool has_pci = pci.get_child_optional("pci").has_value();
        enum class Kind { Switch, Gpu, Nic, NvSwitch, Ignore } kind = Kind::Switch;
        if (cls.empty()) {
            kind = has_gpu ? Kind::Gpu : has_nic ? Kind::Nic : has_pci ? Kind::Switch : Kind::Ignore;
            notes.add(kind == Kind::Ignore
                          ? "<pci> without class and without children: NCCL treats it as a "
                            "switch with nothing below; ignored"
                          : "<pci> without class: kind guessed from its children",
                      busid);
        } else if (cls.rfind("0x0604", 0) == 0 || cls.rfind("0x080100", 0) == 0) {
            kind = Kind::Switch;
        } else if (cls.rfind("0x0680", 0) == 0) {
            kind = Kind::NvSwitch;
        } else if (cls.rfind("0x03", 0) == 0) {
            kind = Kind::Gpu;
        } else if (cls.rfind("0x02", 0) == 0) {
            kind = Kind::Nic;
        } else if (!has_pci) {
            kind = Kind::Ignore;
            notes.add("<pci> of an unknown class with nothing below; ignored", busid + " " + cls);
        }
        if (kind == Kind::Ignore || kind == Kind::NvSwitch) {
            return;
        }
        const PcieLink link = link_of(pci, busid);
        if (kind == Kind::Switch) {
            // NCCL flattens Broadcom PEX Gen4/Gen5 two-level switches into one level.
            const bool broadcom = id == "0x1000:0xc010" || id == "0x1000:0xc030";
            std::string self = parent;
            const auto up = switch_ids.find(parent);
            if (!(broadcom && up != switch_ids.end() && up->second == id)) {
                self = "SW" + std::to_string(t.pcie_switches.size());
                t.pcie_switches.push_back({self, parent, link});
                switch_ids[self] = id;
            }
            int n = 0;
            for (const auto& [name, child] : pci) {
                if (name == "pci") {
                    read_pci(child, self, numa, path + "/pci[" + std::to_string(++n) + "]");
                } else if (name != "pcilink") {
                    note_unknown(name);
                }
            }
            return;
        }
        if (kind == Kind::Gpu) {
            RawGpu r;
            // GPU and NIC bus ids are written back into NCCL topology XML (--format nccl-topo): only
            // the real form (switches get the writer's own ids, so theirs are not checked).
            require_bus_id(busid, where + " (" + path + ")", "<pci> busid");
            r.gpu.bus_id = busid;
            r.gpu.parent = parent;
            r.gpu.numa = numa;
            r.gpu.pcie = link;
            const long device = std::strtol(xml_attr(pci, "device").c_str(), nullptr, 16);
            r.gpu.model = ingest_detail::nvidia_model(static_cast<unsigned>(device));
            const auto g = pci.get_child_optional("gpu");
            if (!g) {
                notes.add("GPU <pci> without <gpu>: index, sm and NVLink unknown", busid);
            } else {
                r.dev = ingest_detail::parse_uint(xml_attr(*g, "dev"));
                r.sm = static_cast<int>(ingest_detail::parse_uint(xml_attr(*g, "sm")));
                if (xml_attr(*g, "gdr") == "0") {
                    t.gdr_level = PathClass::Loc;
                    notes.add(kNoGdr, busid);
                }
                if (!has_attr(*g, "rank")) {
                    notes.add("<gpu> without rank: NCCL ignores it when it builds the system; "
                              "kept here", busid);
                }
                if (r.sm <= 0) {
                    notes.add("<gpu> without sm: NVLink bandwidth per link unknown", busid);
                }
                for (const auto& [name, nv] : *g) {
                    if (name == "nvlink") {
                        const long count = ingest_detail::parse_uint(xml_attr(nv, "count"));
                        r.nvlinks.emplace_back(normalize_bus_id(xml_attr(nv, "target")),
                                               count > 0 ? static_cast<int>(count) : 1);
                        r.nvlink_classes.push_back(ascii_lower(xml_attr(nv, "tclass")));
                    } else if (name != "c2c") {
                        note_unknown(name);
                    }
                }
            }
            gpus.push_back(r);
            return;
        }
        // NIC
        if (const auto nic = pci.get_child_optional("nic")) {
            read_nic(*nic, parent, busid, cls, link, numa, path + "/nic");
        } else {
            RawNic r;
            r.nic.parent = parent;
            require_bus_id(busid, where + " (" + path + ")", "<pci> busid");
            r.nic.bus_id = busid;
            r.nic.numa = numa;
            r.nic.pcie = link;
            if (cls.rfind("0x0207", 0) == 0) {
                r.nic.link_layer = "IB";
            }
            notes.add("NIC <pci> without <nic>/<net>: device name and speed unknown", busid);
            nics.push_back(r);
        }
    }
};

double nvlink_gbyte_s_for_sm(int sm) {
    if (sm >= 100) {
        return 40.1;
    }
    if (sm >= 90) {
        return 20.6;
    }
    if (sm == 86 || sm == 89) {
        return 12;
    }
    if (sm >= 70) {
        return 20;
    }
    if (sm >= 60) {
        return 18;
    }
    return 0;
}

}  // namespace

namespace {

// The XML parsed; an error names the line.
ptree parse_xml(const std::string& text, const std::string& where) {
    ptree doc;
    try {
        std::istringstream in(text);
        boost::property_tree::read_xml(in, doc, boost::property_tree::xml_parser::no_concat_text);
    } catch (const boost::property_tree::xml_parser_error& e) {
        throw input_error(where + ":" + std::to_string(e.line()),
                          "malformed XML: " + e.message(),
                          "fix the XML there (is the file truncated or not XML?)");
    }
    return doc;
}

// The <system version="1"> element; a graph file, hwloc XML or another version is refused.
const ptree& system_of(const ptree& doc, const std::string& where) {
    const ptree* system = nullptr;
    for (const auto& [name, node] : doc) {
        if (name == "system") {
            system = &node;
        } else if (name == "graphs") {
            throw input_error(where, "this is an NCCL graph file (<graphs>, NCCL_GRAPH_FILE), "
                                     "not a topology file",
                              "pass the NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE XML (<system>)");
        } else if (name == "topology") {
            throw input_error(where, "this is hwloc XML (<topology>), not NCCL topology XML",
                              "use 'plan-layout import hwloc' for it");
        }
    }
    if (system == nullptr) {
        throw input_error(where, "no <system> element", "an NCCL topology XML starts with "
                                                        "<system version=\"1\">");
    }
    const std::string version = xml_attr(*system, "version");
    if (version != "1") {
        throw input_error(where + " (/system)",
                          "version \"" + version + "\" is not supported (NCCL reads version 1)",
                          "set <system version=\"1\">");
    }
    return *system;
}

}  // namespace

NodeTemplate read_nccl_topo_xml(const std::string& text, const std::string& where) {
    ingest_detail::require_utf8(text, where);
    ingest_detail::require_xml_depth(text, where);
    // Counted before the parse: a 100,000-GPU file would otherwise build a property tree of
    // gigabytes and then millions of device pairs.
    ingest_detail::require_node_size(ingest_detail::count_xml_elements(text, "gpu"),
                                     ingest_detail::count_xml_elements(text, "net"), where);
    const ptree doc = parse_xml(text, where);
    const ptree& system = system_of(doc, where);
    TopoXmlReader r;
    r.where = where;
    r.t.source = where;
    int cpu_index = 0;
    for (const auto& [name, cpu] : system) {
        if (name != "cpu") {
            r.note_unknown(name);
            continue;
        }
        const std::string path = "/system/cpu[" + std::to_string(cpu_index + 1) + "]";
        Cpu c;
        c.name = "CPU" + std::to_string(cpu_index++);
        const std::string numaid = xml_attr(cpu, "numaid");
        const long numa = numaid == "-1" ? -1 : ingest_detail::parse_uint(numaid);
        if (!numaid.empty() && numaid != "-1" && numa < 0) {
            throw input_error(where + " (" + path + ")", "numaid \"" + numaid + "\" is not a number",
                              "use the Linux NUMA node id, or -1 when unknown");
        }
        c.numa = static_cast<int>(numa);
        c.cpuset = ingest_detail::cpulist_from_mask(xml_attr(cpu, "affinity"));
        c.arch = ingest_detail::cpu_id_text(xml_attr(cpu, "arch"), where + " (" + path + ")", "arch");
        c.vendor = ingest_detail::cpu_id_text(xml_attr(cpu, "vendor"), where + " (" + path + ")", "vendor");
        for (auto [key, field] : {std::pair{"familyid", &c.family_id}, std::pair{"modelid", &c.model_id}}) {
            const long v = ingest_detail::parse_uint(xml_attr(cpu, key));  // NCCL writes them in decimal
            *field = v >= 0 && v <= 0xffff ? static_cast<int>(v) : -1;
        }
        r.t.cpus.push_back(c);
        int n = 0;
        int k = 0;
        for (const auto& [child_name, child] : cpu) {
            if (child_name == "pci") {
                r.read_pci(child, c.name, c.numa, path + "/pci[" + std::to_string(++n) + "]");
            } else if (child_name == "nic") {
                r.read_nic(child, c.name, "", "", PcieLink{}, c.numa,
                           path + "/nic[" + std::to_string(++k) + "]");
            } else {
                r.note_unknown(child_name);
            }
        }
    }

    // GPU <pci> without <gpu> and NIC <pci> without <net> escape the count above.
    ingest_detail::require_node_size(r.gpus.size(), r.nics.size(), where);
    // GPUs and NICs in NCCL device order (dev), then document order.
    std::stable_sort(r.gpus.begin(), r.gpus.end(), [](const RawGpu& a, const RawGpu& b) {
        return (a.dev < 0 ? 1L << 30 : a.dev) < (b.dev < 0 ? 1L << 30 : b.dev);
    });
    std::stable_sort(r.nics.begin(), r.nics.end(), [](const RawNic& a, const RawNic& b) {
        return (a.dev < 0 ? 1L << 30 : a.dev) < (b.dev < 0 ? 1L << 30 : b.dev);
    });
    std::map<std::string, std::string> gpu_by_bus;
    for (std::size_t i = 0; i < r.gpus.size(); ++i) {
        r.gpus[i].gpu.name = "GPU" + std::to_string(i);
        gpu_by_bus[r.gpus[i].gpu.bus_id] = r.gpus[i].gpu.name;
    }
    std::map<std::pair<std::string, std::string>, int> direct;  // GPU pair → NVLink count
    int max_links = 0;
    int sm = 0;
    for (auto& g : r.gpus) {
        int total = 0;
        int to_switch = 0;
        for (std::size_t k = 0; k < g.nvlinks.size(); ++k) {
            const auto& [target, count] = g.nvlinks[k];
            total += count;
            const std::string& tclass = g.nvlink_classes[k];
            if (tclass.rfind("0x0680", 0) == 0 || target.rfind("fffffff", 0) == 0) {
                to_switch += count;
            } else if (target == g.gpu.bus_id) {
                r.notes.add("NVLink target is the GPU itself: peer unknown", g.gpu.name);
            } else if (const auto it = gpu_by_bus.find(target); it != gpu_by_bus.end()) {
                auto key = std::minmax(g.gpu.name, it->second);
                direct[{key.first, key.second}] =
                    std::max(direct[{key.first, key.second}], count);
            } else {
                r.notes.add("NVLink target is not a GPU of this file", g.gpu.name + " → " + target);
            }
        }
        g.gpu.nvswitch_links = to_switch;
        max_links = std::max(max_links, total);
        sm = std::max(sm, g.sm);
    }
    for (auto& g : r.gpus) {
        r.t.gpus.push_back(g.gpu);
        if (g.gpu.nvswitch_links > 0) {
            r.t.nvlink.nvswitch = true;
        }
    }
    for (std::size_t i = 0; i < r.nics.size(); ++i) {
        r.nics[i].nic.name = "NIC" + std::to_string(i);
        r.t.nics.push_back(r.nics[i].nic);
    }
    r.t.nvlink.links_per_gpu = max_links;
    r.t.nvlink.gbyte_s_per_link = max_links > 0 ? nvlink_gbyte_s_for_sm(sm) : 0;
    if (!r.t.gpus.empty()) {
        const std::string m = r.t.gpus.front().model;
        if (std::all_of(r.t.gpus.begin(), r.t.gpus.end(),
                        [&](const Gpu& g) { return g.model == m; })) {
            r.t.gpu_model = m;
        }
    }
    for (const auto& [pair, count] : direct) {
        r.t.paths.push_back({pair.first, pair.second, PathClass::Nv, count});
    }
    if (r.t.gpus.empty()) {
        r.t.warnings.emplace_back("no GPUs in this file (a seed that lists only PCI ids?)");
    } else if (max_links == 0) {
        r.t.warnings.emplace_back("no <nvlink> elements: NVLink unknown, GPU pairs classed by PCIe "
                               "only");
    }
    r.notes.flush(r.t.warnings);
    for (const auto& [name, count] : r.unknown_elements) {
        r.t.warnings.push_back("unknown element <" + name + "> ignored (" + std::to_string(count) +
                               "x)");
    }
    derive_paths(r.t);
    require_template_names(r.t, r.where);
    return r.t;
}

}  // namespace planlayout
