// Ingest: a Hugging Face config.json (the model's shape as transformers stores it) read into the
// keys of a layout's "model" section (docs/formats/hf-config.md lists what each family maps).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace planlayout {

/// What read_hf_config made of a config.json.
struct HfModel {
    /// A "model" section (docs/formats/layout.md): only the keys the config gave or implied;
    /// model_spec_from_json reads it, filling everything else with its defaults.
    nlohmann::json model = nlohmann::json::object();
    /// For each key written, as a layout pointer ("/model/hidden"), where it came from:
    /// "config.json (hidden_size)", or "derived: how" when it was computed from several fields.
    std::map<std::string, std::string> sources;
    /// Things a reader should check: fields missing and assumed, modules not counted.
    std::vector<std::string> warnings;
    /// Config fields that bear on size or traffic but were not used, each with the reason
    /// ("max_position_embeddings = 131072: ...").
    std::vector<std::string> ignored;
};

/// Reads config.json text; `file` names it in errors and sources. Known families (model_type):
/// llama, mistral, qwen2, qwen3, phi3 (dense), mixtral, qwen2_moe, qwen3_moe, deepseek_v2,
/// deepseek_v3, kimi_k2 (DeepSeek-V3's architecture), gpt_oss, gemma2, gemma3_text/gemma3,
/// llama4_text/llama4, glm4_moe, qwen3_next (docs/formats/hf-config.md maps each). Another
/// model_type throws Error (BadInput) unless allow_unknown_model, when it is read by its common
/// fields with a warning that names every field not read. A language model nested under
/// "text_config" is read from there. Throws Error (BadInput) naming the file, the field and the
/// fix when a required field is missing or out of range.
[[nodiscard]] HfModel read_hf_config(const std::string& text, const std::string& file, bool allow_unknown_model = false);

}  // namespace planlayout
