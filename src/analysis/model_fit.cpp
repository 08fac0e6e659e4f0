// Analysis: the model against the parallel sizes, as Megatron-LM's argument checks do.
#include "planlayout/analysis/model_fit.hpp"

#include "planlayout/error.hpp"
#include "planlayout/model/numbers/training.hpp"

namespace planlayout {
namespace {

std::string divisors_up_to_text(std::int64_t n, std::int64_t limit) {
    std::string out;
    for (std::int64_t d = 1; d <= n && d <= limit; ++d) {
        if (n % d == 0) {
            out += (out.empty() ? "" : ", ") + std::to_string(d);
        }
    }
    return out;
}

}  // namespace

void check_model_fits(const ModelSpec& model, const ResolvedSpec& spec, const std::string& file,
                      std::vector<std::string>& warnings) {
    if (model.heads > 0 && model.heads % spec.tp != 0) {
        throw input_error(file + " (/model/heads)",
                          std::to_string(model.heads) + " attention heads are not divisible by tp " + std::to_string(spec.tp),
                          "Megatron-LM refuses this; use a tp that divides the heads (" +
                              divisors_up_to_text(model.heads, numbers::kTpDivisorsShown.count()) + ")");
    }
    if (model.kv_heads > 0 && model.kv_heads % spec.tp != 0) {
        throw input_error(file + " (/model/kv_heads)",
                          std::to_string(model.kv_heads) + " query groups are not divisible by tp " + std::to_string(spec.tp),
                          "Megatron-LM refuses this; use a tp that divides the query groups (" +
                              divisors_up_to_text(model.kv_heads, numbers::kTpDivisorsShown.count()) + ")");
    }
    if (model.experts > 0 && model.experts % spec.ep != 0) {
        throw input_error(file + " (/model/moe/experts)",
                          std::to_string(model.experts) + " experts are not divisible by ep " + std::to_string(spec.ep),
                          "Megatron-LM refuses this; use an ep that divides the experts (" +
                              divisors_up_to_text(model.experts, numbers::kEpDivisorsShown.count()) + ")");
    }
    if (model.vocab == 0 && model.dense_params == 0) {
        warnings.emplace_back("the vocabulary size is not given (a launch script that names a tokenizer file does not "
                              "say it): the embedding and output layer are left out of the parameters and memory; "
                              "give --vocab-size V or --model-config config.json");
    }
    if (model.layers > 0 && model.layers % spec.pp != 0) {
        warnings.push_back(std::to_string(model.layers) + " layers do not divide into pp " + std::to_string(spec.pp) +
                           " equal stages: Megatron-LM needs --decoder-first-pipeline-num-layers or "
                           "--decoder-last-pipeline-num-layers for that (the plan counts the largest stage)");
    }
}

}  // namespace planlayout
