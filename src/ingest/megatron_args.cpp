// Ingest: the flags of a Megatron-LM launch as layout values (the mapping is in megatron_args.hpp;
// flag spellings and defaults from Megatron-LM megatron/training/arguments.py, TransformerConfig
// and ModelParallelConfig, and torchrun's).
// Over 500 lines: one mapping: the table of Megatron-LM and torchrun flags (kFlags) and the Mapper
// (megatron_args.hpp) whose sections (cluster and parallel sizes, virtual pipeline, overlap,
// memory, training, kernels, CUDA graphs) read the same scanned words into layout values.
#include "planlayout/ingest/megatron_args.hpp"

#include <algorithm>
#include <iterator>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <utility>

#include "planlayout/error.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/model/model_spec.hpp"
#include "megatron_mapper.hpp"

namespace planlayout::megatron {
namespace {

constexpr Flag kFlags[] = {
    // torchrun (and plan-layout's own names)
    {"nnodes", Kind::One, "nodes"}, {"nodes", Kind::One, "nodes"},
    {"nproc-per-node", Kind::One, "gpus"}, {"gpus-per-node", Kind::One, "gpus"},
    {"world", Kind::One, "world"}, {"world-size", Kind::One, "world"},
    // parallel
    {"tensor-model-parallel-size", Kind::One, "tp"}, {"tp", Kind::One, "tp"},
    {"pipeline-model-parallel-size", Kind::One, "pp"}, {"pp", Kind::One, "pp"},
    {"context-parallel-size", Kind::One, "cp"}, {"cp", Kind::One, "cp"},
    {"expert-model-parallel-size", Kind::One, "ep"}, {"ep", Kind::One, "ep"},
    {"expert-tensor-parallel-size", Kind::One, "etp"}, {"etp", Kind::One, "etp"},
    {"data-parallel-size", Kind::One, "dp"}, {"dp", Kind::One, "dp"},
    {"virtual-pipeline-model-parallel-size", Kind::One, "vpp"}, {"vpp", Kind::One, "vpp"},
    {"num-layers-per-virtual-pipeline-stage", Kind::One, "layers_per_stage"},
    {"num-virtual-stages-per-pipeline-rank", Kind::One, "stages"},
    {"account-for-embedding-in-pipeline-split", Kind::Bool, "embedding_split"},
    {"account-for-loss-in-pipeline-split", Kind::Bool, "loss_split"},
    {"use-tp-pp-dp-mapping", Kind::Bool, "tp_pp_dp"}, {"order", Kind::One, "order"},
    {"num-distributed-optimizer-instances", Kind::One, "dist_opt_instances"},
    {"hierarchical-context-parallel-sizes", Kind::List, "hierarchical_cp"},
    {"hybrid-context-parallel", Kind::Bool, "hybrid_cp"},
    {"rank-offset", Kind::One, "rank_offset"}, {"local-world-size", Kind::One, "local_world_size"},
    {"gtp", Kind::One, "gtp"}, {"egtp", Kind::One, "egtp"},
    // training
    {"sequence-parallel", Kind::Bool, "sequence_parallel"}, {"seq-length", Kind::One, "seq_len"},
    {"micro-batch-size", Kind::One, "micro_batch"}, {"global-batch-size", Kind::One, "global_batch"},
    {"use-distributed-optimizer", Kind::Bool, "distributed_optimizer"},
    {"recompute-granularity", Kind::One, "recompute"}, {"recompute-activations", Kind::Bool, "recompute_activations"},
    {"recompute-method", Kind::One, "recompute_method"}, {"recompute-num-layers", Kind::One, "recompute_layers"},
    {"recompute-modules", Kind::List, "recompute_modules"}, {"attention-dropout", Kind::One, "attention_dropout"},
    {"hidden-dropout", Kind::One, "hidden_dropout"},
    {"cuda-graph-impl", Kind::One, "cuda_graph_impl"}, {"cuda-graph-modules", Kind::List, "cuda_graph_modules"},
    {"cuda-graph-scope", Kind::List, "cuda_graph_scope"}, {"enable-cuda-graph", Kind::Bool, "enable_cuda_graph"},
    {"external-cuda-graph", Kind::Bool, "external_cuda_graph"},
    {"overlap-grad-reduce", Kind::Bool, "overlap_grad"}, {"overlap-param-gather", Kind::Bool, "overlap_param"},
    {"ddp-bucket-size", Kind::One, "bucket_size"}, {"no-overlap-p2p-communication", Kind::Bool, "no_overlap_p2p"},
    {"fp8-format", Kind::One, "fp8"}, {"fp8-recipe", Kind::One, "fp8_recipe"},
    {"tp-comm-overlap", Kind::Bool, "tp_comm_overlap"},
    {"overlap-moe-expert-parallel-comm", Kind::Bool, "overlap_moe_ep"},
    // kernels (docs/cost-model.md, "Compute: kernels")
    {"transformer-impl", Kind::One, "transformer_impl"}, {"attention-backend", Kind::One, "attention_backend"},
    {"use-flash-attn", Kind::Bool, "use_flash_attn"},
    {"no-masked-softmax-fusion", Kind::Bool, "no_softmax_fusion"}, {"no-bias-swiglu-fusion", Kind::Bool, "no_swiglu_fusion"},
    {"no-bias-gelu-fusion", Kind::Bool, "no_gelu_fusion"}, {"no-bias-dropout-fusion", Kind::Bool, "no_dropout_fusion"},
    {"no-rope-fusion", Kind::Bool, "no_rope_fusion"}, {"no-persist-layer-norm", Kind::Bool, "no_persist_ln"},
    {"no-gradient-accumulation-fusion", Kind::Bool, "no_grad_acc_fusion"},
    {"use-megatron-fsdp", Kind::Bool, "megatron_fsdp"}, {"use-custom-fsdp", Kind::Bool, "megatron_fsdp"},
    {"data-parallel-sharding-strategy", Kind::One, "sharding_strategy"},
    // model
    {"num-layers", Kind::One, "layers"}, {"hidden-size", Kind::One, "hidden"},
    {"ffn-hidden-size", Kind::One, "ffn_hidden"}, {"num-attention-heads", Kind::One, "heads"},
    {"group-query-attention", Kind::Bool, "gqa"}, {"num-query-groups", Kind::One, "kv_heads"},
    {"kv-channels", Kind::One, "head_dim"}, {"vocab-size", Kind::One, "vocab"},
    {"padded-vocab-size", Kind::One, "padded_vocab"},
    {"untie-embeddings-and-output-weights", Kind::Bool, "untie"},
    {"swiglu", Kind::Bool, "swiglu"}, {"quick-geglu", Kind::Bool, "quick_geglu"},
    {"num-experts", Kind::One, "experts"}, {"moe-router-topk", Kind::One, "topk"},
    {"moe-router-num-groups", Kind::One, "router_groups"}, {"moe-router-group-topk", Kind::One, "router_group_topk"},
    {"moe-ffn-hidden-size", Kind::One, "moe_ffn_hidden"},
    {"moe-shared-expert-intermediate-size", Kind::One, "shared_ffn_hidden"},
    {"moe-layer-freq", Kind::One, "layer_freq"}, {"moe-expert-capacity-factor", Kind::One, "capacity_factor"},
    {"moe-token-dispatcher-type", Kind::One, "token_dispatcher"}, {"moe-grouped-gemm", Kind::Bool, "grouped_gemm"},
    {"multi-latent-attention", Kind::Bool, "mla"}, {"q-lora-rank", Kind::One, "q_lora_rank"},
    {"kv-lora-rank", Kind::One, "kv_lora_rank"}, {"qk-head-dim", Kind::One, "qk_head_dim"},
    {"qk-pos-emb-head-dim", Kind::One, "qk_rope_head_dim"}, {"v-head-dim", Kind::One, "v_head_dim"},
    {"bf16", Kind::Bool, "bf16"}, {"fp16", Kind::Bool, "fp16"},
    {"accumulate-allreduce-grads-in-fp32", Kind::Bool, "fp32_grads"},
    {"grad-reduce-in-bf16", Kind::Bool, "bf16_grads"}, {"main-grads-dtype", Kind::One, "main_grads_dtype"},
};

// Megatron-LM flags (megatron/training/arguments.py and TransformerConfig) the reader does not model
// that change the step time: named in every run's notes (megatron_flag_changes_speed).
constexpr std::string_view kSpeedFlags[] = {
    "delay-wgrad-compute", "moe-pad-expert-input-to-capacity", "moe-token-drop-policy", "moe-permute-fusion",
    "moe-router-fusion", "moe-shared-expert-overlap", "moe-router-padding-for-fp8", "moe-router-padding-for-quantization",
    "moe-enable-deepep", "moe-flex-dispatcher-backend", "moe-router-force-load-balancing", "cross-entropy-loss-fusion",
    "cross-entropy-fusion-impl", "use-precision-aware-optimizer", "fp8-param-gather", "cpu-offloading",
    "fine-grained-activation-offloading", "defer-embedding-wgrad-compute", "tp-comm-overlap-cfg", "mtp-num-layers",
    "manual-gc", "empty-unused-memory-level", "overlap-param-gather-with-optimizer-step", "log-params-norm",
    "log-num-zeros-in-grad", "moe-layer-recompute", "optimizer-cpu-offload"};

const Flag* modeled(const std::string& name) {
    const auto* it = std::find_if(std::begin(kFlags), std::end(kFlags), [&name](const Flag& f) { return name == f.name; });
    return it == std::end(kFlags) ? nullptr : it;
}

// "--nproc_per_node" → "nproc-per-node".
std::string dashed(const std::string& flag) {
    const auto start = flag.find_first_not_of('-');
    std::string out = start == std::string::npos ? std::string() : flag.substr(start);
    std::replace(out.begin(), out.end(), '_', '-');
    return out;
}

bool is_number(const std::string& w) {
    char* end = nullptr;
    errno = 0;
    (void)std::strtod(w.c_str(), &end);
    return !w.empty() && end == w.c_str() + w.size();
}

// A word that is a value, not an option: argparse takes "-2" as a value.
bool value_like(const ScriptWord& w) {
    return w.text.empty() || w.text[0] != '-' || w.text == "-" || is_number(w.text);
}

bool is_program(const std::string& w) {
    const std::string base = w.substr(w.rfind('/') == std::string::npos ? 0 : w.rfind('/') + 1);
    return base.rfind("python", 0) == 0 || base == "torchrun" || base == "deepspeed" || base == "bash" || base == "sh" ||
           (base.size() > 3 && base.compare(base.size() - 3, 3, ".py") == 0);
}

// "--env NAME=VALUE" naming the variable of an unresolved value ("$NUM_LAYERS", "${TP:-x}").
std::string env_fix(const std::string& raw) {
    const auto dollar = raw.find('$');
    if (dollar == std::string::npos || dollar + 1 >= raw.size() || raw[dollar + 1] == '(') {
        return "write the value in the script (plan-layout runs no command)";
    }
    std::size_t b = dollar + (raw[dollar + 1] == '{' ? 2 : 1);
    std::size_t e = b;
    while (e < raw.size() && (std::isalnum(static_cast<unsigned char>(raw[e])) != 0 || raw[e] == '_')) {
        ++e;
    }
    const std::string name = raw.substr(b, e - b);
    return name.empty() ? "write the value in the script" : "give --env " + name + "=VALUE or set it in the script";
}

}  // namespace

void Mapper::scan(const std::vector<ScriptWord>& words) {
    for (std::size_t i = 0; i < words.size(); ++i) {
        const ScriptWord& w = words[i];
        const bool option = w.text.size() > 1 && w.text[0] == '-' && !is_number(w.text);
        if (!option) {
            if (w.unresolved) {
                out_.ignored.push_back({w.text, "(not known: " + *w.unresolved + ")", where(w.line)});
            }
            continue;
        }
        const auto eq = w.text.find('=');
        const std::string spelled = w.text.substr(0, eq);
        const bool long_flag = w.text.rfind("--", 0) == 0 && spelled.find('$') == std::string::npos;
        const Flag* f = long_flag ? modeled(dashed(spelled)) : nullptr;
        Given g{spelled, {}, w.line, std::nullopt, ""};
        if (eq != std::string::npos) {
            g.values.push_back(w.text.substr(eq + 1));
            g.raw = g.values.back();
            g.unresolved = w.unresolved;
        }
        const bool takes = f == nullptr || f->kind != Kind::Bool;
        for (std::size_t j = i + 1; takes && eq == std::string::npos && j < words.size() && value_like(words[j]); ++j) {
            if (f == nullptr ? is_program(words[j].text) : (f->kind == Kind::One && !g.values.empty())) {
                break;
            }
            g.values.push_back(words[j].text);
            g.raw += (g.raw.empty() ? "" : " ") + words[j].text;
            g.unresolved = g.unresolved ? g.unresolved : words[j].unresolved;
            i = j;
        }
        if (f == nullptr) {
            out_.ignored.push_back({spelled, g.raw, where(w.line)});
            continue;
        }
        if (f->kind == Kind::Bool && eq != std::string::npos) {
            throw input_error(where(w.line), w.text + ": " + spelled + " takes no value (a store_true flag)",
                              "write " + spelled + " alone");
        }
        if (f->kind != Kind::Bool && g.values.empty()) {
            throw input_error(where(w.line), spelled + " needs a value", "write " + spelled + " followed by its value");
        }
        given_[f->key] = std::move(g);
    }
}

MegatronArgs Mapper::build() {
    cluster_and_parallel();
    training();
    model();
    return std::move(out_);
}

const Given* Mapper::get(const char* key) const {
    const auto it = given_.find(key);
    return it == given_.end() ? nullptr : &it->second;
}

void Mapper::put(const std::string& pointer, nlohmann::json v, const Given& g, const std::string& note) {
    if (moe_pending_ && pointer.rfind("/model/moe/", 0) == 0) {
        out_.moe_modifiers[pointer] = std::move(v);
    } else {
        out_.layout[nlohmann::json::json_pointer(pointer)] = std::move(v);
    }
    out_.sources[pointer] = where(g.line) + note;
    out_.flags[pointer] = g.flag;
}

void Mapper::put_default(const std::string& pointer, nlohmann::json v, const std::string& what) {
    out_.layout[nlohmann::json::json_pointer(pointer)] = std::move(v);
    out_.sources[pointer] = file_ + " (Megatron default" + what + ")";
}

const std::string& Mapper::text(const Given& g, std::size_t k) const {
    if (g.unresolved) {
        throw input_error(where(g.line), g.flag + " " + g.raw + ": " + *g.unresolved, env_fix(g.raw));
    }
    return g.values.at(k);
}

std::int64_t Mapper::integer(const Given& g, std::int64_t min, std::int64_t max, std::size_t k) const {
    const std::string& t = text(g, k);
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (t.empty() || end != t.c_str() + t.size() || (t[0] != '-' && (t[0] < '0' || t[0] > '9'))) {
        throw input_error(where(g.line), g.flag + " " + t + ": '" + t + "' is not an integer",
                          "give a whole number, e.g. " + g.flag + " " + std::to_string(std::max<std::int64_t>(min, 1)));
    }
    if (errno == ERANGE || v < min || v > max) {
        const bool low = errno == ERANGE ? t[0] == '-' : v < min;
        throw input_error(where(g.line),
                          g.flag + " " + t + ": " + t + " is " + (low ? "smaller" : "larger") + " than " +
                              std::to_string(low ? min : max),
                          std::string("give a value of at ") + (low ? "least " : "most ") + std::to_string(low ? min : max));
    }
    return v;
}

double Mapper::number(const Given& g, double min, double max) const {
    const std::string& t = text(g);
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size() || !(v >= min && v <= max)) {
        throw input_error(where(g.line), g.flag + " " + t + ": not a number from " + std::to_string(min) + " to " +
                                             std::to_string(max),
                          "give a number in that range");
    }
    return v;
}

