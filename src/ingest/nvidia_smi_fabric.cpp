// Ingest: `nvidia-smi -q` Fabric sections → the node's multi-node NVLink clique.
// The format (driver 550+), per GPU, indented under the GPU's header:
//     Fabric
//         State                             : Completed
//         Status                            : Success
//         CliqueId                          : 2
//         ClusterUUID                       : dc6e40c4-d722-4357-9ba6-5291dd461278
//         Health
//             Bandwidth                     : Full
// (kubernetes-sigs/dra-driver-nvidia-gpu issue 626, a GB200 node; the NVML fields are
// nvmlGpuFabricInfo_v3_t's state, status, cliqueId and clusterUuid).
#include "planlayout/ingest/nvidia_smi_fabric.hpp"

#include "ingest_util.hpp"
#include "planlayout/error.hpp"
#include "planlayout/names.hpp"

namespace planlayout {
namespace {

using ingest_detail::lines_of;
using ingest_detail::trim;

std::size_t indent_of(const std::string& line) {
    const auto p = line.find_first_not_of(" \t");
    return p == std::string::npos ? line.size() : p;
}

std::string at_line(const std::string& where, std::size_t line) { return where + ":" + std::to_string(line); }

// "Key   : value" → (key, value); key empty when the line has no colon.
std::pair<std::string, std::string> key_value(const std::string& line) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) {
        return {trim(line), ""};
    }
    return {trim(line.substr(0, colon)), trim(line.substr(colon + 1))};
}

void require_fields(const GpuFabric& g, const std::string& where) {
    if (g.state.empty() || g.clique_id.empty()) {
        throw input_error(at_line(where, g.line), "the Fabric section has no " + std::string(g.state.empty() ? "State" : "CliqueId"),
                          "pass the whole output of nvidia-smi -q (driver 550 or later), or a grep -C3 CliqueId excerpt of it");
    }
}

// NVML's cliqueId is an unsigned int that nvidia-smi prints in decimal ("2"): 1 to 10 digits, at
// most 4294967295. Anything else (a sign, hex, a space, letters) is not what nvidia-smi prints.
bool is_clique_id(const std::string& id) {
    if (id.empty() || id.size() > 10 || id.find_first_not_of("0123456789") != std::string::npos) {
        return false;
    }
    return std::stoull(id) <= 4294967295ULL;
}

// ClusterUUID as NVML's clusterUuid prints: 8-4-4-4-12 hex digits.
bool is_cluster_uuid(const std::string& u) {
    if (u.size() != 36) {
        return false;
    }
    for (std::size_t i = 0; i < u.size(); ++i) {
        const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        const char c = u[i];
        const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        if (dash ? c != '-' : !hex) {
            return false;
        }
    }
    return true;
}

// The clique id and ClusterUUID of a ready GPU, checked before they make a name that reaches the
// scheduler outputs (topology.conf blocks, Volcano HyperNodes, Kueue labels).
void require_clique_fields(const GpuFabric& g, const std::string& name, const std::string& where) {
    if (!is_cluster_uuid(g.cluster_uuid)) {
        throw input_error(at_line(where, g.line), name + ": ClusterUUID '" + printable(g.cluster_uuid) + "' is not a UUID",
                          "nvidia-smi -q prints it as 8-4-4-4-12 hex digits (dc6e40c4-d722-4357-9ba6-5291dd461278): pass the "
                          "capture unedited");
    }
    if (!is_clique_id(g.clique_id)) {
        throw input_error(at_line(where, g.line), name + ": CliqueId '" + printable(g.clique_id) + "' is not a decimal number from 0 to 4294967295",
                          "nvidia-smi -q prints NVML's clique id in decimal (CliqueId : 2): pass the capture unedited");
    }
}

}  // namespace

std::vector<GpuFabric> read_nvidia_smi_fabric(const std::string& text, const std::string& where) {
    std::vector<GpuFabric> out;
    std::string gpu;
    std::size_t fabric_indent = 0;
    bool in_fabric = false;
    const std::vector<std::string> lines = lines_of(text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        const std::string t = trim(line);
        const std::size_t indent = indent_of(line);
        if (in_fabric && (t == "--" || (!t.empty() && indent <= fabric_indent))) {
            in_fabric = false;  // the section ends where the indentation comes back, or at grep's "--"
        }
        if (indent == 0 && t.rfind("GPU ", 0) == 0) {
            gpu = t.substr(4);
        } else if (t == "Fabric") {
            in_fabric = true;
            fabric_indent = indent;
            out.push_back({gpu, "", "", "", "", i + 1});
        } else if (in_fabric) {
            const auto [key, value] = key_value(line);
            GpuFabric& g = out.back();
            if (key == "State") {
                g.state = value;
            } else if (key == "Status") {
                g.status = value;
            } else if (key == "CliqueId") {
                g.clique_id = value;
            } else if (key == "ClusterUUID") {
                g.cluster_uuid = value;
            }
        }
    }
    if (out.empty()) {
        throw input_error(where, "no Fabric section: not the output of nvidia-smi -q",
                          "capture it on the node with: nvidia-smi -q > node.txt (driver 550 or later)");
    }
    for (const auto& g : out) {
        require_fields(g, where);
    }
    return out;
}

std::string node_clique(const std::vector<GpuFabric>& gpus, const std::string& where) {
    std::string clique;
    for (const auto& g : gpus) {
        const std::string name = g.gpu.empty() ? "a GPU" : "GPU " + g.gpu;
        if (g.state == "N/A" || g.state == "Not Supported") {
            continue;  // no NVLink fabric on this GPU (an HGX node, or MNNVL off)
        }
        if (g.state != "Completed") {
            throw input_error(at_line(where, g.line), name + ": NVLink fabric state '" + g.state + "', not Completed",
                              "capture after the fabric manager / IMEX has registered the GPU (State: Completed)");
        }
        if (g.status != "Success") {
            throw input_error(at_line(where, g.line), name + ": NVLink fabric status '" + g.status + "', not Success",
                              "repair the node's NVLink fabric (nvidia-smi -q shows why), or leave it out of the domain");
        }
        require_clique_fields(g, name, where);
        if (g.cluster_uuid.find_first_not_of("0-") == std::string::npos) {
            continue;  // a zero ClusterUUID: NCCL disables MNNVL (src/mnnvl.cc)
        }
        std::string uuid = g.cluster_uuid;
        for (char& c : uuid) {
            c = c >= 'A' && c <= 'F' ? static_cast<char>(c - 'A' + 'a') : c;  // as the GPU operator's label: lower case
        }
        const std::string id = uuid + "." + std::to_string(std::stoull(g.clique_id));
        if (!clique.empty() && id != clique) {
            throw input_error(at_line(where, g.line), name + " is in clique " + id + ", another GPU of the node in " + clique,
                              "plan-layout puts a node in one NVLink domain: capture a node whose GPUs share a partition");
        }
        clique = id;
    }
    return clique;
}

}  // namespace planlayout
