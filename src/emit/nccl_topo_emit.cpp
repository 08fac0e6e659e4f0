// Emit: NCCL topology XML for one node of a plan (see the header).
#include "planlayout/emit/nccl_topo_emit.hpp"

#include "planlayout/error.hpp"
#include "planlayout/names.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace planlayout {
namespace {

// "0-55,112-167" → NCCL's affinity: 32-bit hex words, most significant first, comma-separated
// ("000000ff,ffff0000,00ffffff"), as /sys/devices/system/node/nodeN/cpumap spells it. "" when the
// list is empty or not a cpulist.
std::string affinity_mask(const std::string& cpulist) {
    std::vector<bool> cpus;
    std::istringstream in(cpulist);
    std::string part;
    while (std::getline(in, part, ',')) {
        const auto dash = part.find('-');
        try {
            const unsigned long lo = std::stoul(part.substr(0, dash));
            const unsigned long hi = dash == std::string::npos ? lo : std::stoul(part.substr(dash + 1));
            if (hi < lo || hi > 65535) {
                return {};
            }
            if (cpus.size() <= hi) {
                cpus.resize(hi + 1);
            }
            for (unsigned long c = lo; c <= hi; ++c) {
                cpus[c] = true;
            }
        } catch (const std::exception&) {
            return {};
        }
    }
    if (cpus.empty()) {
        return {};
    }
    const std::size_t words = (cpus.size() + 31) / 32;
    std::string out;
    for (std::size_t w = words; w-- > 0;) {
        unsigned long v = 0;
        for (std::size_t b = 0; b < 32; ++b) {
            if (w * 32 + b < cpus.size() && cpus[w * 32 + b]) {
                v |= 1UL << b;
            }
        }
        char buf[16];
        std::snprintf(buf, sizeof buf, "%08lx", v);
        out += (out.empty() ? "" : ",") + std::string(buf);
    }
    return out;
}

// PCIe generation → the link_speed text Linux gives (max_link_speed), as NCCL copies it.
std::string link_speed(double gen) {
    static const char* const kSpeed[] = {"", "2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe",
                                         "16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe"};
    const int g = static_cast<int>(gen);
    return g >= 1 && g <= 6 && static_cast<double>(g) == gen ? kSpeed[g] : "";
}

std::string link_attrs(const PcieLink& l) {
    std::string s;
    if (const std::string speed = link_speed(l.gen); !speed.empty()) {
        s += " link_speed=\"" + speed + "\"";
    }
    if (l.width > 0) {
        s += " link_width=\"" + std::to_string(l.width) + "\"";
    }
    return s;
}

std::string hex_id(const char* format, unsigned a, unsigned b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, format, a, b);
    return buf;
}

// Every attribute value goes through attr() (xml_attribute, names.hpp) and every comment through
// xml_comment, so no name of a template can add an attribute or element or end a comment.
std::string attr(const char* name, std::string_view value) {
    return std::string(" ") + name + "=\"" + xml_attribute(value) + "\"";
}

class Writer {
public:
    Writer(const NodeTemplate& t, std::map<std::size_t, std::int64_t> ranks) : t_(t), ranks_(std::move(ranks)) {
        for (std::size_t i = 0; i < t.gpus.size(); ++i) {
            gpu_bus_.push_back(t.gpus[i].bus_id.empty() ? placeholder(0x0001, i) : t.gpus[i].bus_id);
        }
        for (std::size_t i = 0; i < t.nics.size(); ++i) {
            nic_bus_.push_back(t.nics[i].bus_id.empty() ? placeholder(0x0101, i) : t.nics[i].bus_id);
        }
        for (std::size_t i = 0; i < t.pcie_switches.size(); ++i) {
            // NCCL's own name for a switch it cannot see (xml.cc; the AWS and Azure files): ffff:ff:DD.0
            switch_bus_[t.pcie_switches[i].name] =
                hex_id("ffff:%02x:%02x.0", 0xffU - static_cast<unsigned>(i / 32), static_cast<unsigned>(i % 32) + 1);
        }
    }

    [[nodiscard]] bool placeholders() const { return placeholders_; }