std::string Mapper::choice(const Given& g, const std::vector<std::string>& choices) const {
    const std::string& t = text(g);
    if (std::find(choices.begin(), choices.end(), t) == choices.end()) {
        std::string list;
        for (const auto& c : choices) {
            list += (list.empty() ? "" : ", ") + c;
        }
        throw input_error(where(g.line), g.flag + " " + t + ": not one of Megatron-LM's choices", "use one of " + list);
    }
    return t;
}

void Mapper::count(const char* key, const std::string& pointer, std::int64_t min, std::int64_t max) {
    if (const Given* g = get(key)) {
        put(pointer, integer(*g, min, max), *g);
    }
}

void Mapper::flag(const char* key, const std::string& pointer) {
    if (const Given* g = get(key)) {
        put(pointer, true, *g);
    }
}

void Mapper::cluster_and_parallel() {
    if (const Given* g = get("nodes")) {
        const std::string& t = text(*g);
        const auto colon = t.find(':');
        if (colon == std::string::npos) {
            put("/cluster/nodes", integer(*g, 1, kMaxNodes), *g);
        } else {
            const std::int64_t lo = integer(Given{g->flag, {t.substr(0, colon)}, g->line, {}, t}, 1, kMaxNodes);
            const std::int64_t hi = integer(Given{g->flag, {t.substr(colon + 1)}, g->line, {}, t}, lo, kMaxNodes);
            put("/cluster/nodes", hi, *g, lo == hi ? "" : " (" + g->flag + " " + t + ": the largest size)");
        }
    }
    if (const Given* g = get("gpus")) {
        const std::string& t = text(*g);
        if (!t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            put("/cluster/gpus_per_node", integer(*g, 1, kMaxGpusPerNode), *g);
        } else if (t.empty() || t[0] != '-') {
            ignore(*g);  // torchrun's gpu, auto, cpu: the count comes from the cluster
        } else {
            (void)integer(*g, 1, kMaxGpusPerNode);
        }
    }
    count("world", "/parallel/world", 1, kMaxWorld);
    for (const char* k : {"tp", "pp", "cp", "ep", "etp", "dp", "gtp", "egtp", "dist_opt_instances"}) {
        count(k, std::string("/parallel/") + k, 1, kMaxWorld);
    }
    count("rank_offset", "/parallel/rank_offset", 0, kMaxWorld);
    count("local_world_size", "/parallel/local_world_size", 1, kMaxWorld);
    virtual_pipeline();
    const Given* mapping = get("tp_pp_dp");
    const Given* order = get("order");
    if (mapping != nullptr && order != nullptr) {
        throw input_error(where(mapping->line), mapping->flag + " conflicts with " + order->flag + " (line " +
                                                    std::to_string(order->line) + ")",
                          "give one of the two");
    }
    if (mapping != nullptr) {
        put("/parallel/order", "tp-cp-ep-pp-dp", *mapping);
    } else if (order != nullptr) {
        put("/parallel/order", text(*order), *order);
    }
    if (const Given* g = get("hierarchical_cp")) {
        nlohmann::json sizes = nlohmann::json::array();
        for (std::size_t k = 0; k < g->values.size(); ++k) {
            std::string item;
            for (const char c : text(*g, k) + ",") {
                if (c != ',') {
                    item += c;
                } else if (!item.empty()) {
                    sizes.push_back(integer(Given{g->flag, {item}, g->line, {}, item}, 1, kMaxWorld));
                    item.clear();
                }
            }
        }
        put("/parallel/hierarchical_cp", sizes, *g);
    }
    flag("hybrid_cp", "/parallel/hybrid_cp");
}

