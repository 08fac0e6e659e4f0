// Ingest: measured kernel tables.
#include "planlayout/ingest/kernel_table_json.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout_embedded_kernels.hpp"

namespace planlayout {
namespace {

constexpr double kMaxPs = 1e6;  // picoseconds per element or parameter: far above any kernel

double required_table_value(const JsonReader& r, const std::string& key, double min, double max) {
    const auto v = r.get<double>(key, min, max);
    if (!v) {
        throw input_error(r.where(key), "missing: " + key, "run tests/gpu/kernel_table.py --write to rebuild the table");
    }
    return *v;
}

/// [fwd_ps, bwd_ps] at `key` of `r`.
BlockCost pair_at(const JsonReader& r, const std::string& key) {
    const nlohmann::json* a = r.get_array(key);
    if (a == nullptr || a->size() != 2 || !(*a)[0].is_number() || !(*a)[1].is_number() || (*a)[0].get<double>() < 0 ||
        (*a)[1].get<double>() < 0 || (*a)[0].get<double>() > kMaxPs || (*a)[1].get<double>() > kMaxPs) {
        throw input_error(r.where(key), "expected [forward ps, backward ps], two numbers in [0, 1e6]",
                          "write e.g. [1.47, 2.12]");
    }
    return {(*a)[0].get<double>(), (*a)[1].get<double>()};
}

std::optional<BlockCost> optional_pair(const JsonReader& r, const std::string& key) {
    return r.has(key) ? std::optional<BlockCost>(pair_at(r, key)) : std::nullopt;
}

void read_attention(const JsonReader& r, KernelTable& t) {
    const nlohmann::json* a = r.get_array("attention");
    const std::size_t n = a == nullptr ? 0 : a->size();
    for (std::size_t i = 0; i < n; ++i) {
        const JsonReader e = r.element("attention", i);
        e.check_keys({"backend", "head_dim", "seq", "fwd", "bwd"});
        AttentionPoint p;
        const auto be = e.get_enum<AttentionBackend>("backend", parse_attention_backend, "flash, cudnn or efficient");
        if (!be || *be == AttentionBackend::Auto || *be == AttentionBackend::Unfused) {
            throw input_error(e.where("backend"), "expected a fused backend", "use flash, cudnn or efficient");
        }
        p.backend = *be;
        p.head_dim = static_cast<int>(required_table_value(e, "head_dim", 1, 4096));
        p.seq = static_cast<int>(required_table_value(e, "seq", 1, 1 << 24));
        p.fwd = required_table_value(e, "fwd", 1e-6, 1);
        p.bwd = required_table_value(e, "bwd", 1e-6, 1);
        t.attention.push_back(p);
    }
}

void read_blocks(const JsonReader& r, const JsonReader& unfused, KernelTable& t) {
    const auto b = r.get_object("blocks");
    if (!b) {
        throw input_error(r.where("blocks"), "missing: blocks", "run tests/gpu/kernel_table.py --write to rebuild the table");
    }
    for (const auto& [name, value] : b->json().items()) {
        if (is_comment_key(name)) {
            continue;
        }
        const auto o = b->get_object(name);
        o->check_keys({"rmsnorm", "rope", "swiglu", "residual", "loss", "moe_routing", "moe_tokens"});
        ImplementationBlocks ib;
        ib.rmsnorm = pair_at(*o, "rmsnorm");
        ib.rope = pair_at(*o, "rope");
        ib.swiglu = pair_at(*o, "swiglu");
        ib.residual = pair_at(*o, "residual");
        ib.loss = pair_at(*o, "loss");
        ib.moe_routing = optional_pair(*o, "moe_routing");
        ib.moe_tokens = optional_pair(*o, "moe_tokens");
        ib.unfused_attention = optional_pair(unfused, name);
        t.blocks[name] = ib;
    }
}

/// gemm: {source, measured_on, points: [{m, n, k, eff}]}, points by (m, n, k) ascending, no shape
/// twice; optional (a table without it prices bf16 GEMMs on the prior curve). The grid is built here,
/// once per table.
void read_gemm(const JsonReader& r, KernelTable& t) {
    const auto g = r.get_object("gemm");
    if (!g) {
        return;
    }
    g->check_keys({"source", "measured_on", "points"});
    const nlohmann::json* a = g->get_array("points");
    if (a == nullptr || a->empty()) {
        throw input_error(g->where("points"), "missing: the measured GEMMs' points", "run tests/gpu/kernel_table.py --write");
    }
    std::vector<GemmPoint> pts;
    pts.reserve(a->size());
    for (std::size_t i = 0; i < a->size(); ++i) {
        const JsonReader e = g->element("points", i);
        e.check_keys({"m", "n", "k", "eff"});
        pts.push_back({required_table_value(e, "m", 1, 1e7), required_table_value(e, "n", 1, 1e7),
                       required_table_value(e, "k", 1, 1e7), required_table_value(e, "eff", 1e-6, 1)});
        if (i > 0 && std::tie(pts[i - 1].m, pts[i - 1].n, pts[i - 1].k) >= std::tie(pts[i].m, pts[i].n, pts[i].k)) {
            throw input_error(e.where(), "points out of order or a shape twice",
                              "list each shape once, by m, then n, then k ascending");
        }
    }
    t.gemm = GemmTable(std::move(pts), g->get<std::string>("source").value_or(""),
                       g->get<std::string>("measured_on").value_or(t.gpu));
}

/// gemm_fp8 (variant: [{d, speedup}], d ascending), fp8_quant_ps and grouped_gemm: optional as a
/// whole (a table without FP8 measurements prices FP8 GEMMs at the spec-sheet peak).
void read_fp8(const JsonReader& r, KernelTable& t) {
    t.fp8_source = r.get<std::string>("fp8_source").value_or("");
    if (const auto g = r.get_object("gemm_fp8")) {
        for (const auto& [variant, value] : g->json().items()) {
            if (is_comment_key(variant)) {
                continue;
            }
            const nlohmann::json* a = g->get_array(variant);
            const std::size_t n = a == nullptr ? 0 : a->size();
            std::vector<SpeedupPoint> pts;
            for (std::size_t i = 0; i < n; ++i) {
                const JsonReader e = g->element(variant, i);
                e.check_keys({"d", "speedup"});
                pts.push_back({required_table_value(e, "d", 1, 1e7), required_table_value(e, "speedup", 0.01, 100)});
                if (i > 0 && pts[i].d <= pts[i - 1].d) {
                    throw input_error(e.where("d"), "points out of order", "list the points by d ascending");
                }
            }
            t.gemm_fp8[variant] = pts;
        }
    }
    if (const auto q = r.get_object("fp8_quant_ps")) {
        for (const auto& [recipe, value] : q->json().items()) {
            if (!is_comment_key(recipe)) {
                t.fp8_quant_ps[recipe] = required_table_value(*q, recipe, 0, kMaxPs);
            }
        }
    }
    const nlohmann::json* a = r.get_array("grouped_gemm");
    const std::size_t n = a == nullptr ? 0 : a->size();
    for (std::size_t i = 0; i < n; ++i) {
        const JsonReader e = r.element("grouped_gemm", i);
        e.check_keys({"k", "n", "tokens_per_expert", "eff"});
        t.grouped_gemm.push_back({required_table_value(e, "k", 1, 1e7), required_table_value(e, "n", 1, 1e7),
                                  required_table_value(e, "tokens_per_expert", 1, 1e9), required_table_value(e, "eff", 1e-6, 1)});
    }
    std::sort(t.grouped_gemm.begin(), t.grouped_gemm.end(), [](const GroupedPoint& x, const GroupedPoint& y) {
        return std::tie(x.k, x.n, x.tokens_per_expert) < std::tie(y.k, y.n, y.tokens_per_expert);
    });
}

/// host: {name: {source, implementation, hidden: [min, max], local_experts_max, base_us, dense_us,
/// moe_us, expert_us: [fwd, bwd], optimizer_us: {base, dense, moe, expert}, fit_error}}, optional (a
/// table without it prices no host time; without implementation / hidden / local_experts_max, no bound);
/// fit_error (each run's relative error against the fit) is provenance, not read.
void read_host(const JsonReader& r, KernelTable& t) {
    const auto h = r.get_object("host");
    if (!h) {
        return;
    }
    for (const auto& [name, value] : h->json().items()) {
        if (is_comment_key(name)) {
            continue;
        }
        const auto o = h->get_object(name);
        if (!o) {
            throw input_error(h->where(name), "expected an object of host times", "run tests/gpu/kernel_table.py --write");
        }
        o->check_keys({"source", "implementation", "hidden", "local_experts_max", "base_us", "dense_us", "moe_us", "expert_us",
                       "optimizer_us", "fit_error"});
        HostTime ht;
        ht.source = o->get<std::string>("source").value_or("");
        ht.implementation = o->get<std::string>("implementation").value_or("");
        if (o->has("hidden")) {
            const nlohmann::json* a = o->get_array("hidden");
            const auto at = [&](std::size_t i) { return (*a)[i].is_number() ? (*a)[i].get<double>() : 0.0; };
            if (a == nullptr || a->size() != 2 || at(0) < 1 || at(1) < at(0) || at(1) > kMaxPs) {
                throw input_error(o->where("hidden"), "expected [smallest, largest] hidden size measured, 1 <= smallest <= largest",
                                  "write e.g. [256, 4096]");
            }
            ht.hidden_min = at(0);
            ht.hidden_max = at(1);
        }
        if (o->has("local_experts_max")) {
            ht.local_experts_max = required_table_value(*o, "local_experts_max", 1, kMaxPs);
        }
        const auto us = [&](const char* key) {
            const BlockCost c = pair_at(*o, key);
            return PassUs{c.fwd_ps, c.bwd_ps};  // the same [forward, backward] pair, in microseconds
        };
        ht.base = us("base_us");
        ht.dense = us("dense_us");
        ht.moe = us("moe_us");
        ht.expert = us("expert_us");
        const auto opt = o->get_object("optimizer_us");
        if (!opt) {
            throw input_error(o->where("optimizer_us"), "missing: optimizer_us {base, dense, moe, expert}",
                              "run tests/gpu/kernel_table.py --write");
        }
        opt->check_keys({"base", "dense", "moe", "expert"});
        ht.optimizer_base_us = required_table_value(*opt, "base", 0, kMaxPs);
        ht.optimizer_dense_us = required_table_value(*opt, "dense", 0, kMaxPs);
        ht.optimizer_moe_us = required_table_value(*opt, "moe", 0, kMaxPs);
        ht.optimizer_expert_us = required_table_value(*opt, "expert", 0, kMaxPs);
        t.host[name] = ht;
    }
}

/// [{duty, ratio}, ...] at `key` of the power section, by duty ascending.
std::vector<PowerPoint> power_points(const JsonReader& r, const std::string& key) {
    const nlohmann::json* a = r.get_array(key);
    if (a == nullptr || a->empty()) {
        throw input_error(r.where(key), "missing: the " + key + " GEMMs' points", "run tests/gpu/kernel_table.py --write");
    }
    std::vector<PowerPoint> pts;
    for (std::size_t i = 0; i < a->size(); ++i) {
        const JsonReader e = r.element(key, i);
        e.check_keys({"duty", "ratio"});
        pts.push_back({required_table_value(e, "duty", 0, 1), required_table_value(e, "ratio", 0.05, 1.5)});
        if (i > 0 && pts[i].duty <= pts[i - 1].duty) {
            throw input_error(e.where("duty"), "points out of order", "list the points by duty ascending");
        }
    }
    return pts;
}

void read_power(const JsonReader& r, KernelTable& t) {
    const auto p = r.get_object("power");
    if (!p) {
        return;
    }
    p->check_keys({"gpus", "source", "bf16", "fp8"});
    PowerCurve c;
    c.source = p->get<std::string>("source").value_or("");
    const nlohmann::json* g = p->get_array("gpus");
    for (std::size_t i = 0; g != nullptr && i < g->size(); ++i) {
        if (!(*g)[i].is_string()) {
            throw input_error(p->where("gpus"), "expected GPU names", "write e.g. [\"H100 SXM\", \"H200\"]");
        }
        c.gpus.push_back((*g)[i].get<std::string>());
    }
    if (c.gpus.empty()) {
        throw input_error(p->where("gpus"), "missing: the GPUs the curve applies to", "write e.g. [\"H100 SXM\"]");
    }
    c.bf16 = power_points(*p, "bf16");
    c.fp8 = power_points(*p, "fp8");
    t.power = c;
}

}  // namespace

KernelTable kernel_table_from_json(const nlohmann::json& j, const std::string& file) {
    const JsonReader r(j, file, "");
    r.check_keys({"gpu", "carried", "source", "peak_bf16_tflops", "spec_hbm_gbyte_s", "copy_gbyte_s", "launch_us", "attention", "unfused_attention",
                  "blocks", "embedding_bwd_ps", "optimizer_ps_per_param", "fp8_source", "gemm", "gemm_fp8", "fp8_quant_ps",
                  "grouped_gemm", "host", "power"});
    KernelTable t;
    t.file = file;
    t.gpu = r.get<std::string>("gpu").value_or("");
    if (t.gpu.empty()) {
        throw input_error(r.where("gpu"), "missing: the GPU the table was measured on", "add \"gpu\": \"H200\"");
    }
    t.source = r.get<std::string>("source").value_or("");
    t.carried = r.get<bool>("carried").value_or(false);
    t.peak_bf16_tflops = required_table_value(r, "peak_bf16_tflops", 1e-3, 1e5);
    t.copy_gbyte_s = required_table_value(r, "copy_gbyte_s", 1e-3, 1e6);
    t.spec_hbm_gbyte_s = required_table_value(r, "spec_hbm_gbyte_s", 1e-3, 1e6);
    t.launch_us = required_table_value(r, "launch_us", 0, 1e4);
    t.embedding_bwd_ps = required_table_value(r, "embedding_bwd_ps", 0, kMaxPs);
    read_gemm(r, t);
    read_attention(r, t);
    const auto unfused = r.get_object("unfused_attention");
    if (!unfused) {
        throw input_error(r.where("unfused_attention"), "missing: unfused_attention", "run tests/gpu/kernel_table.py --write");
    }
    read_blocks(r, *unfused, t);
    if (const auto o = r.get_object("optimizer_ps_per_param")) {
        for (const auto& [name, value] : o->json().items()) {
            if (!is_comment_key(name)) {
                t.optimizer_ps_per_param[name] = required_table_value(*o, name, 0, kMaxPs);  // a null is refused, not dereferenced
            }
        }
    }
    read_fp8(r, t);
    read_host(r, t);
    read_power(r, t);
    return t;
}

std::vector<std::shared_ptr<const KernelTable>> builtin_kernel_tables() {
    std::vector<std::shared_ptr<const KernelTable>> out;
    for (const auto& e : kEmbeddedKernels) {
        const std::string src = std::string("layouts/kernels/") + e.name + ".json";
        out.push_back(std::make_shared<const KernelTable>(kernel_table_from_json(parse_json_text(e.text, src), src)));
    }
    return out;
}

}  // namespace planlayout
