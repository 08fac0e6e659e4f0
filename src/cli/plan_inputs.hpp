// CLI: the inputs users have — a layout, a cluster (spec, capture, template × nodes, hostfile),
// a launch script, a Hugging Face config.json, flags — composed into one layout for plan().
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "context.hpp"
#include "planlayout/ingest/megatron_args.hpp"
#include "planlayout/plan.hpp"

namespace planlayout::cli {

/// What a command takes from the inputs.
struct ComposeOptions {
    bool parallel = true;         // the parallel flags make the spec (search enumerates: false)
    bool embedded_default = true; // with no input at all, the embedded default layout (analyze)
    bool need_cluster = true;     // a cluster must come from somewhere
};

/// The layout composed from every input, ready for plan().
struct ComposedInputs {
    PlanRequest request;             // layout_json, sources, layout_name, base_dir
    std::vector<IgnoredFlag> ignored;  // flags of the launch script that plan-layout does not model
    std::vector<std::string> notes;    // what the inputs disagreed on, and which one won
    std::vector<std::string> files;    // the files read (inputs, refused as -o)
    std::optional<TrainingCommand> training;  // --megatron-args: the Python script and its arguments
    std::string training_file;                // the script's name as errors and comments give it
};

/// Composes the layout: LAYOUT (a file, or none) < --cluster / --nodes / --node / --hostfile <
/// --model-config < --megatron-args < the flags given directly. Each value keeps its source.
/// layout_path: the command's LAYOUT positional, if any.
[[nodiscard]] ComposedInputs compose_inputs(const ParsedArgs& args, Context& ctx, const ComposeOptions& options,
                                            const std::string* layout_path);

/// True when the command line gives any input besides a LAYOUT (a cluster, a script, a config,
/// model or parallel flags).
/// parallel: whether the parallel flags count (search has its own --ep and --world).
[[nodiscard]] bool has_composing_inputs(const ParsedArgs& args, bool parallel = true);

/// The plan request of analyze-like commands: compose_inputs with the command's LAYOUT
/// positional (first), its notes written to ctx.err.
[[nodiscard]] PlanRequest plan_request_of(const ParsedArgs& args, Context& ctx, const ComposeOptions& options = {});

/// `--measured-step ARM=SECONDS|LOG` into the layout (training.measured_step_time_s and
/// measured_transport, with their source); nothing when the flag is absent. Files read are added.
void apply_measured_step(nlohmann::json& layout, std::map<std::string, std::string>& sources,
                         std::vector<std::string>& notes, const ParsedArgs& args, Context& ctx,
                         std::vector<std::string>& files);

/// The resolved layout of a report as commented JSON text (what --save-layout writes).
[[nodiscard]] std::string saved_layout_text(const Report& report, const PlanRequest& request, const std::string& command);

/// With `--save-layout FILE`: writes the report's resolved layout there (atomically, every value
/// explicit, each value's source as a comment beside it).
void save_layout_if_asked(const ParsedArgs& args, const Report& report, const PlanRequest& request, Context& ctx);

/// Writes the --verbose listing of flags not modelled, and the notes, to ctx.err.
void report_input_notes(const ComposedInputs& inputs, const ParsedArgs& args, Context& ctx);

}  // namespace planlayout::cli
