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

// A link's attributes. NCCL reads link_speed and link_width of every <pci> it keeps (topo.cc,
// ncclTopoAddPci) but fills them from sysfs only along the path of the process's own GPU, so a
// switch or NIC elsewhere needs them written: `always` writes NCCL's own "unknown" ("" and 0,
// taken as Gen3 x16) where the template has none. A GPU's are left out when unknown: NCCL reads
// them from the machine for the GPU it runs on, and trims the others.
std::string link_attrs(const PcieLink& l, bool always) {
    std::string s;
    if (const std::string speed = link_speed(l.gen); !speed.empty() || always) {
        s += " link_speed=\"" + speed + "\"";
    }
    if (l.width > 0 || always) {
        s += " link_width=\"" + std::to_string(l.width) + "\"";
    }
    return s;
}

std::string hex_id(const char* format, unsigned a, unsigned b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, format, a, b);
    return buf;
}

// Every attribute value goes through xml_attr_text() (xml_attribute, names.hpp) and every comment through
// xml_comment, so no name of a template can add an attribute or element or end a comment.
std::string xml_attr_text(const char* name, std::string_view value) {
    return std::string(" ") + name + "=\"" + xml_attribute(value) + "\"";
}

// NCCL's ncclTopoAddCpu needs arch; on x86_64 vendor; for Intel and Zhaoxin familyid and modelid.
bool cpu_ids_complete(const Cpu& c) {
    if (c.arch.empty()) {
        return false;
    }
    if (c.arch != "x86_64") {
        return true;
    }
    const bool model_needed = c.vendor == "GenuineIntel" || c.vendor == "CentaurHauls" || c.vendor == "  Shanghai  ";
    return !c.vendor.empty() && (!model_needed || (c.family_id >= 0 && c.model_id >= 0));
}

std::string cpu_attrs(const Cpu& c) {
    std::string s = " numaid=\"" + std::to_string(c.numa) + "\"";
    if (const std::string mask = affinity_mask(c.cpuset); !mask.empty()) {
        s += " affinity=\"" + mask + "\"";
    }
    if (!c.arch.empty()) {
        s += xml_attr_text("arch", c.arch);
    }
    if (!c.vendor.empty()) {
        s += xml_attr_text("vendor", c.vendor);
    }
    if (c.family_id >= 0 && c.model_id >= 0) {
        s += " familyid=\"" + std::to_string(c.family_id) + "\" modelid=\"" + std::to_string(c.model_id) + "\"";
    }
    return s;
}

// The facts NCCL cannot do without, refused here rather than in NCCL at the job's start (or,
// worse, loaded as a different machine): every GPU's bus id, and the CPU ids of a node of
// several CPUs.
void check_writable(const NodeTemplate& t) {
    const std::string where = "node template " + printable(t.name) + (t.source.empty() ? "" : " (" + printable(t.source) + ")");
    for (const Gpu& g : t.gpus) {
        if (g.bus_id.empty()) {
            throw input_error(where,
                              printable(g.name) + " has no PCI bus id; NCCL matches the file's GPUs to the machine's by bus id "
                              "and places a GPU it cannot match by its own detection, away from the plan's NICs",
                              "give the node as a capture of the machine (--node capture.xml: lstopo --of xml, "
                              "or the file NCCL_TOPO_DUMP_FILE writes), or set gpus[].bus_id in the template "
                              "(nvidia-smi --query-gpu=index,pci.bus_id --format=csv)");
        }
    }
    for (const Cpu& c : t.cpus) {
        if (t.cpus.size() > 1 && !cpu_ids_complete(c)) {
            throw input_error(where,
                              printable(c.name) + " has no arch/vendor/familyid/modelid; NCCL fills them only for the CPU "
                              "above its own GPU and stops on another it keeps (\"Attribute arch of node cpu not found\")",
                              "give the node as a capture (lstopo --of xml, or NCCL_TOPO_DUMP_FILE), or set cpus[].arch, "
                              "vendor, familyid and modelid in the template (lscpu: Architecture, Vendor ID, CPU family, Model)");
        }
    }
}