void Mapper::virtual_pipeline() {
    const Given* per_stage = get("layers_per_stage");
    const Given* stages = get("stages");
    const Given* direct = get("vpp");
    std::vector<const Given*> ways;
    for (const Given* g : {direct, per_stage, stages}) {
        if (g != nullptr) {
            ways.push_back(g);
        }
    }
    if (ways.size() > 1) {
        throw input_error(where(ways[1]->line), ways[1]->flag + " conflicts with " + ways[0]->flag + " (line " +
                                                    std::to_string(ways[0]->line) + ")",
                          "give one way of setting the virtual pipeline size (Megatron-LM refuses both)");
    }
    if (direct != nullptr) {
        put("/parallel/vpp", integer(*direct, 1, kMaxWorld), *direct);
        return;
    }
    std::int64_t v = 0;
    std::string note;
    const Given* g = stages != nullptr ? stages : per_stage;
    if (stages != nullptr) {
        v = integer(*stages, 1, kMaxWorld);
    } else if (per_stage != nullptr) {
        const Given* layers = get("layers");
        if (layers == nullptr) {
            throw input_error(where(per_stage->line), per_stage->flag + " needs --num-layers to give the virtual pipeline size",
                              "add --num-layers, or give --num-virtual-stages-per-pipeline-rank");
        }
        std::int64_t n = integer(*layers, 1, kMaxSize) + (get("embedding_split") != nullptr ? 1 : 0) +
                         (get("loss_split") != nullptr ? 1 : 0);
        const std::int64_t pp = get("pp") != nullptr ? integer(*get("pp"), 1, kMaxWorld) : 1;
        const std::int64_t per = integer(*per_stage, 1, kMaxSize);
        if (n % pp != 0 || (n / pp) % per != 0) {
            throw input_error(where(per_stage->line),
                              per_stage->flag + " " + std::to_string(per) + ": " + std::to_string(n) + " layers over pp " +
                                  std::to_string(pp) + " are " + (n % pp != 0 ? "not a whole number per stage" :
                                                                     std::to_string(n / pp) + " per stage, not a multiple of it"),
                              "Megatron-LM refuses this too: make the layers per stage a multiple of it");
        }
        v = n / pp / per;
        note = " (" + std::to_string(n) + " layers / pp " + std::to_string(pp) + " / " + std::to_string(per) + ")";
    }
    if (v > 1) {
        put("/parallel/vpp", v, *g, note);
    }
}

