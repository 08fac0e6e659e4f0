// Ingest: the flags of a Megatron-LM launch (torchrun's and Megatron-LM's, from a launch script
// or a command line) as layout values, each with the file:line it came from.
//
// Flags are read as argparse reads them (Megatron-LM megatron/training/arguments.py, allow_abbrev
// off): `--flag value` or `--flag=value`, `_` or `-` inside the name, store_true flags take no
// value, a flag given twice keeps its last value. plan-layout's own spellings of the parallel
// flags (--tp, --world, --order, ...) are read too. Flags plan-layout does not model are listed
// in `ignored` with their values (every value word up to the next flag or the Python script).
//
// What is written (JSON pointers into a layout; only what the words give, plus the defaults
// named below):
//   /cluster/nodes            --nnodes N (torchrun; N:N; MIN:MAX gives MAX, said in its source)
//   /cluster/gpus_per_node    --nproc-per-node G (a number; gpu/auto/cpu are listed as ignored)
//   /parallel/{tp,pp,cp,ep,etp}  --tensor-, --pipeline-, --context-, --expert-model-, --expert-tensor-parallel-size
//   /parallel/vpp             --num-virtual-stages-per-pipeline-rank V, or num-layers / pp /
//                             --num-layers-per-virtual-pipeline-stage (1 is Megatron's "none": not written)
//   /parallel/order           --use-tp-pp-dp-mapping: "tp-cp-ep-pp-dp"
//   /parallel/{dist_opt_instances,hierarchical_cp,hybrid_cp}
//   /training/{seq_len,micro_batch,global_batch,sequence_parallel,distributed_optimizer,recompute,
//              recompute_method,recompute_layers,fp8}, /training/overlap/dp (--overlap-grad-reduce
//              or --overlap-param-gather), /training/overlap/param_gather (--overlap-param-gather),
//              /training/overlap/bucket_params (--ddp-bucket-size), /training/overlap/pp
//              (--no-overlap-p2p-communication)
//   /model/{layers,hidden,ffn_hidden,heads,kv_heads,head_dim,vocab,tied_embeddings,ffn_gated}
//   /model/moe/{experts,topk,ffn_hidden,shared_ffn_hidden,layer_freq,capacity_factor,
//               token_dispatcher,grouped_gemm}   (with --num-experts only)
//   /model/mla/{q_lora_rank,kv_lora_rank,qk_head_dim,qk_rope_head_dim,v_head_dim}
//                                                  (with --multi-latent-attention only)
//   /model/dtype_bytes/{activation,param,grad}    --bf16 / --fp16, as Megatron reduces gradients
// Megatron's overlap defaults, written when the words give any training flag: overlap/dp and
// overlap/param_gather false without their flags, overlap/pp false without virtual stages
// (Megatron turns overlap_p2p_comm off outside the interleaved schedule).
// Megatron's defaults, written when the words give any model flag and not the one that changes
// it, sourced "FILE (Megatron default)": tied_embeddings true, ffn_gated false, dtype_bytes 4
// (fp32), moe topk 2, kv_heads 1 with --group-query-attention alone, and the MLA sizes of
// arguments.py (kv_lora_rank 32, qk_head_dim 128, qk_rope_head_dim 64, v_head_dim 128; no
// q_lora_rank: Megatron's default is no query compression).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/ingest/launch_script.hpp"

namespace planlayout {

/// A flag plan-layout does not model (or one whose value it cannot use), as given.
struct IgnoredFlag {
    std::string flag;   // as written: "--lr"; an unknown word standing alone: "$EXTRA_ARGS"
    std::string value;  // its value words, joined by a blank ("" for a flag without one)
    std::string where;  // "launch.sh:12"
};

struct MegatronArgs {
    nlohmann::json layout = nlohmann::json::object();  // {"cluster": ..., "parallel": ..., "model": ..., "training": ...}
    std::map<std::string, std::string> sources;        // JSON pointer → "launch.sh:12" (or "launch.sh (Megatron default)")
    std::map<std::string, std::string> flags;          // JSON pointer → the flag as written ("--nproc_per_node")
    std::vector<IgnoredFlag> ignored;
    // MoE flags given without --num-experts (--moe-grouped-gemm, --moe-token-dispatcher-type, ...):
    // the experts may come from elsewhere (--model-config), so they apply when the composed model
    // has experts (JSON pointer → value; their sources and flags as above).
    std::map<std::string, nlohmann::json> moe_modifiers;
};

/// Whether a Megatron-LM flag the reader does not model changes the step time (its kernels, what
/// overlaps, what is recomputed or offloaded, extra work per step): such flags are named in every
/// run's notes, the others only counted (docs/inputs.md). `flag` as written ("--delay-wgrad-compute",
/// "--delay_wgrad_compute").
[[nodiscard]] bool megatron_flag_changes_speed(const std::string& flag);

/// The layout values of words (read_launch_script's, or a command line's with line 0). `file`
/// names them in sources and errors ("file:LINE"). Throws Error (BadInput) naming file:LINE and
/// the flag for: a modeled flag whose value is unresolved (with the --env that sets it), a value
/// that is not a number in range or not one of Megatron's choices, a modeled flag without its
/// value or a store_true flag given one, and the combinations Megatron-LM refuses (--bf16 with
/// --fp16, both ways of setting the virtual pipeline size, a --moe-layer-freq pattern whose
/// length is not --num-layers, --order with --use-tp-pp-dp-mapping).
[[nodiscard]] MegatronArgs megatron_args_from_words(const std::vector<ScriptWord>& words, const std::string& file);

/// Megatron-LM's --moe-layer-freq pattern, a Python list expression of 0s and 1s such as
/// "([0]*3+[1]*58)" or "[1,0,1]*2", expanded; nullopt when the text is not one.
[[nodiscard]] std::optional<std::vector<int>> expand_layer_pattern(const std::string& text);

}  // namespace planlayout
