// Ingest: the model flags of a Megatron-LM launch as layout values (see megatron_args.hpp).
// Defaults are Megatron-LM's (megatron/training/arguments.py, argument_utils.py): embeddings tied
// unless --untie-embeddings-and-output-weights, gated FFN only with --swiglu or --quick-geglu,
// fp32 without --bf16/--fp16, bf16 gradients reduced in fp32 unless --grad-reduce-in-bf16.
#include "planlayout/error.hpp"
#include "megatron_mapper.hpp"

namespace planlayout::megatron {

void Mapper::model() {
    count("layers", "/model/layers", 1, kMaxSize);
    count("hidden", "/model/hidden", 1, kMaxSize);
    count("ffn_hidden", "/model/ffn_hidden", 1, kMaxSize);
    count("heads", "/model/heads", 1, kMaxSize);
    count("head_dim", "/model/head_dim", 1, kMaxSize);
    if (const Given* gqa = get("gqa")) {
        if (const Given* g = get("kv_heads")) {
            put("/model/kv_heads", integer(*g, 1, kMaxSize), *g);
        } else {
            put("/model/kv_heads", 1, *gqa, " (Megatron default --num-query-groups 1)");
        }
    } else if (const Given* g = get("kv_heads")) {
        ignore(*g);  // Megatron reads it only with --group-query-attention
    }
    const Given* vocab = get("vocab");
    if (const Given* padded = get("padded_vocab")) {
        put("/model/vocab", integer(*padded, 1, kMaxSize), *padded);
        if (vocab != nullptr) {
            ignore(*vocab);  // the padded size is the model's
        }
    } else if (vocab != nullptr) {
        put("/model/vocab", integer(*vocab, 1, kMaxSize), *vocab);
    }
    const Given* untie = get("untie");
    if (untie != nullptr) {
        put("/model/tied_embeddings", false, *untie);
    }
    const Given* gated = get("swiglu") != nullptr ? get("swiglu") : get("quick_geglu");
    if (gated != nullptr) {
        put("/model/ffn_gated", true, *gated);
    }
    moe();
    mla();
    dtype();
    if (!out_.layout.contains("model")) {
        return;  // no model flag: no model defaults either
    }
    if (untie == nullptr) {
        put_default("/model/tied_embeddings", true, ": tied embeddings");
    }
    if (gated == nullptr) {
        put_default("/model/ffn_gated", false, ": no --swiglu");
    }
    if (get("bf16") == nullptr && get("fp16") == nullptr) {
        for (const char* k : {"activation", "param", "grad"}) {
            put_default(std::string("/model/dtype_bytes/") + k, 4, " fp32");
        }
    }
}

void Mapper::moe() {
    const Given* experts = get("experts");
    // Without --num-experts the experts may come from a model config: the other MoE flags are held
    // (MegatronArgs::moe_modifiers) and apply where the composed model has experts.
    moe_pending_ = experts == nullptr;
    const std::int64_t e = experts != nullptr ? integer(*experts, 1, kMaxSize) : kMaxSize;
    if (experts != nullptr) {
        put("/model/moe/experts", e, *experts);
    }
    if (const Given* g = get("topk")) {
        put("/model/moe/topk", integer(*g, 1, e), *g);
    } else if (experts != nullptr) {
        put_default("/model/moe/topk", 2, " --moe-router-topk 2");
    }
    count("moe_ffn_hidden", "/model/moe/ffn_hidden", 1, kMaxSize);
    count("shared_ffn_hidden", "/model/moe/shared_ffn_hidden", 1, kMaxSize);
    if (const Given* g = get("layer_freq")) {
        const std::string& t = text(*g);
        if (t.find('[') == std::string::npos) {
            put("/model/moe/layer_freq", integer(*g, 1, kMaxSize), *g);
        } else {
            const auto pattern = expand_layer_pattern(t);
            if (!pattern) {
                throw input_error(where(g->line), g->flag + " " + t + ": not a list of 0s and 1s",
                                  "write Megatron's pattern, e.g. ([0]*3+[1]*58) or [1,0]*12");
            }
            const Given* layers = get("layers");
            if (layers != nullptr && static_cast<std::int64_t>(pattern->size()) != integer(*layers, 1, kMaxSize)) {
                throw input_error(where(g->line),
                                  g->flag + " " + t + ": the pattern has " + std::to_string(pattern->size()) +
                                      " layers, not " + layers->flag + " " + text(*layers),
                                  "give one entry per layer (Megatron-LM refuses this too)");
            }
            put("/model/moe/layer_freq", *pattern, *g);
        }
    }
    if (const Given* g = get("capacity_factor")) {
        put("/model/moe/capacity_factor", number(*g, 0.01, 64), *g);
    }
    if (const Given* g = get("token_dispatcher")) {
        put("/model/moe/token_dispatcher", choice(*g, {"allgather", "alltoall", "flex"}), *g);
    }
    flag("grouped_gemm", "/model/moe/grouped_gemm");
    count("router_groups", "/model/moe/router_groups", 1, kMaxSize);
    count("router_group_topk", "/model/moe/router_group_topk", 1, kMaxSize);
    moe_pending_ = false;
}

void Mapper::mla() {
    struct Dim {
        const char* key;
        int megatron_default;  // arguments.py; 0: none (q_lora_rank None = no query compression)
    };
    static constexpr Dim kDims[] = {
        {"q_lora_rank", 0}, {"kv_lora_rank", 32}, {"qk_head_dim", 128}, {"qk_rope_head_dim", 64}, {"v_head_dim", 128}};
    const bool on = get("mla") != nullptr;
    for (const auto& d : kDims) {
        const std::string pointer = std::string("/model/mla/") + d.key;
        if (const Given* g = get(d.key)) {
            if (on) {
                put(pointer, integer(*g, 1, kMaxSize), *g);
            } else {
                ignore(*g);  // MLA sizes without --multi-latent-attention
            }
        } else if (on && d.megatron_default > 0) {
            put_default(pointer, d.megatron_default, "");
        }
    }
}

void Mapper::dtype() {
    const Given* bf16 = get("bf16");
    const Given* fp16 = get("fp16");
    const Given* fp32_grads = get("fp32_grads");
    const Given* bf16_grads = get("bf16_grads");
    const Given* main = get("main_grads_dtype");
    const bool main_bf16 = main != nullptr && choice(*main, {"fp32", "bf16"}) == "bf16";
    if (bf16 != nullptr && fp16 != nullptr) {
        throw input_error(where(fp16->line), fp16->flag + " conflicts with " + bf16->flag + " (line " +
                                                 std::to_string(bf16->line) + ")",
                          "give one of the two (Megatron-LM refuses both)");
    }
    const Given* half = bf16 != nullptr ? bf16 : fp16;
    if (half == nullptr) {
        for (const Given* g : {fp32_grads, bf16_grads, main}) {
            if (g != nullptr) {
                ignore(*g);  // fp32 training reduces fp32 gradients
            }
        }
        return;
    }
    put("/model/dtype_bytes/activation", 2, *half);
    put("/model/dtype_bytes/param", 2, *half);
    if (bf16 != nullptr && bf16_grads != nullptr) {
        put("/model/dtype_bytes/grad", 2, *bf16_grads);
    } else if (fp32_grads != nullptr) {
        put("/model/dtype_bytes/grad", 4, *fp32_grads);
    } else if (bf16 != nullptr && main_bf16) {
        put("/model/dtype_bytes/grad", 2, *main);
    } else if (bf16 != nullptr) {
        put("/model/dtype_bytes/grad", 4, *bf16, " (Megatron reduces bf16 gradients in fp32 unless --grad-reduce-in-bf16)");
    } else {
        put("/model/dtype_bytes/grad", 2, *fp16);
    }
}

}  // namespace planlayout::megatron