// Megatron-LM's overlap defaults (arguments.py, distributed_data_parallel.py): grad reduce and
// param gather off unless flagged; p2p overlapped only in the interleaved schedule; written as
// defaults only when the words give a training flag (a launch, not a few parallel sizes).
void Mapper::overlap() {
    const bool launch = out_.layout.contains("training");
    const Given* grad = get("overlap_grad");
    const Given* param = get("overlap_param");
    if (const Given* g = grad != nullptr ? grad : param) {
        put("/training/overlap/dp", true, *g);  // --overlap-param-gather requires it
    } else if (launch) {
        put_default("/training/overlap/dp", false, ": no --overlap-grad-reduce");
    }
    if (param != nullptr) {
        put("/training/overlap/param_gather", true, *param);
    } else if (launch) {
        put_default("/training/overlap/param_gather", false, ": no --overlap-param-gather");
    }
    if (const Given* g = get("bucket_size")) {
        put("/training/overlap/bucket_params", integer(*g, 1, kMaxBucketParams), *g);
    }
    if (const Given* g = get("no_overlap_p2p")) {
        put("/training/overlap/pp", false, *g);
    } else if (launch && !out_.layout.contains(nlohmann::json::json_pointer("/parallel/vpp"))) {
        put_default("/training/overlap/pp", false, ": p2p overlapped only in the interleaved schedule");
    }
}