    std::string system() {
        std::string out = "<system version=\"1\">\n";
        for (std::size_t c = 0; c < t_.cpus.size(); ++c) {
            const Cpu& cpu = t_.cpus[c];
            out += "  <cpu numaid=\"" + std::to_string(cpu.numa) + "\"";
            if (const std::string mask = affinity_mask(cpu.cpuset); !mask.empty()) {
                out += " affinity=\"" + mask + "\"";
            }
            out += ">\n" + children(cpu.name, c == 0, "    ") + "  </cpu>\n";
        }
        return out + "</system>\n";
    }

private:
    std::string placeholder(unsigned base, std::size_t i) {
        placeholders_ = true;
        // The Azure NDv5 file's scheme: GPU i at 000i:00:00.0, NIC i at 010i:00:00.0.
        return hex_id("%04x:%02x:00.0", base + static_cast<unsigned>(i), 0);
    }

    // A device hangs off `parent`; one with no known parent goes to the first CPU of its NUMA
    // node, else the first CPU.
    [[nodiscard]] bool under(const std::string& device_parent, int numa, const std::string& parent, bool first_cpu) const {
        if (!device_parent.empty()) {
            bool known = switch_bus_.count(device_parent) > 0;
            for (const auto& c : t_.cpus) {
                known = known || c.name == device_parent;
            }
            if (known) {
                return device_parent == parent;
            }
        }
        for (const auto& c : t_.cpus) {
            if (numa >= 0 && c.numa == numa) {
                return c.name == parent;
            }
        }
        return first_cpu;
    }

    std::string children(const std::string& parent, bool first_cpu, const std::string& indent) {
        std::string out;
        for (const auto& s : t_.pcie_switches) {
            if (s.parent == parent) {
                out += indent + "<pci" + attr("busid", switch_bus_.at(s.name)) + " class=\"0x060400\"" + link_attrs(s.link) +
                       ">\n" + children(s.name, false, indent + "  ") + indent + "</pci>\n";
            }
        }
        for (std::size_t i = 0; i < t_.gpus.size(); ++i) {
            const Gpu& g = t_.gpus[i];
            if (!under(g.parent, g.numa, parent, first_cpu)) {
                continue;
            }
            out += indent + "<pci" + attr("busid", gpu_bus_[i]) + " class=\"0x030200\" vendor=\"0x10de\"" + link_attrs(g.pcie) + ">\n";
            out += indent + "  <gpu dev=\"" + std::to_string(i) + "\"";
            if (const auto r = ranks_.find(i); r != ranks_.end()) {
                out += " rank=\"" + std::to_string(r->second) + "\"";
            }
            out += std::string(" gdr=\"") + (t_.gdr_level == PathClass::Loc ? "0" : "1") + "\">\n";
            const int to_switch = g.nvswitch_links > 0 ? g.nvswitch_links : (t_.nvlink.nvswitch ? t_.nvlink.links_per_gpu : 0);
            if (to_switch > 0) {
                // NVSwitch: NCCL joins every link of class 0x068000 to one NVS node (topo.cc).
                out += indent + "    <nvlink target=\"ffff:ff:00.0\" count=\"" + std::to_string(to_switch) +
                       "\" tclass=\"0x068000\"/>\n";
            }
            for (const auto& p : t_.paths) {
                if (p.path_class != PathClass::Nv || (p.a != g.name && p.b != g.name)) {
                    continue;
                }
                const std::string& peer = p.a == g.name ? p.b : p.a;
                for (std::size_t k = 0; k < t_.gpus.size(); ++k) {
                    if (t_.gpus[k].name == peer && to_switch == 0) {
                        out += indent + "    <nvlink" + attr("target", gpu_bus_[k]) + " count=\"" +
                               std::to_string(p.nvlinks > 0 ? p.nvlinks : 1) + "\" tclass=\"0x030200\"/>\n";
                    }
                }
            }
            out += indent + "  </gpu>\n" + indent + "</pci>\n";
        }
        for (std::size_t i = 0; i < t_.nics.size(); ++i) {
            const Nic& n = t_.nics[i];
            if (!n.rdma || !under(n.parent, n.numa, parent, first_cpu)) {
                continue;  // NCCL's socket interfaces are not PCI NICs of the tree
            }
            const std::string cls = n.link_layer == "IB" ? "0x020700" : "0x020000";
            const std::string pci = indent + "<pci" + attr("busid", nic_bus_[i]) + " class=\"" + cls + "\"" + link_attrs(n.pcie);
            if (n.device.empty()) {
                out += pci + "/>\n";  // a NIC known by its PCI place only (as NCCL seeds list them): no <net>
                continue;
            }
            out += pci + ">\n";
            out += indent + "  <nic>\n" + indent + "    <net" + attr("name", n.device) + " dev=\"" +
                   std::to_string(net_dev(i)) + "\"";
            if (n.speed_gbit_s > 0) {
                out += " speed=\"" + std::to_string(std::llround(n.speed_gbit_s * 1000.0)) + "\"";
            }
            out += " port=\"" + std::to_string(n.port) + "\" gdr=\"" + (t_.gdr_level == PathClass::Loc ? "0" : "1") + "\"/>\n";
            out += indent + "  </nic>\n" + indent + "</pci>\n";
        }
        return out;
    }

