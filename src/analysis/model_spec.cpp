// Analysis inputs: reading the model, training and transport sections; derived sizes.
#include "planlayout/analysis/model_spec.hpp"

#include <algorithm>
#include <array>

#include "planlayout/ingest/json_reader.hpp"
#include "planlayout/error.hpp"
#include "planlayout/names.hpp"

namespace planlayout {

namespace {

constexpr int kMaxInt = 1 << 30;

template <typename T>
void set_if(std::optional<T> v, T& field) {
    if (v) {
        field = *v;
    }
}

}  // namespace

// ---------------------------------------------------------------------------- ModelSpec

int ModelSpec::kv_dim() const {
    const int hd = head_dim > 0 ? head_dim : (heads > 0 ? hidden / heads : 0);
    return (kv_heads > 0 ? kv_heads : heads) * hd;
}

double ModelSpec::derived_dense_params() const {
    if (dense_params > 0) {
        return dense_params;
    }
    const double h = hidden;
    const int hd = head_dim > 0 ? head_dim : (heads > 0 ? hidden / heads : 0);
    const double q_dim = static_cast<double>(heads) * hd;
    const double attention = 2.0 * h * q_dim + 2.0 * h * static_cast<double>(kv_dim());
    const double ffn = ffn_hidden > 0 ? ffn_hidden : 4.0 * h;
    const auto dense_layers = static_cast<double>(layers - moe_layers);
    const double moe_ffn = moe_ffn_hidden > 0 ? moe_ffn_hidden : (topk > 0 ? ffn / topk : 0);
    const double per_moe_layer = h * experts + static_cast<double>(shared_experts) * 3.0 * h * moe_ffn;
    const double embed = static_cast<double>(vocab) * h * (tied_embeddings ? 1.0 : 2.0);
    return static_cast<double>(layers) * attention + dense_layers * 3.0 * h * ffn +
           static_cast<double>(moe_layers) * per_moe_layer + embed;
}

double ModelSpec::derived_expert_params() const {
    if (expert_params > 0) {
        return expert_params;
    }
    const double ffn = ffn_hidden > 0 ? ffn_hidden : 4.0 * hidden;
    const double moe_ffn = moe_ffn_hidden > 0 ? moe_ffn_hidden : (topk > 0 ? ffn / topk : 0);
    return static_cast<double>(moe_layers) * experts * 3.0 * hidden * moe_ffn;
}

double ModelSpec::active_params() const {
    const double share = experts > 0 ? static_cast<double>(topk) / experts : 0.0;
    return derived_dense_params() + share * derived_expert_params();
}

ModelSpec ModelSpec::from_json(const nlohmann::json& j, const std::string& where,
                               const std::string& pointer) {
    const JsonReader f(j, where, pointer);
    f.check_keys({"layers", "first_dense_layers", "moe_layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden",
                  "vocab", "tied_embeddings", "moe", "params", "dtype_bytes"});
    ModelSpec m;
    set_if(f.get<int>("layers", 1, kMaxInt), m.layers);
    set_if(f.get<int>("first_dense_layers", 0, kMaxInt), m.first_dense_layers);
    set_if(f.get<int>("hidden", 1, kMaxInt), m.hidden);
    set_if(f.get<int>("heads", 1, kMaxInt), m.heads);
    set_if(f.get<int>("kv_heads", 1, kMaxInt), m.kv_heads);
    set_if(f.get<int>("head_dim", 1, kMaxInt), m.head_dim);
    set_if(f.get<int>("ffn_hidden", 1, kMaxInt), m.ffn_hidden);
    set_if(f.get<int>("vocab", 1, kMaxInt), m.vocab);
    set_if(f.get<bool>("tied_embeddings"), m.tied_embeddings);
    if (auto moe = f.get_object("moe")) {
        moe->check_keys({"experts", "topk", "ffn_hidden", "shared_experts", "capacity_factor"});
        set_if(moe->get<int>("experts", 1, kMaxInt), m.experts);
        set_if(moe->get<int>("topk", 1, kMaxInt), m.topk);
        set_if(moe->get<int>("ffn_hidden", 1, kMaxInt), m.moe_ffn_hidden);
        set_if(moe->get<int>("shared_experts", 0, kMaxInt), m.shared_experts);
        set_if(moe->get<double>("capacity_factor", 0.01, 64), m.capacity_factor);
        if (m.experts == 0 || m.topk == 0) {
            throw input_error(moe->where(m.experts == 0 ? "experts" : "topk"),
                              "an MoE model needs both experts and topk",
                              "add \"experts\": E and \"topk\": k");
        }
        if (m.topk > m.experts) {
            throw input_error(moe->where("topk"), "topk " + std::to_string(m.topk) +
                                                   " exceeds experts " + std::to_string(m.experts),
                              "topk must be at most the number of experts");
        }
    }
    m.moe_layers = m.experts > 0 ? m.layers - m.first_dense_layers : 0;
    set_if(f.get<int>("moe_layers", 0, m.layers), m.moe_layers);
    if (m.first_dense_layers > m.layers) {
        throw input_error(f.where("first_dense_layers"), "more leading dense layers than layers",
                          "set it to at most " + std::to_string(m.layers));
    }
    if (auto p = f.get_object("params")) {
        p->check_keys({"dense", "expert"});
        set_if(p->get<double>("dense", 0, 1e15), m.dense_params);
        set_if(p->get<double>("expert", 0, 1e15), m.expert_params);
    }
    if (auto d = f.get_object("dtype_bytes")) {
        d->check_keys({"activation", "grad", "param"});
        set_if(d->get<int>("activation", 1, 8), m.activation_bytes);
        set_if(d->get<int>("grad", 1, 8), m.grad_bytes);
        set_if(d->get<int>("param", 1, 8), m.param_bytes);
    }
    if (m.layers == 0) {
        throw input_error(f.where("layers"), "missing: the number of transformer layers",
                          "add \"layers\": N");
    }
    if (m.hidden == 0) {
        throw input_error(f.where("hidden"), "missing: the hidden size",
                          "add \"hidden\": H (a documented assumption if the model card does not say)");
    }
    if (m.heads == 0 && m.dense_params == 0) {
        throw input_error(f.where("heads"), "missing: heads (needed to derive the dense parameters)",
                          "add \"heads\": N, or give \"params\": {\"dense\": ...}");
    }
    return m;
}

// ---------------------------------------------------------------------------- TrainingSpec

int TrainingSpec::micro_batches(int dp) const {
    const int per = micro_batch * (dp > 0 ? dp : 1);
    return per > 0 ? std::max(1, global_batch / per) : 1;
}

TrainingSpec TrainingSpec::from_json(const nlohmann::json& j, const std::string& where,
                                     const std::string& pointer) {
    const JsonReader f(j, where, pointer);
    f.check_keys({"global_batch", "micro_batch", "seq_len", "vpp", "recompute", "sequence_parallel", "finetune", "lora",
                  "distributed_optimizer", "zero_stage", "overlap", "measured_step_time_s", "measured_transport",
                  "compute_time_s", "gpu_peak_tflops", "mfu"});
    TrainingSpec t;
    set_if(f.get<int>("global_batch", 1, kMaxInt), t.global_batch);
    set_if(f.get<int>("micro_batch", 1, kMaxInt), t.micro_batch);
    set_if(f.get<int>("seq_len", 1, kMaxInt), t.seq_len);
    set_if(f.get<int>("vpp", 1, 1024), t.vpp);
    if (const auto r = f.get<std::string>("recompute")) {
        if (*r == "none") {
            t.recompute = Recompute::None;
        } else if (*r == "selective") {
            t.recompute = Recompute::Selective;
        } else if (*r == "full") {
            t.recompute = Recompute::Full;
        } else {
            throw input_error(f.where("recompute"), "unknown recompute '" + *r + "'",
                              "use none, selective or full");
        }
    }
    set_if(f.get<bool>("sequence_parallel"), t.sequence_parallel);
    if (const auto ft = f.get<std::string>("finetune")) {
        if (*ft == "full") {
            t.finetune = FineTune::Full;
        } else if (*ft == "lora") {
            t.finetune = FineTune::Lora;
        } else {
            throw input_error(f.where("finetune"), "unknown finetune '" + *ft + "'", "use full or lora");
        }
    }
    if (auto lora = f.get_object("lora")) {
        lora->check_keys({"adapter_params", "expert_share"});
        t.finetune = FineTune::Lora;
        set_if(lora->get<double>("adapter_params", 0, 1e15), t.lora_adapter_params);
        set_if(lora->get<double>("expert_share", 0, 1), t.lora_expert_share);
    }
    set_if(f.get<bool>("distributed_optimizer"), t.distributed_optimizer);
    set_if(f.get<int>("zero_stage", 0, 3), t.zero_stage);
    if (auto o = f.get_object("overlap")) {
        o->check_keys({"dp", "pp", "ep", "cp"});
        set_if(o->get<bool>("dp"), t.overlap_dp);
        set_if(o->get<bool>("pp"), t.overlap_pp);
        set_if(o->get<bool>("ep"), t.overlap_ep);
        set_if(o->get<bool>("cp"), t.overlap_cp);
    }
    if (const auto s = f.get<double>("measured_step_time_s", 1e-6, 1e6)) {
        t.measured_step_time_s = *s;
    }
    if (const auto mt = f.get<std::string>("measured_transport")) {
        if (!parse_transport(*mt)) {
            throw input_error(f.where("measured_transport"), "unknown transport '" + *mt + "'",
                              "use tcp, rdma or gdrdma");
        }
        t.measured_transport = *mt;
    }
    if (const auto c = f.get<double>("compute_time_s", 0, 1e6)) {
        t.compute_time_s = *c;
    }
    set_if(f.get<double>("gpu_peak_tflops", 1e-3, 1e6), t.gpu_peak_tflops);
    set_if(f.get<double>("mfu", 1e-6, 1.0), t.mfu);
    if (t.global_batch == 0 || t.seq_len == 0) {
        throw input_error(f.where(t.global_batch == 0 ? "global_batch" : "seq_len"),
                          "missing: global_batch and seq_len are both required",
                          "add \"global_batch\": N and \"seq_len\": S");
    }
    return t;
}

// ---------------------------------------------------------------------------- TransportSpec

namespace {

constexpr std::array<std::string_view, 3> kTransportNames = {"tcp", "rdma", "gdrdma"};

void read_prior(const JsonReader& f, const std::string& key, Prior& p) {
    if (!f.has(key)) {
        return;
    }
    const nlohmann::json* v = &f.at(key);
    if (v->is_number()) {
        const double old_value = p.value;
        p.value = *f.get<double>(key, 1e-6, 1.0);
        // A bare number moves the band with it, keeping its relative width.
        p.low = p.low * p.value / old_value;
        p.high = std::min(1.0, p.high * p.value / old_value);
        return;
    }
    auto o = f.get_object(key);
    o->check_keys({"value", "low", "high"});
    set_if(o->get<double>("value", 1e-6, 1.0), p.value);
    set_if(o->get<double>("low", 1e-6, 1.0), p.low);
    set_if(o->get<double>("high", 1e-6, 1.0), p.high);
    if (!(p.low <= p.value && p.value <= p.high)) {
        throw input_error(f.where(key), "the band must satisfy low <= value <= high",
                          "fix low, value and high");
    }
}

void read_params(const JsonReader& f, TransportParams& p) {
    read_prior(f, "efficiency", p.efficiency);
    read_prior(f, "alltoall_efficiency", p.alltoall_efficiency);
    set_if(f.get<double>("alpha_us", 0, 1e6), p.alpha_us);
}

}  // namespace

std::string_view to_string(Transport t) { return kTransportNames.at(static_cast<std::size_t>(t)); }

std::optional<Transport> parse_transport(std::string_view s) {
    for (std::size_t i = 0; i < kTransportNames.size(); ++i) {
        if (s == kTransportNames[i]) {
            return static_cast<Transport>(i);
        }
    }
    if (s == "socket" || s == "NET/Socket") {
        return Transport::Tcp;
    }
    if (s == "ib" || s == "roce" || s == "NET/IB") {
        return Transport::Rdma;
    }
    if (s == "gdr" || s == "GDRDMA") {
        return Transport::Gdrdma;
    }
    return std::nullopt;
}

double pick(const Prior& p, PriorEnd end) {
    switch (end) {
        case PriorEnd::Low:
            return p.low;
        case PriorEnd::High:
            return p.high;
        case PriorEnd::Point:
            break;
    }
    return p.value;
}

const TransportParams& TransportSpec::params(Transport t) const {
    switch (t) {
        case Transport::Tcp:
            return tcp_params;
        case Transport::Rdma:
            return rdma_params;
        case Transport::Gdrdma:
            break;
    }
    return gdrdma_params;
}

TransportParams& TransportSpec::params(Transport t) {
    return const_cast<TransportParams&>(static_cast<const TransportSpec&>(*this).params(t));
}

TransportSpec TransportSpec::from_json(const nlohmann::json& j, const std::string& where,
                                       const std::string& pointer) {
    const JsonReader f(j, where, pointer);
    f.check_keys({"compare", "tcp", "rdma", "gdrdma", "calibration"});
    TransportSpec t;
    if (f.has("compare")) {
        const nlohmann::json* c = &f.at("compare");
        if (!c->is_array() || c->size() != 2 || !(*c)[0].is_string() || !(*c)[1].is_string()) {
            throw input_error(f.where("compare"), "expected two transport names, found " + c->dump(),
                              "write e.g. \"compare\": [\"tcp\", \"gdrdma\"]");
        }
        for (std::size_t i = 0; i < 2; ++i) {
            const auto name = (*c)[i].get<std::string>();
            const auto parsed = parse_transport(name);
            if (!parsed) {
                throw input_error(f.where("compare/" + std::to_string(i)),
                                  "unknown transport '" + name + "'", "use tcp, rdma or gdrdma");
            }
            (i == 0 ? t.baseline : t.candidate) = *parsed;
        }
        t.compare_given = true;
    }
    if (auto tcp = f.get_object("tcp")) {
        tcp->check_keys({"interface", "interface_gbit_s", "interfaces_per_node", "nsocks_perthread", "socket_nthreads",
                         "per_stream_gbit_s", "inside_node", "efficiency", "alltoall_efficiency", "alpha_us"});
        if (const auto name = tcp->get<std::string>("interface")) {
            require_device_name(*name, tcp->where("interface"), "TCP interface");
            t.tcp.interface_name = *name;
        }
        set_if(tcp->get<double>("interface_gbit_s", 1e-3, 1e5), t.tcp.interface_gbit_s);
        set_if(tcp->get<int>("interfaces_per_node", 1, 64), t.tcp.interfaces_per_node);
        set_if(tcp->get<int>("nsocks_perthread", 1, 64), t.tcp.sockets_per_thread);
        set_if(tcp->get<int>("socket_nthreads", 1, 64), t.tcp.socket_threads);
        set_if(tcp->get_rate("per_stream_gbit_s", 1e-3, 1e5), t.tcp.per_stream_gbit_s);
        set_if(tcp->get<bool>("inside_node"), t.tcp.inside_node);
        read_params(*tcp, t.tcp_params);
    }
    if (auto rdma = f.get_object("rdma")) {
        rdma->check_keys({"efficiency", "alltoall_efficiency", "alpha_us"});
        read_params(*rdma, t.rdma_params);
    }
    if (auto gdr = f.get_object("gdrdma")) {
        gdr->check_keys({"efficiency", "alltoall_efficiency", "alpha_us"});
        read_params(*gdr, t.gdrdma_params);
    }
    if (f.has("calibration")) {
        const nlohmann::json* c = &f.at("calibration");
        // One file or a list of them: a NIC/TCP-class fit per transport and collective, an NV/PCIe one.
        const bool list = c->is_array() && !c->empty() &&
                          std::all_of(c->begin(), c->end(), [](const nlohmann::json& e) { return e.is_string(); });
        if (c->is_string()) {
            t.calibrations.push_back(c->get<std::string>());
        } else if (list) {
            for (const auto& e : *c) {
                t.calibrations.push_back(e.get<std::string>());
            }
        } else {
            throw input_error(f.where("calibration"), "expected a file name or a list of file names, found " + c->dump(),
                              "write \"calibration\": \"calib.json\" or [\"tcp-a2a.json\", \"tcp-ar.json\"]");
        }
    }
    return t;
}

}  // namespace planlayout