// The flags that change how Megatron-LM keeps memory (docs/cost-model.md §8): Megatron-FSDP
// (--use-megatron-fsdp, or the older --use-custom-fsdp, with --data-parallel-sharding-strategy,
// default no_shard; without Megatron-FSDP the strategy does nothing). Attention that materializes
// the s x s scores follows --attention-backend and --transformer-impl (kernels(), attention_backend()).
void Mapper::memory_flags() {
    if (const Given* g = get("megatron_fsdp")) {
        const Given* strategy = get("sharding_strategy");
        const std::string s =
            strategy != nullptr ? choice(*strategy, {"no_shard", "optim", "optim_grads", "optim_grads_params"}) : "no_shard";
        put("/training/states/megatron_fsdp", s, strategy != nullptr ? *strategy : *g,
            strategy != nullptr ? "" : " (--data-parallel-sharding-strategy's default no_shard)");
    }
}

void Mapper::training() {
    flag("sequence_parallel", "/training/sequence_parallel");
    count("seq_len", "/training/seq_len", 1, kMaxSize);
    count("micro_batch", "/training/micro_batch", 1, kMaxSize);
    count("global_batch", "/training/global_batch", 1, kMaxSize);
    flag("distributed_optimizer", "/training/distributed_optimizer");
    if (const Given* g = get("recompute_activations")) {
        put("/training/recompute", "selective", *g);  // Megatron: --recompute-activations sets selective
    } else if (const Given* r = get("recompute")) {
        put("/training/recompute", choice(*r, {"full", "selective"}), *r);
    }
    if (const Given* g = get("recompute_method")) {
        put("/training/recompute_method", choice(*g, {"uniform", "block"}), *g);
    }
    count("recompute_layers", "/training/recompute_layers", 0, kMaxSize);
    if (const Given* g = get("recompute_modules")) {
        // nargs='*' in arguments.py: each value one of transformer_config.py's modules.
        const std::vector<std::string> known(kRecomputeModules.begin(), kRecomputeModules.end());
        nlohmann::json modules = nlohmann::json::array();
        for (std::size_t k = 0; k < g->values.size(); ++k) {
            Given one = *g;
            one.values = {text(*g, k)};
            modules.push_back(choice(one, known));
        }
        put("/training/recompute_modules", modules, *g);
    }
    if (const Given* g = get("attention_dropout")) {
        put("/training/attention_dropout", number(*g, 0, 1), *g);
    }
    if (const Given* g = get("hidden_dropout")) {
        put("/training/hidden_dropout", number(*g, 0, 1), *g);
    }
    overlap();
    memory_flags();
    if (const Given* g = get("fp8")) {
        put("/training/fp8", choice(*g, {"e4m3", "hybrid"}), *g);
        if (const Given* r = get("fp8_recipe")) {
            put("/training/fp8_recipe", choice(*r, {"delayed", "tensorwise", "blockwise", "mxfp8"}), *r);
        }
    }
    if (const Given* g = get("tp_comm_overlap")) {
        put("/training/overlap/tp", true, *g);
    }
    if (const Given* g = get("overlap_moe_ep")) {  // the expert all-to-all under another micro-batch's compute
        put("/training/overlap/ep", true, *g);
    }
    kernels();
    attention_backend();
    cuda_graph();
}

