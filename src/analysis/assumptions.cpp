// Analysis: the values a plan used and their sources.
#include "planlayout/analysis/assumptions.hpp"

#include <array>
#include <string_view>

namespace planlayout {
namespace {

using nlohmann::json;

// The layout keys whose absence means "computed from the others" (the model's own fields say
// which of theirs are derived: ModelSpec::fields()).
constexpr std::array<std::string_view, 3> kDerived = {"/parallel/dp", "/parallel/etp", "/parallel/world"};

void walk(const json& v, const std::string& pointer, const json& given, const std::map<std::string, std::string>& sources,
          const std::string& layout_name, std::vector<Assumption>& out) {
    if (v.is_object()) {
        for (const auto& [key, member] : v.items()) {
            walk(member, (json::json_pointer(pointer) / key).to_string(), given, sources, layout_name, out);
        }
        return;
    }
    if (v.is_array() && !v.empty() && v.front().is_structured()) {
        for (std::size_t i = 0; i < v.size(); ++i) {
            walk(v[i], pointer + "/" + std::to_string(i), given, sources, layout_name, out);
        }
        return;
    }
    std::string source;
    if (given.contains(json::json_pointer(pointer))) {
        source = source_of(sources, pointer);
        if (source.empty()) {
            source = layout_name;
        }
    } else if (const auto it = sources.find(pointer); it != sources.end()) {
        source = it->second;  // set by a file the layout names (a compute calibration's compute_scale)
    } else {
        source = is_derived_value(pointer) ? "derived" : "default";
    }
    out.push_back({pointer, v, source});
}

json prior_json(const Prior& p) { return json{{"value", p.value}, {"low", p.low}, {"high", p.high}}; }

json params_json(const TransportParams& p) {
    return json{{"efficiency", prior_json(p.efficiency)},
                {"alltoall_efficiency", prior_json(p.alltoall_efficiency)},
                {"alpha_us", p.alpha_us}};
}

}  // namespace

std::string source_of(const std::map<std::string, std::string>& sources, std::string pointer) {
    while (true) {
        if (const auto it = sources.find(pointer); it != sources.end()) {
            return it->second;
        }
        const auto slash = pointer.rfind('/');
        if (slash == std::string::npos || pointer.empty()) {
            return {};
        }
        pointer.resize(slash);
    }
}

bool is_derived_value(const std::string& pointer) {
    for (const auto d : kDerived) {
        if (pointer == d) {
            return true;
        }
    }
    return false;
}

std::vector<Assumption> list_assumptions(const json& effective, const json& given,
                                         const std::map<std::string, std::string>& sources,
                                         const std::string& layout_name) {
    std::vector<Assumption> out;
    walk(effective, "", given, sources, layout_name, out);
    return out;
}

json to_json(const TransportSpec& t) {
    json tcp = params_json(t.tcp_params);
    tcp["interface"] = t.tcp.interface_name;
    tcp["interface_gbit_s"] = t.tcp.interface_gbit_s;
    tcp["interfaces_per_node"] = t.tcp.interfaces_per_node;
    tcp["nsocks_perthread"] = t.tcp.sockets_per_thread;
    tcp["socket_nthreads"] = t.tcp.socket_threads;
    tcp["per_stream_gbit_s"] = t.tcp.per_stream_gbit_s;
    tcp["inside_node"] = t.tcp.inside_node;
    json out{{"compare", json::array({std::string(to_string(t.baseline)), std::string(to_string(t.candidate))})},
             {"tcp", tcp},
             {"rdma", params_json(t.rdma_params)},
             {"gdrdma", params_json(t.gdrdma_params)}};
    if (is_intra_arm(t.baseline) || is_intra_arm(t.candidate)) {  // SHM's priors drive only a p2p/shm comparison
        json shm = params_json(t.shm_params);
        shm["host_memory_gbyte_s"] = t.shm.host_memory_gbyte_s;
        shm["inter_socket_gbyte_s"] = t.shm.inter_socket_gbyte_s;
        if (t.shm.sockets_per_node > 0) {
            shm["sockets_per_node"] = t.shm.sockets_per_node;
        } else {
            shm["sockets_per_node"] = "the node template's GPU NUMA nodes, else 2";
        }
        out["shm"] = shm;
    }
    if (!t.calibrations.empty()) {
        out["calibration"] = t.calibrations;
    }
    return out;
}

}  // namespace planlayout