class TopoXmlWriter {
public:
    explicit TopoXmlWriter(const NodeTemplate& t) : t_(t) {
        for (std::size_t i = 0; i < t.nics.size(); ++i) {
            nic_bus_.push_back(t.nics[i].bus_id.empty() ? placeholder(i) : t.nics[i].bus_id);
        }
        for (std::size_t i = 0; i < t.pcie_switches.size(); ++i) {
            // NCCL's own name for a switch it cannot see (xml.cc; the AWS and Azure files): ffff:ff:DD.0
            switch_bus_[t.pcie_switches[i].name] =
                hex_id("ffff:%02x:%02x.0", 0xffU - static_cast<unsigned>(i / 32), static_cast<unsigned>(i % 32) + 1);
        }
    }

    /// The NICs written at a placeholder bus id ("NIC0 mlx5_0, ...").
    [[nodiscard]] const std::string& placeholders() const { return placeholders_; }

    std::string system() {
        std::string out = "<system version=\"1\">\n";
        for (std::size_t c = 0; c < t_.cpus.size(); ++c) {
            const Cpu& cpu = t_.cpus[c];
            out += "  <cpu" + cpu_attrs(cpu) + ">\n" + children(cpu.name, c == 0, "    ") + "  </cpu>\n";
        }
        return out + "</system>\n";
    }

private:
    std::string placeholder(std::size_t i) {
        if (t_.nics[i].rdma && !t_.nics[i].device.empty()) {
            placeholders_ += (placeholders_.empty() ? "" : ", ") + printable(t_.nics[i].name) + " " + printable(t_.nics[i].device);
        }
        // The Azure NDv5 file's scheme for NIC i: 010i:00:00.0.
        return hex_id("%04x:%02x:00.0", 0x0101U + static_cast<unsigned>(i), 0);
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

    std::string gpu(std::size_t i, const std::string& indent) const {
        const Gpu& g = t_.gpus[i];
        std::string links;
        const int to_switch = g.nvswitch_links > 0 ? g.nvswitch_links : (t_.nvlink.nvswitch ? t_.nvlink.links_per_gpu : 0);
        if (to_switch > 0) {
            // NVSwitch: NCCL joins every link of class 0x068000 to one NVS node (topo.cc).
            links += indent + "    <nvlink target=\"ffff:ff:00.0\" count=\"" + std::to_string(to_switch) + "\" tclass=\"0x068000\"/>\n";
        }
        for (const auto& p : t_.paths) {
            if (to_switch > 0 || p.path_class != PathClass::Nv || (p.a != g.name && p.b != g.name)) {
                continue;
            }
            const std::string& peer = p.a == g.name ? p.b : p.a;
            for (const Gpu& k : t_.gpus) {
                if (k.name == peer) {
                    links += indent + "    <nvlink" + xml_attr_text("target", k.bus_id) + " count=\"" +
                             std::to_string(p.nvlinks > 0 ? p.nvlinks : 1) + "\" tclass=\"0x030200\"/>\n";
                }
            }
        }
        // No dev, sm, rank or gdr: NCCL fills them for the GPU it runs on (NVML's index, the
        // compute capability, the communicator's rank, its own GPUDirect test) and keeps a value
        // the file gives, so a written one could only be wrong.
        return indent + "<pci" + xml_attr_text("busid", g.bus_id) + " class=\"0x030200\" vendor=\"0x10de\"" + link_attrs(g.pcie, false) +
               ">\n" + indent + (links.empty() ? "  <gpu/>\n" : "  <gpu>\n" + links + indent + "  </gpu>\n") + indent + "</pci>\n";
    }

    // The RDMA NICs under `parent`, one <pci> per bus id (the ports of a dual-port HCA share one).
    std::string nics(const std::string& parent, bool first_cpu, const std::string& indent) const {
        std::string out;
        std::vector<bool> done(t_.nics.size(), false);
        for (std::size_t i = 0; i < t_.nics.size(); ++i) {
            const Nic& n = t_.nics[i];
            if (done[i] || !n.rdma || (n.device.empty() && n.bus_id.empty()) || !under(n.parent, n.numa, parent, first_cpu)) {
                continue;  // socket interfaces and NICs known by neither name nor place: NCCL places them itself
            }
            const std::string cls = n.link_layer == "IB" ? "0x020700" : "0x020000";
            const std::string pci = indent + "<pci" + xml_attr_text("busid", nic_bus_[i]) + " class=\"" + cls + "\"" + link_attrs(n.pcie, true);
            if (n.device.empty()) {
                out += pci + "/>\n";  // known by its PCI place only (as NCCL seeds list them): NCCL hangs its <nic> here
                continue;
            }
            out += pci + ">\n";
            out += indent + "  <nic>\n";
            for (std::size_t k = i; k < t_.nics.size(); ++k) {
                const Nic& m = t_.nics[k];
                if (k != i && (done[k] || !m.rdma || m.device.empty() || m.bus_id.empty() || m.bus_id != n.bus_id)) {
                    continue;
                }
                done[k] = true;
                // dev: NCCL renumbers it from its network plugin; speed (Mb/s) and port: the plan's.
                out += indent + "    <net" + xml_attr_text("name", m.device) + " dev=\"" + std::to_string(net_dev(k)) + "\"";
                if (m.speed_gbit_s > 0) {
                    out += " speed=\"" + std::to_string(std::llround(m.speed_gbit_s * 1000.0)) + "\"";
                }
                out += " port=\"" + std::to_string(m.port) + "\"/>\n";
            }
            out += indent + "  </nic>\n" + indent + "</pci>\n";
        }
        return out;
    }

    std::string children(const std::string& parent, bool first_cpu, const std::string& indent) const {
        std::string out;
        for (const auto& s : t_.pcie_switches) {
            if (s.parent == parent) {
                out += indent + "<pci" + xml_attr_text("busid", switch_bus_.at(s.name)) + " class=\"0x060400\"" + link_attrs(s.link, true) +
                       ">\n" + children(s.name, false, indent + "  ") + indent + "</pci>\n";
            }
        }
        for (std::size_t i = 0; i < t_.gpus.size(); ++i) {
            if (under(t_.gpus[i].parent, t_.gpus[i].numa, parent, first_cpu)) {
                out += gpu(i, indent);
            }
        }
        return out + nics(parent, first_cpu, indent);
    }

    // NCCL's net index: the NIC's place among the template's RDMA NICs (the reader sorts by it).
    [[nodiscard]] int net_dev(std::size_t nic) const {
        int d = 0;
        for (std::size_t k = 0; k < nic; ++k) {
            d += t_.nics[k].rdma && !t_.nics[k].device.empty() ? 1 : 0;
        }
        return d;
    }

    const NodeTemplate& t_;
    std::vector<std::string> nic_bus_;
    std::map<std::string, std::string> switch_bus_;
    std::string placeholders_;
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
    const NodeTemplate& t = r.cluster.template_of(node);
    check_writable(t);
    TopoXmlWriter w(t);
    const std::string body = w.system();
    bool cpu_ids = true;
    for (const Cpu& c : t.cpus) {
        cpu_ids = cpu_ids && cpu_ids_complete(c);
    }
    std::string out = xml_comment("NCCL topology of " + r.cluster.nodes[static_cast<std::size_t>(node)].host + " (" +
                                  r.layout_name + ", node template " + t.name +
                                  "), written by plan-layout analyze, format nccl-topo.\n"
                                  "     Use: NCCL_TOPO_FILE=this-file on that node. NCCL fills what is left out from the machine:\n"
                                  "     each GPU's dev, sm, rank and GPUDirect RDMA support, PCI device ids" +
                                  std::string(cpu_ids ? "" : ", the CPU's arch, vendor, family and model") +
                                  ".\n     NCCL's own detection, for comparison: NCCL_TOPO_DUMP_FILE=FILE.") +
                      "\n";
    if (t.gdr_level != PathClass::Pxb) {
        const std::string level(to_string(t.gdr_level));
        out += xml_comment("The plan assumes GPUDirect RDMA up to " + level +
                           " (LOC: none); NCCL decides it by its own test: NCCL_NET_GDR_LEVEL=" + level +
                           " makes it follow the plan.") +
               "\n";
    }
    if (!w.placeholders().empty()) {
        out += xml_comment("NICs without a PCI bus id in the template, written at 010i:00:00.0 (placeholders): " + w.placeholders() +
                           ".\n     NCCL finds them by name, so the tree holds; the bus ids are not the machine's.") +
               "\n";
    }
    return out + body;
}

}  // namespace planlayout