// --transformer-impl and --attention-backend as the implementation whose kernels are priced. The
// local implementation is measured with every fusion off; a fusion flag left on is noted as priced so.
void Mapper::kernels() {
    const Given* impl = get("transformer_impl");
    if (impl == nullptr) {
        return;
    }
    const bool local = choice(*impl, {"local", "transformer_engine", "inference_optimized"}) == "local";
    std::string note;
    if (local) {
        for (const auto& [key, flag] : {std::pair<const char*, const char*>{"no_softmax_fusion", "--no-masked-softmax-fusion"},
                                        {"no_swiglu_fusion", "--no-bias-swiglu-fusion"},
                                        {"no_dropout_fusion", "--no-bias-dropout-fusion"},
                                        {"no_rope_fusion", "--no-rope-fusion"}}) {
            if (get(key) == nullptr) {
                note += std::string(note.empty() ? " (priced with every fusion off, as measured; not given: " : ", ") + flag;
            }
        }
        note += note.empty() ? "" : ")";
    }
    put("/training/implementation", local ? "megatron-local" : "megatron-te", *impl, note);
}

// CUDA graphs as arguments.py settles them: --enable-cuda-graph is --cuda-graph-impl local,
// --external-cuda-graph transformer_engine; --cuda-graph-scope is --cuda-graph-modules' old name,
// whose "full_iteration" sets --cuda-graph-impl full_iteration and "full" the whole layer (an
// empty list); with --cuda-graph-impl none the modules have no effect.
void Mapper::cuda_graph() {
    std::string impl;
    const Given* impl_given = get("cuda_graph_impl");
    if (impl_given != nullptr) {
        impl = choice(*impl_given, {"none", "local", "transformer_engine", "full_iteration"});
    } else if ((impl_given = get("enable_cuda_graph")) != nullptr) {
        impl = "local";
    } else if ((impl_given = get("external_cuda_graph")) != nullptr) {
        impl = "transformer_engine";
    }
    const Given* mods = get("cuda_graph_modules") != nullptr ? get("cuda_graph_modules") : get("cuda_graph_scope");
    std::vector<std::string> known(kCudaGraphModules.begin(), kCudaGraphModules.end());
    known.insert(known.end(), {"full", "full_iteration"});
    nlohmann::json modules = nlohmann::json::array();
    for (std::size_t k = 0; mods != nullptr && k < mods->values.size(); ++k) {
        Given one = *mods;
        one.values = {text(*mods, k)};
        const std::string m = choice(one, known);
        if (m == "full_iteration" && (impl.empty() || impl == "none")) {
            impl = "full_iteration";
            impl_given = mods;
        } else if (m != "full" && m != "full_iteration") {
            modules.push_back(m);
        }
    }
    if (impl.empty() || impl == "none") {
        return;
    }
    put("/training/cuda_graph", impl == "full_iteration" ? "full_iteration" : "layers", *impl_given,
        impl == "full_iteration" ? "" : " (--cuda-graph-impl " + impl + ")");
    if (impl != "full_iteration" && !modules.empty()) {
        put("/training/cuda_graph_modules", modules, *mods);
    }
}

void Mapper::attention_backend() {
    if (const Given* g = get("attention_backend")) {
        const std::string b = choice(*g, {"auto", "flash", "fused", "unfused", "local"});
        put("/training/attention_backend", b == "fused" ? "cudnn" : b == "local" ? "unfused" : b, *g,
            b == "fused" ? " (cuDNN fused attention)" : "");
    } else if (const Given* f = get("use_flash_attn")) {
        put("/training/attention_backend", "flash", *f);
    }
}

}  // namespace planlayout::megatron

namespace planlayout {

bool megatron_flag_changes_speed(const std::string& flag) {
    const std::string name = megatron::dashed(flag);
    return std::find(std::begin(megatron::kSpeedFlags), std::end(megatron::kSpeedFlags), name) != std::end(megatron::kSpeedFlags);
}

MegatronArgs megatron_args_from_words(const std::vector<ScriptWord>& words, const std::string& file) {
    megatron::Mapper m(file);
    m.scan(words);
    return m.build();
}

}  // namespace planlayout