    // NCCL's net index: the NIC's place among the template's RDMA NICs (the reader sorts by it).
    [[nodiscard]] int net_dev(std::size_t nic) const {
        int d = 0;
        for (std::size_t k = 0; k < nic; ++k) {
            d += t_.nics[k].rdma ? 1 : 0;
        }
        return d;
    }

    const NodeTemplate& t_;
    std::map<std::size_t, std::int64_t> ranks_;
    std::vector<std::string> gpu_bus_;
    std::vector<std::string> nic_bus_;
    std::map<std::string, std::string> switch_bus_;
    bool placeholders_ = false;
};

}  // namespace

std::string nccl_topo_xml(const Report& r, const std::string& host) {
    std::int32_t node = -1;
    std::string hosts;
    for (std::int64_t rank = 0; rank < r.placement.world() && node < 0; ++rank) {
        const std::int32_t n = r.placement.node[static_cast<std::size_t>(rank)];
        if (host.empty() || r.cluster.nodes[static_cast<std::size_t>(n)].host == host) {
            node = n;
        }
    }
    if (node < 0) {
        for (std::size_t i = 0; i < r.cluster.nodes.size() && i < 4; ++i) {
            hosts += (i ? ", " : "") + printable(r.cluster.nodes[i].host);
        }
        throw input_error("--host " + printable(host), "the job runs on no node of that name",
                          "give one of its hosts (" + hosts + (r.cluster.nodes.size() > 4 ? ", ..." : "") + ")");
    }
    std::map<std::size_t, std::int64_t> ranks;
    for (std::int64_t rank = 0; rank < r.placement.world(); ++rank) {
        if (r.placement.node[static_cast<std::size_t>(rank)] == node) {
            ranks[static_cast<std::size_t>(r.placement.gpu[static_cast<std::size_t>(rank)])] = rank;
        }
    }
    const NodeTemplate& t = r.cluster.template_of(node);
    Writer w(t, ranks);
    const std::string body = w.system();
    std::string out = xml_comment("NCCL topology of " + r.cluster.nodes[static_cast<std::size_t>(node)].host + " (" +
                                  r.layout_name + ", node template " + t.name +
                                  "), written by plan-layout analyze, format nccl-topo.\n"
                                  "     Use: NCCL_TOPO_FILE=this-file on that node. Left out, so NCCL reads them from the machine:\n"
                                  "     CPU arch/vendor/model, PCI vendor/device ids, what the template does not know.") +
                      "\n";
    if (w.placeholders()) {
        out += xml_comment("The template has no PCI bus ids: GPU i is written at 000i:00:00.0 and NIC i at 010i:00:00.0\n"
                           "     (placeholders). NCCL matches devices by bus id: replace each with the real one\n"
                           "     (nvidia-smi -q -d PCI, or lspci -D; readlink /sys/class/infiniband/DEVICE/device).") +
               "\n";
    }
    return out + body;
}

}  // namespace planlayout
