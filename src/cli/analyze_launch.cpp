// CLI: the scheduler, hostfile and launch formats of analyze (kept apart from cmd_analyze.cpp),
// and the memory flags every non-diagram format of analyze takes.
#include "analyze_launch.hpp"

#include "plan_inputs.hpp"
#include "cost_options.hpp"
#include "planlayout/emit/nccl_topo_emit.hpp"
#include "planlayout/emit/sched_topology_emit.hpp"
#include "planlayout/emit/scheduler_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/plan.hpp"

namespace planlayout::cli {

void apply_memory_flags(const ParsedArgs& parsed, PlanRequest& request) { request.memory_limits = memory_limits_of(parsed); }

int require_fit_code(const ParsedArgs& parsed, const Report& report) {
    if (!parsed.has("--require-fit")) {
        return 0;
    }
    if (!report.memory) {
        throw input_error("--require-fit", "the layout has no \"model\" and \"training\" sections, so no memory estimate",
                          "add them (docs/formats/layout.md), or drop --require-fit");
    }
    const auto fits = report.memory->fits();
    if (!fits) {
        throw input_error("--require-fit", "the memory budget is unknown (" + report.memory->budget.source + ")",
                          "give --gpu-memory SIZE, or add \"gpu_memory_mib\" to the node template");
    }
    return *fits ? 0 : static_cast<int>(ExitCode::CheckFailed);
}

bool is_launch_format(const std::string& format) {
    return format == "scheduler" || format == "hostfile" || format == "launch" || format == "nccl-topo" ||
           format == "slurm-topology" || format == "slurm-topology-yaml" || format == "kueue" || format == "volcano";
}

void require_format_flags(const ParsedArgs& parsed, const std::string& format) {
    const char* const only_with[][3] = {{"--launcher", "launch", "add --format launch, or drop --launcher"},
                                    {"--hostfile-style", "hostfile", "add --format hostfile, or drop --hostfile-style"}};
    for (const auto& [flag, wanted, fix] : only_with) {
        if (parsed.has(flag) && format != wanted) {
            throw input_error(parsed.spelling(flag), std::string("only applies to --format ") + wanted, fix);
        }
    }
}

namespace {

// The parts of a word the job's shell expands (empty: the word is known text). Throws the
// reader's refusal: no writing of the word gives the words bash gives the user's script.
std::vector<LaunchPart> launch_parts(const ScriptWord& w) {
    if (w.refusal) {
        throw input_error(w.refusal->where,
                          w.refusal->what + ": plan-layout cannot write the training command so that the job gets the "
                                            "words bash gives the script",
                          "give its value with --env NAME=VALUE, or write the value into the script");
    }
    std::vector<LaunchPart> out;
    bool runtime = false;
    for (const auto& p : w.parts) {
        out.push_back({p.text, p.expansion, p.quoted});
        runtime = runtime || p.expansion;
    }
    return runtime ? out : std::vector<LaunchPart>{};
}

}  // namespace

int run_launch_format(const ParsedArgs& parsed, const std::string& format, Context& ctx) {
    require_format_flags(parsed, format);
    for (const char* flag : {"--view", "--kind", "--style"}) {
        if (parsed.has(flag)) {
            throw input_error(parsed.spelling(flag), "only applies to diagrams", "add --format dot or --format svg");
        }
    }
    if (parsed.has("--host") && format != "nccl-topo") {
        throw input_error(parsed.spelling("--host"), "only applies to diagrams and --format nccl-topo",
                          "add --format nccl-topo (or dot/svg --view node), or drop --host");
    }
    const auto& pos = parsed.positionals();
    ComposedInputs inputs = compose_inputs(parsed, ctx, {}, pos.empty() ? nullptr : pos.data());
    // The training command's words first: a word the job cannot reproduce is refused before any
    // note is written, so the refusal is the one line of the command.
    LaunchOptions options;
    if (format == "launch") {
        options.launcher = parsed.get("--launcher").value_or(options.launcher);
        if (inputs.training) {
            const TrainingCommand& t = *inputs.training;
            options.script = t.script.text;
            options.source = inputs.training_file + ":" + std::to_string(t.script.line);
            options.script_parts = launch_parts(t.script);
            for (const auto& w : t.args) {
                auto parts = launch_parts(w);
                const bool runtime = !parts.empty();
                options.args.push_back({w.text, runtime, std::move(parts)});
            }
        } else if (parsed.has("--megatron-args")) {
            throw input_error(parsed.spelling("--megatron-args") + " " + parsed.get("--megatron-args").value_or(""),
                              "no command of the script runs a Python script (a word ending in .py), so the launch has "
                              "nothing to start",
                              "give the script whose torchrun/python line names the training script (pretrain_gpt.py)");
        }
    }
    report_input_notes(inputs, parsed, ctx);
    ctx.inputs.insert(ctx.inputs.end(), inputs.files.begin(), inputs.files.end());  // refused as -o too
    PlanRequest request = std::move(inputs.request);
    apply_memory_flags(parsed, request);
    // Launchers need every group and every rank: --kinds does not apply.
    const Report report = plan(request);
    const int code = require_fit_code(parsed, report);
    save_layout_if_asked(parsed, report, request, ctx);
    Output out(parsed, ctx, report.files);  // the files the layout named are inputs too
    if (format == "scheduler") {
        write_scheduler_json(out.stream(), report);  // streamed: an entry per rank, every group
    } else if (format == "nccl-topo") {
        out.write(nccl_topo_xml(report, parsed.get("--host").value_or("")));
    } else if (format == "hostfile") {
        out.write(hostfile_text(report, parsed.get("--hostfile-style").value_or("openmpi")));
    } else if (format == "slurm-topology") {
        out.write(slurm_topology_conf(report));
    } else if (format == "slurm-topology-yaml") {
        out.write(slurm_topology_yaml(report));
    } else if (format == "kueue") {
        out.write(kueue_yaml(report));
    } else if (format == "volcano") {
        out.write(volcano_yaml(report));
    } else {
        out.write(launch_text(report, options));
    }
    out.commit();
    return code;
}

}  // namespace planlayout::cli
