// CLI: composing one layout from the inputs users have (docs/inputs.md): the layout file, the
// cluster flags, a Hugging Face config.json, a launch script and the flags given directly.
// Over 500 lines: one precedence (layout < cluster flags < model config < launch script < flags
// given directly), each step merged through the same put/merge_fragment so that every value keeps
// its source and every disagreement becomes a note.
// to split: the measured times (--measured-step, --measured-compute: mean_stable_step,
// read_measured, drop_measured, put_measured_step, apply_measured_step) read step logs and could be
// a source of their own; so could --save-layout (saved_layout_text, save_layout_if_asked).
#include "plan_inputs.hpp"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "command_spec.hpp"
#include "framework_flags.hpp"
#include "parallel_flags.hpp"
#include "messages.hpp"
#include "planlayout/emit/layout_emit.hpp"
#include "planlayout/emit/output_file.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_fabric.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/hf_config.hpp"
#include "planlayout/ingest/hostfile.hpp"
#include "planlayout/ingest/hostlist.hpp"
#include "planlayout/ingest/launch_script.hpp"
#include "planlayout/ingest/megatron_args.hpp"
#include "planlayout/ingest/node_template_json.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/ingest/step_log.hpp"
#include "planlayout/model/model_spec.hpp"
#include "planlayout/names.hpp"
#include "planlayout/text_format.hpp"
#include "planlayout/verify/ab.hpp"

namespace planlayout::cli {
namespace {

using nlohmann::json;
using Sources = std::map<std::string, std::string>;

// The option sets whose flags are Megatron-LM's own and go through its reader when given directly.
constexpr const char* kDirectSets[] = {"parallel", "model"};

std::string name_of(const std::string& path) { return path == "-" ? "<stdin>" : path; }

bool looks_like_json(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    return first != std::string::npos && (text[first] == '{' || text[first] == '/');
}

// The template JSON a `--node` or capture names: a built-in name stays a name; a template JSON
// is read in; a capture becomes the template it describes.
json template_ref(const std::string& value, Context& ctx, std::vector<std::string>& files) {
    const auto builtins = builtin_node_template_names();
    if (std::find(builtins.begin(), builtins.end(), value) != builtins.end()) {
        return value;
    }
    std::error_code ec;
    if (value != "-" && !std::filesystem::exists(value, ec)) {
        throw input_error("--node " + value, "not a built-in node template and not a file",
                          "use one of " + join(builtins, ", ") + ", a node template JSON, or a capture " +
                              "(hwloc XML, nvidia-smi topo -m, NCCL topology XML)");
    }
    const std::string text = read_input(value, ctx, kMaxCaptureBytes);  // a capture, or a template:
    files.push_back(value);
    if (looks_like_json(text)) {
        require_text_size(text, name_of(value), kMaxTemplateBytes, "kMaxTemplateBytes",
                          "a node template lists one node's devices: check that this is the right file");
        return parse_json_text(text, name_of(value));
    }
    return to_json(read_node_capture(text, name_of(value)));
}

// Sets base[pointer] = value, noting when an earlier input (not the layout) gave another value.
void put(json& base, Sources& sources, std::vector<std::string>& notes, const std::string& pointer, const json& value,
         const std::string& source) {
    const json::json_pointer p(pointer);
    if (base.contains(p) && base.at(p) != value) {
        if (const auto it = sources.find(pointer); it != sources.end()) {
            notes.push_back(source + " sets " + pointer + " to " + value.dump() + " over " + it->second + "'s " +
                            base.at(p).dump());
        }
    }
    base[p] = value;
    sources[pointer] = source;
}

// Merges a fragment whose values each have a source (a reader's output) into the layout.
void merge_fragment(json& base, Sources& sources, std::vector<std::string>& notes, const json& fragment,
                    const Sources& fragment_sources) {
    for (const auto& [pointer, source] : fragment_sources) {
        const json::json_pointer p(pointer);
        if (fragment.contains(p)) {
            put(base, sources, notes, pointer, fragment.at(p), source);
        }
    }
}

std::string source_of_nodes(const Sources& sources) {
    const auto it = sources.find("/cluster/nodes");
    return it != sources.end() ? it->second : "the layout";
}

// The GPUs of a node template reference (built-in name or inline JSON); 0 when unknown.
std::int64_t gpus_of(const json& ref) {
    if (ref.is_string()) {
        return static_cast<std::int64_t>(builtin_node_template(ref.get<std::string>(), "--node").gpus.size());
    }
    if (ref.is_object() && ref.contains("gpus") && ref.at("gpus").is_array()) {
        return static_cast<std::int64_t>(ref.at("gpus").size());
    }
    return 0;
}

// --cluster FILE: a cluster spec, a layout (its cluster), a node template or a node capture.
json cluster_from_file(const std::string& path, Context& ctx, std::vector<std::string>& files) {
    const std::string text = read_input(path, ctx, std::max(kMaxLayoutBytes, kMaxCaptureBytes));
    files.push_back(path);
    if (!looks_like_json(text)) {
        return json{{"node", to_json(read_node_capture(text, name_of(path)))}};
    }
    const json j = parse_json_text(text, name_of(path));
    const std::string dir = path == "-" ? "." : parent_dir(path);
    const FileScope scope{dir, dir, ctx.files_anywhere};
    if (j.is_object() && j.contains("cluster")) {
        return self_contained_cluster_json(j.at("cluster"), name_of(path), "/cluster", scope, files);
    }
    if (j.is_object() && j.contains("gpus")) {  // one node template
        return json{{"node", j}};
    }
    return self_contained_cluster_json(j, name_of(path), "", scope, files);
}

// ParsedArgs → the words of a Megatron-LM command line, for the flags of the sets given directly.
std::vector<ScriptWord> direct_words(const ParsedArgs& args, bool parallel) {
    const json defs = command_definitions();
    std::vector<ScriptWord> words;
    for (const char* set : kDirectSets) {
        if (!parallel && std::string(set) == "parallel") {
            continue;  // search's own --ep, --world: not a spec
        }
        for (const auto& row : defs.at("sets").at(set)) {
            const auto names = split_csv(row.at(0).get<std::string>());
            const std::string& canonical = names.front();
            if (!args.has(canonical) || canonical == "--megatron-args" || canonical == "--env") {
                continue;
            }
            // As typed (the reader knows every Megatron alias); torchtitan's spelling as Megatron's.
            const std::string spelled =
                args.spelling(canonical).rfind("--parallelism.", 0) == 0 ? canonical : args.spelling(canonical);
            const bool flag = row.at(1).get<std::string>().empty();
            for (const auto& v : args.get_all(canonical)) {
                words.push_back({spelled, 0, std::nullopt});
                if (!flag) {
                    words.push_back({v, 0, std::nullopt});
                }
            }
            if (flag && args.get_all(canonical).empty()) {
                words.push_back({spelled, 0, std::nullopt});
            }
        }
    }
    return words;
}

// The sources of a script's (or the command line's) values, with the flag that gave each:
// "train.sh:14 (--num-layers)", "command line (--tp)".
Sources flag_sources(const MegatronArgs& m) {
    Sources out;
    for (const auto& [pointer, source] : m.sources) {
        const auto flag = m.flags.find(pointer);
        std::string s = source;
        if (s.rfind("command line:", 0) == 0) {
            s = "command line";
        }
        out[pointer] = flag == m.flags.end() ? s : s + " (" + flag->second + ")";
    }
    return out;
}

// What Megatron-LM's validate_args derives when a script leaves it out (and the model section's
// own defaults would differ): the FFN width from --swiglu, the expert FFN width from the FFN.
void megatron_derived_defaults(json& layout, Sources& sources, const MegatronArgs& m, const std::string& file) {
    const auto given = [&](const char* p) { return m.layout.contains(json::json_pointer(p)); };
    const auto has = [&](const char* p) { return layout.contains(json::json_pointer(p)); };
    if (given("/model/hidden") && !has("/model/ffn_hidden")) {
        const std::int64_t h = layout.at("/model/hidden"_json_pointer).get<std::int64_t>();
        const bool swiglu = layout.value("/model/ffn_gated"_json_pointer, false);
        // arguments.py: 4h, or with --swiglu int(4h * 2/3 / 64) * 64
        layout["/model/ffn_hidden"_json_pointer] = swiglu ? (8 * h / 3) / 64 * 64 : 4 * h;
        sources["/model/ffn_hidden"] = file + " (Megatron default: " + (swiglu ? "2/3 of 4 x hidden with --swiglu" : "4 x hidden") + ")";
    }
    if (given("/model/moe/experts") && !has("/model/moe/ffn_hidden") && has("/model/ffn_hidden")) {
        layout["/model/moe/ffn_hidden"_json_pointer] = layout.at("/model/ffn_hidden"_json_pointer);
        sources["/model/moe/ffn_hidden"] = file + " (Megatron default: --moe-ffn-hidden-size is --ffn-hidden-size)";
    }
}

// MoE flags given without --num-experts: they apply to the composed model when it has experts (a
// model config's), else they are listed as not used.
void apply_moe_modifiers(json& layout, Sources& sources, std::vector<std::string>& notes, const MegatronArgs& m,
                         std::vector<IgnoredFlag>* ignored) {
    const bool moe = layout.contains("/model/moe/experts"_json_pointer);
    for (const auto& [pointer, value] : m.moe_modifiers) {
        const auto src = m.sources.find(pointer);
        const auto flag = m.flags.find(pointer);
        const std::string source = src == m.sources.end() ? std::string("command line") : src->second;
        if (moe) {
            put(layout, sources, notes, pointer, value, source);
        } else if (ignored != nullptr) {
            ignored->push_back({flag == m.flags.end() ? pointer : flag->second, value.dump(), source + " (the model has no experts)"});
        } else {
            notes.push_back((flag == m.flags.end() ? pointer : flag->second) + ": the model has no experts; not used");
        }
    }
}

// The flags given directly (--tp, --num-layers, ...), over what the layout and scripts gave. A flag
// given directly changes that value only: Megatron's defaults for the flags not given (fp32,
// untied, GELU) belong to a whole launch line, not to a layout's model. When the flags are the
// whole model (no layout or script gave one), its FFN and embeddings are Megatron's as --help
// says: GELU unless --swiglu, tied unless --untie-embeddings-and-output-weights.
void merge_direct_flags(json& layout, Sources& sources, std::vector<std::string>& notes, const ParsedArgs& args,
                        bool parallel) {
    MegatronArgs direct = megatron_args_from_words(direct_words(args, parallel), "command line");
    const bool model_from_flags = !layout.contains("model") && direct.layout.contains("model");
    for (auto it = direct.sources.begin(); it != direct.sources.end();) {
        const bool keep = model_from_flags && (it->first == "/model/ffn_gated" || it->first == "/model/tied_embeddings");
        it = !keep && it->second.find("Megatron default") != std::string::npos ? direct.sources.erase(it) : std::next(it);
    }
    merge_fragment(layout, sources, notes, direct.layout, flag_sources(direct));
    if (model_from_flags) {
        megatron_derived_defaults(layout, sources, direct, "command line");
    }
    apply_moe_modifiers(layout, sources, notes, direct, nullptr);
}

// The cluster's node count, nodes per launch and hosts, made consistent once every input is in.
void settle_cluster(json& layout, Sources& sources, std::vector<std::string>& notes, const ParsedArgs& args,
                    Context& ctx, std::vector<std::string>& files) {
    if (!layout.contains("cluster") || !layout.at("cluster").is_object()) {
        return;
    }
    json& cluster = layout["cluster"];
    std::int64_t per_node = 0;
    std::string per_node_source;
    if (cluster.contains("gpus_per_node")) {  // torchrun's --nproc-per-node, from a script
        per_node = cluster.at("gpus_per_node").get<std::int64_t>();
        per_node_source = sources["/cluster/gpus_per_node"];
        cluster.erase("gpus_per_node");
        sources.erase("/cluster/gpus_per_node");
    }
    if (const auto g = args.get_int("--gpus-per-node", 1, kMaxWorld)) {
        per_node = *g;
        per_node_source = args.spelling("--gpus-per-node") + " " + std::to_string(*g);
    }
    if (per_node > 0 && cluster.contains("node")) {
        const std::int64_t gpus = gpus_of(cluster.at("node"));
        if (gpus > 0 && gpus != per_node) {
            throw input_error(per_node_source, std::to_string(per_node) + " ranks per node, but the node template has " +
                                                   std::to_string(gpus) + " GPUs",
                              "plan-layout places one rank per GPU: give a node template (--node) with " +
                                  std::to_string(per_node) + " GPUs, or launch " + std::to_string(gpus) + " per node");
        }
    }
    std::vector<std::string> hosts;
    std::string hosts_source;
    if (const auto hostfile = args.get("--hostfile")) {
        if (const auto list = args.get("--nodelist")) {
            throw input_error("--nodelist", "both --hostfile and --nodelist name the hosts",
                              "give one of them: the hostfile's lines or the Slurm hostlist");
        }
        const auto entries = parse_hostfile(read_input(*hostfile, ctx, kMaxHostfileBytes), name_of(*hostfile));
        for (const auto& [host, slots] : entries) {
            hosts.push_back(host);
        }
        const std::int64_t ranks = per_node > 0 ? per_node : cluster.contains("node") ? gpus_of(cluster.at("node")) : 0;
        if (const std::string note = hostfile_slots_note(entries, ranks, name_of(*hostfile)); !note.empty()) {
            notes.push_back(note);
        }
        files.push_back(*hostfile);
        hosts_source = name_of(*hostfile);
    } else if (const auto list = args.get("--nodelist")) {
        hosts_source = "--nodelist " + terminal_safe(*list);
        hosts = expand_slurm_hostlist(*list, hosts_source);
        for (std::size_t i = 0; i < hosts.size(); ++i) {
            require_host_name(hosts[i], hosts_source + " (host " + std::to_string(i + 1) + ")");
        }
    }
    if (!hosts.empty()) {
        const std::string& source = hosts_source;
        if ((cluster.contains("nodes") && cluster.at("nodes").is_array()) || cluster.contains("topology")) {  // hosts named: the job's order
            put(layout, sources, notes, "/placement/hosts", hosts, source);
        } else {
            if (cluster.contains("nodes") && cluster.at("nodes").is_number_integer() &&
                cluster.at("nodes").get<std::int64_t>() != static_cast<std::int64_t>(hosts.size())) {
                notes.push_back(source + " lists " + std::to_string(hosts.size()) + " hosts over " +
                                source_of_nodes(sources) + "'s " + cluster.at("nodes").dump() + " nodes");
            }
            json list = json::array();
            for (const auto& h : hosts) {
                list.push_back({{"host", h}});
            }
            put(layout, sources, notes, "/cluster/nodes", list, source);
        }
    }
}

/// One measured time: `ARM=SECONDS|LOG` (or `LOG` whose `# arm:` tag names the arm) for
/// --measured-step, `SECONDS|LOG` for --measured-compute (no arm). A log is averaged over its
/// stable steps, 6 to the last (the first five are warm-up, as `ab` skips them).
struct MeasuredTime {
    std::string arm;  // "" for a compute-only step
    double seconds = 0;
    std::string source;
};

/// A step log's mean stable step (steps 6 to the last, whole logged intervals), its source and its
/// own `# arm:` tag.
MeasuredTime mean_stable_step(const std::string& flag, const std::string& value, const std::string& seconds_form,
                              Context& ctx, std::vector<std::string>& files) {
    const StepSeries series = parse_step_log(read_input(value, ctx, kMaxStepLogBytes), name_of(value));
    files.push_back(value);
    const int last = series.points.empty() ? 0 : series.points.back().step;
    if (last < 6) {
        throw input_error(name_of(value), "the run has " + std::to_string(last) + " steps; the first five are warm-up",
                          "give a log with at least 6 steps, or the stable step time in seconds (" + seconds_form + ")");
    }
    // Interval means (Megatron-LM, torchtitan logs) average whole logged intervals after the warm-up.
    const verify::StepWindow window = verify::aligned_window(series, verify::StepWindow{6, last});
    if (window.first > window.last) {
        throw input_error(name_of(value), "no logged interval lies after the five warm-up steps (logged at steps " +
                                              verify::logged_steps_text(series) + ")",
                          "give a longer log, or the stable step time in seconds (" + seconds_form + ")");
    }
    const std::vector<double> steps = verify::window_step_times(series, window);
    double sum = 0;
    for (const double s : steps) {
        sum += s;
    }
    const double seconds = sum / static_cast<double>(steps.size());
    if (!(seconds >= 1e-6 && seconds <= 1e6)) {
        throw input_error(name_of(value), "the mean step time of steps " + std::to_string(window.first) + " to " +
                                              std::to_string(window.last) + " is " + fixed_text(seconds, 6) +
                                              " s, out of range",
                          "check the log's value column (seconds per step)");
    }
    return {series.arm, seconds,
            name_of(value) + " (mean of steps " + std::to_string(window.first) + "-" + std::to_string(window.last) + ", " +
                flag + ")"};
}

MeasuredTime read_measured(const std::string& flag, const std::string& given, bool with_arm, std::vector<std::string>& notes,
                           Context& ctx, std::vector<std::string>& files) {
    const auto eq = with_arm ? given.find('=') : std::string::npos;
    std::string arm = eq == std::string::npos ? std::string() : given.substr(0, eq);
    const std::string value = eq == std::string::npos ? given : given.substr(eq + 1);
    // The hints show this flag's own form.
    const std::string example = with_arm ? "--measured-step tcp=4.49" : "--measured-compute 0.58";
    const std::string log_example = with_arm ? "--measured-step tcp=run.csv" : "--measured-compute run.csv";
    if (eq != std::string::npos && !parse_transport(arm)) {
        throw input_error(flag, "'" + terminal_safe(arm) + "' is not a transport",
                          "name the arm the step was measured on: tcp, rdma or gdrdma (--measured-step tcp=4.49)");
    }
    double seconds = 0;
    std::string source = "command line (" + flag + ")";
    std::size_t used = 0;
    bool number = false;
    try {
        seconds = std::stod(value, &used);
        number = used == value.size();
    } catch (const std::exception&) {
        number = false;
    }
    if (number) {
        require_step_seconds(seconds, flag);  // the range every step-log reader checks
    } else {
        std::error_code ec;
        if (value != "-" && !std::filesystem::exists(value, ec)) {
            throw input_error(flag, "'" + terminal_safe(value) + "' is neither a number of seconds nor a file",
                              std::string(with_arm ? "give ARM=SECONDS" : "give SECONDS") + " (" + example + ") or a step log (" +
                                  log_example + ")");
        }
        const MeasuredTime m = mean_stable_step(flag, value, with_arm ? "ARM=SECONDS" : "SECONDS", ctx, files);
        if (with_arm && arm.empty()) {
            arm = m.arm;
        } else if (with_arm && !m.arm.empty() && m.arm != arm) {
            notes.push_back(name_of(value) + " is tagged arm '" + terminal_safe(m.arm) + "'; " + flag +
                            " reads it as measured on " + arm);
        }
        if (with_arm && (arm.empty() || !parse_transport(arm))) {  // a log's own tag, unchecked until here
            throw input_error(flag, "the log does not say which arm it was measured on",
                              "write ARM=LOG, e.g. --measured-step tcp=" + terminal_safe(value));
        }
        seconds = m.seconds;
        source = m.source;
    }
    if (arm.empty() && with_arm) {
        throw input_error(flag, "the arm the step was measured on is missing",
                          "write ARM=SECONDS, e.g. --measured-step tcp=" + terminal_safe(value));
    }
    return {with_arm ? std::string(to_string(*parse_transport(arm))) : std::string(), seconds, source};
}

/// Drops the layout's measured keys (`--measured-step none`, or one arm given over a layout's two).
void drop_measured(json& layout, Sources& sources, std::vector<std::string>& notes, const std::string& flag,
                   std::initializer_list<const char*> keys) {
    for (const char* key : keys) {
        if (layout.contains("training") && layout.at("training").is_object() && layout.at("training").erase(key) > 0) {
            notes.push_back(flag + ": training." + key + " of the layout is not used");
        }
        sources.erase(std::string("/training/") + key);
    }
}

// `--measured-step ARM=SECONDS|LOG`, once per arm (two arms at most; a repeated arm: the last
// wins), and `--measured-compute SECONDS|LOG`: what the job measures today.
void put_measured_step(json& layout, Sources& sources, std::vector<std::string>& notes, const ParsedArgs& args,
                       Context& ctx, std::vector<std::string>& files) {
    if (const auto c = args.get("--measured-compute")) {
        const MeasuredTime m = read_measured("--measured-compute " + terminal_safe(*c), *c, false, notes, ctx, files);
        put(layout, sources, notes, "/training/measured_compute_s", m.seconds, m.source);
    }
    const std::vector<std::string> given = args.get_all("--measured-step");
    if (given.empty()) {
        return;
    }
    if (std::find(given.begin(), given.end(), "none") != given.end()) {  // the compute from the GPU's specs alone
        drop_measured(layout, sources, notes, "--measured-step none",
                      {"measured_step_time_s", "measured_transport", "second_measured_step_time_s", "second_measured_transport"});
        return;
    }
    std::vector<MeasuredTime> arms;
    for (const std::string& g : given) {
        MeasuredTime m = read_measured("--measured-step " + terminal_safe(g), g, true, notes, ctx, files);
        const auto same = std::find_if(arms.begin(), arms.end(), [&](const MeasuredTime& a) { return a.arm == m.arm; });
        if (same != arms.end()) {
            *same = std::move(m);  // later flags override earlier ones
        } else {
            arms.push_back(std::move(m));
        }
    }
    if (arms.size() > 2) {
        throw input_error("--measured-step", std::to_string(arms.size()) + " arms measured; a step compares two",
                          "give one or two: --measured-step tcp=5.72 --measured-step rdma=2.51");
    }
    put(layout, sources, notes, "/training/measured_step_time_s", arms[0].seconds, arms[0].source);
    put(layout, sources, notes, "/training/measured_transport", arms[0].arm, arms[0].source);
    if (arms.size() == 2) {
        put(layout, sources, notes, "/training/second_measured_step_time_s", arms[1].seconds, arms[1].source);
        put(layout, sources, notes, "/training/second_measured_transport", arms[1].arm, arms[1].source);
    } else {
        drop_measured(layout, sources, notes, "--measured-step " + terminal_safe(given.back()),
                      {"second_measured_step_time_s", "second_measured_transport"});
    }
}

}  // namespace

bool has_composing_inputs(const ParsedArgs& args, bool parallel) {
    for (const char* flag :
         {"--cluster", "--cluster-topology", "--nvlink-domain", "--oversubscription", "--nodes", "--node", "--hostfile", "--nodelist", "--model-config",
          "--megatron-args", "--measured-step", "--measured-compute", "--compare", "--placement"}) {
        if (args.has(flag)) {
            return true;
        }
    }
    return (parallel && has_framework_flags(args)) || !direct_words(args, parallel).empty();
}

namespace {

// Only flags that change how a layout is scored or placed (--measured-step, --measured-compute, --compare,
// --placement): they apply to the embedded default layout.
bool only_scoring_flags(const ParsedArgs& args, bool parallel) {
    if (!args.has("--measured-step") && !args.has("--measured-compute") && !args.has("--compare") && !args.has("--placement") &&
        !(parallel && has_framework_flags(args))) {
        return false;
    }
    for (const char* flag :
         {"--cluster", "--cluster-topology", "--nvlink-domain", "--oversubscription", "--nodes", "--node", "--hostfile", "--nodelist", "--model-config",
          "--megatron-args"}) {
        if (args.has(flag)) {
            return false;
        }
    }
    return direct_words(args, parallel).empty();
}

// --nvlink-domain N|blocks → the cluster's "nvlink_domain".
json nvlink_domain_flag(const std::string& value) {
    if (value == "blocks") {
        return json{{"topology_blocks", true}};
    }
    const bool digits = !value.empty() && value.size() <= 7 && value.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoll(value) < 1) {
        throw input_error("--nvlink-domain " + printable(value), "expected a node count or \"blocks\"",
                          "write --nvlink-domain 18 (NVL72 racks of 4-GPU trays) or --nvlink-domain blocks");
    }
    return json{{"nodes_per_domain", std::stoll(value)}};
}

// The cluster flags over a cluster from any input: --nvlink-domain (the multi-node NVLink domains)
// and --oversubscription (the leaf uplinks' down:up ratio).
void put_fabric_flags(json& layout, Sources& sources, std::vector<std::string>& notes, const ParsedArgs& args) {
    if (const auto d = args.get("--nvlink-domain")) {
        put(layout, sources, notes, "/cluster/nvlink_domain", nvlink_domain_flag(*d), "--nvlink-domain " + *d);
    }
    if (const auto r = args.get_double("--oversubscription")) {
        put(layout, sources, notes, "/cluster/fabric/oversubscription", *r, "--oversubscription " + *args.get("--oversubscription"));
    }
}

}  // namespace

ComposedInputs compose_inputs(const ParsedArgs& args, Context& ctx, const ComposeOptions& options,
                              const std::string* layout_path) {
    ComposedInputs out;
    json layout = json::object();
    if (layout_path != nullptr) {
        out.request = layout_request(*layout_path, ctx);
        layout = parse_json_text(out.request.layout_text, out.request.layout_name);
        if (!layout.is_object()) {
            throw input_error(out.request.layout_name, "a layout must be a JSON object", "see docs/formats/layout.md");
        }
        if (!layout.contains("cluster") && layout.contains("nodes")) {  // a cluster spec, not a layout
            layout = json{{"cluster", self_contained_cluster_json(layout, out.request.layout_name, "",
                                                                   FileScope{out.request.base_dir, out.request.base_dir,
                                                                             ctx.files_anywhere},
                                                                   out.files)}};
        }
    } else if (!has_composing_inputs(args, options.parallel) && options.embedded_default) {
        out.request = embedded_default_request();
        return out;
    } else if (options.embedded_default && only_scoring_flags(args, options.parallel)) {
        // The embedded default layout, scored as the flags say.
        out.request = embedded_default_request();
        layout = parse_json_text(out.request.layout_text, out.request.layout_name);
    } else {
        out.request.layout_name = "command line";
        out.request.files_anywhere = ctx.files_anywhere;
    }
    Sources& sources = out.request.sources;
    auto& notes = out.notes;

    // The cluster: a file, or a node template × a count, then hosts. A layout's cluster file is
    // read in first when the flags change it.
    if (layout.contains("cluster") && layout.at("cluster").is_string() && has_composing_inputs(args, options.parallel)) {
        layout["cluster"] = self_contained_cluster_json(layout.at("cluster"), out.request.layout_name, "/cluster",
                                                        FileScope{out.request.base_dir, out.request.base_dir,
                                                                  ctx.files_anywhere},
                                                        out.files);
    }
    if (const auto path = args.get("--cluster")) {
        put(layout, sources, notes, "/cluster", cluster_from_file(*path, ctx, out.files), name_of(*path));
    }
    if (const auto node = args.get("--node")) {
        put(layout, sources, notes, "/cluster/node", template_ref(*node, ctx, out.files), "--node " + *node);
    }
    if (const auto path = args.get("--cluster-topology")) {  // the hosts, leaves and spines of an imported fabric
        FabricTopology fabric = read_fabric_text(read_input(*path, ctx, kMaxCaptureBytes), name_of(*path));
        fabric.source = name_of(*path);
        out.files.push_back(*path);
        if (layout.contains("cluster") && layout.at("cluster").is_object()) {  // the topology replaces the host list
            json& cluster = layout["cluster"];
            cluster.erase("nodes");
            if (cluster.contains("fabric") && cluster.at("fabric").is_object()) {
                for (const char* key : {"nodes_per_su", "sus_per_pod", "wiring", "rails"}) {
                    cluster["fabric"].erase(key);
                }
            }
        }
        put(layout, sources, notes, "/cluster/topology", to_json(fabric), "--cluster-topology " + *path);
    }
    put_fabric_flags(layout, sources, notes, args);

    // The model, then the launch script, then the flags given directly.
    if (const auto path = args.get("--model-config")) {
        const HfModel hf = read_hf_config(read_input(*path, ctx, kMaxConfigBytes), name_of(*path),
                                          args.has("--allow-unknown-model"));
        out.files.push_back(*path);
        merge_fragment(layout, sources, notes, json{{"model", hf.model}}, hf.sources);
        notes.insert(notes.end(), hf.warnings.begin(), hf.warnings.end());
        for (const auto& w : hf.warnings) {  // into the report's JSON warnings too, named by the file
            out.request.input_warnings.push_back(name_of(*path) + ": " + w);
        }
    }
    const auto env = env_of(args);
    if (const auto path = args.get("--megatron-args")) {
        const auto words = read_launch_command(read_input(*path, ctx, kMaxLaunchScriptBytes), name_of(*path), env, &notes);
        out.files.push_back(*path);
        MegatronArgs m = megatron_args_from_words(words, name_of(*path));
        out.training = training_command(words);
        out.training_file = name_of(*path);
        if (!options.parallel && m.layout.contains("parallel")) {
            m.layout.erase("parallel");  // search enumerates the parallel sizes itself
        }
        merge_fragment(layout, sources, notes, m.layout, flag_sources(m));
        megatron_derived_defaults(layout, sources, m, name_of(*path));
        apply_moe_modifiers(layout, sources, notes, m, &m.ignored);
        out.ignored = std::move(m.ignored);
    }
    // The framework's flags and config files, under the sizes given directly (--tp, --ep, ...).
    if (options.parallel && has_framework_flags(args)) {
        FrameworkFragment framework = framework_fragment(args, ctx);
        merge_fragment(layout, sources, notes, framework.layout, framework.sources);
        out.files.insert(out.files.end(), framework.files.begin(), framework.files.end());
    }
    merge_direct_flags(layout, sources, notes, args, options.parallel);
    put_measured_step(layout, sources, notes, args, ctx, out.files);
    if (const auto n = args.get_int("--nodes", 1, kMaxNodes)) {
        if (layout.contains("/cluster/nodes"_json_pointer) && layout.at("/cluster/nodes"_json_pointer).is_array()) {
            throw input_error(args.spelling("--nodes") + " " + std::to_string(*n), "the cluster lists its nodes by host",
                              "drop --nodes (the cluster has " + std::to_string(layout.at("/cluster/nodes"_json_pointer).size()) +
                                  " hosts), or give --node TEMPLATE for a cluster of N such nodes");
        }
        put(layout, sources, notes, "/cluster/nodes", *n, args.spelling("--nodes") + " " + std::to_string(*n));
    }
    if (const auto w = args.get_int("--world", 1, kMaxWorld); w && options.parallel) {
        put(layout, sources, notes, "/parallel/world", *w, args.spelling("--world") + " " + std::to_string(*w));
    }
    settle_cluster(layout, sources, notes, args, ctx, out.files);
    if (const auto arms = args.get("--compare")) {  // the score's arms; the transport section checks the names
        const auto names = split_csv(*arms);
        if (names.size() != 2) {
            throw input_error("--compare " + *arms, "expected two arms, found " + std::to_string(names.size()),
                              "write e.g. --compare tcp,gdrdma or --compare p2p,shm");
        }
        put(layout, sources, notes, "/transport/compare", json::array({names[0], names[1]}), "--compare " + *arms);
    }
    if (const auto order = args.get("--placement")) {  // node-major | fabric (checked by the option's choices)
        put(layout, sources, notes, "/placement/order", *order, "--placement " + *order);
    }
    const bool cluster_flags = std::any_of(sources.begin(), sources.end(),
                                           [](const auto& e) { return e.first.rfind("/cluster", 0) == 0; });
    if (options.need_cluster && layout_path == nullptr && !layout.contains("cluster")) {
        throw input_error("plan-layout", "no cluster is given",
                          "give --nodes N --node TEMPLATE (built-in: " + join(builtin_node_template_names(), ", ") +
                              "; or a capture), --cluster FILE, or a layout file");
    }
    if (options.need_cluster && cluster_flags && layout.at("cluster").is_object() &&
        layout.at("cluster").contains("topology") && !layout.at("cluster").contains("node")) {
        throw input_error((sources.count("/cluster/topology") ? sources.at("/cluster/topology") : std::string("the layout")), "the topology gives the hosts, but not what a node is",
                          "give --node TEMPLATE (built-in: " + join(builtin_node_template_names(), ", ") +
                              "; or a capture: lstopo --of xml, nvidia-smi topo -m, NCCL topology XML)");
    }
    if (options.need_cluster && cluster_flags && layout.at("cluster").is_object() &&
        !layout.at("cluster").contains("node") && layout.at("cluster").value("nodes", json()).is_number_integer()) {
        throw input_error(source_of_nodes(sources), "the number of nodes is given, but not what a node is",
                          "give --node TEMPLATE (built-in: " + join(builtin_node_template_names(), ", ") +
                              "; or a capture: lstopo --of xml, nvidia-smi topo -m, NCCL topology XML), or --cluster FILE");
    }
    if (options.need_cluster && cluster_flags && layout.at("cluster").is_object() &&
        !layout.at("cluster").contains("nodes") && !layout.at("cluster").contains("topology")) {
        throw input_error("plan-layout", "the number of nodes is missing",
                          "give --nodes N (or --nnodes in the launch script, or --hostfile FILE)");
    }
    if (options.parallel && !layout.contains("parallel")) {
        layout["parallel"] = json::object();  // every size 1 but dp: plain data parallelism
    }
    out.request.layout_json = std::move(layout);
    return out;
}

void apply_measured_step(json& layout, Sources& sources, std::vector<std::string>& notes, const ParsedArgs& args,
                         Context& ctx, std::vector<std::string>& files) {
    put_measured_step(layout, sources, notes, args, ctx, files);
}

PlanRequest plan_request_of(const ParsedArgs& args, Context& ctx, const ComposeOptions& options) {
    const auto& pos = args.positionals();
    ComposedInputs inputs = compose_inputs(args, ctx, options, pos.empty() ? nullptr : pos.data());
    report_input_notes(inputs, args, ctx);
    ctx.inputs.insert(ctx.inputs.end(), inputs.files.begin(), inputs.files.end());  // refused as -o too
    return std::move(inputs.request);
}

std::string saved_layout_text(const Report& report, const PlanRequest& request, const std::string& command) {
    const nlohmann::json layout = saved_layout(report, request);
    std::map<std::string, std::string> comments;
    for (const auto& a : report.assumptions) {
        comments[a.path] = a.source;
    }
    for (const auto& [pointer, source] : report.sources) {
        comments.emplace(pointer, source);
    }
    const std::string header = "// Written by plan-layout " + command + " --save-layout from " +
                               terminal_safe(request.layout_name) + ": every value explicit, its source beside it.\n";
    return header + commented_json(layout, [&](const std::string& pointer) {
               const auto it = comments.find(pointer);
               return it == comments.end() ? std::string() : it->second;
           });
}

void save_layout_if_asked(const ParsedArgs& args, const Report& report, const PlanRequest& request, Context& ctx) {
    const auto path = args.get("--save-layout");
    if (!path) {
        return;
    }
    if (path->empty()) {
        throw input_error("--save-layout \"\"", "the file name is empty", "give a file name, e.g. --save-layout plan.json");
    }
    if (const auto o = args.get("-o"); o && same_output_file(*o, *path)) {
        throw input_error("--save-layout " + *path, "is also the -o output", "write the layout and the report to two files");
    }
    std::vector<std::string> inputs = ctx.inputs;
    inputs.insert(inputs.end(), report.files.begin(), report.files.end());
    refuse_output_onto_input(*path, inputs, "--save-layout");  // before OutputFile, so the message names this flag
    OutputFile file(*path, inputs);
    file.write(saved_layout_text(report, request, "analyze"));
    file.commit();
}

void report_input_notes(const ComposedInputs& inputs, const ParsedArgs& args, Context& ctx) {
    for (const auto& n : inputs.notes) {
        print_message(ctx, "note", n);  // a note may quote the script's bytes
    }
    if (inputs.ignored.empty()) {
        return;
    }
    // A flag that changes the step time is named always; the rest are counted unless --verbose.
    std::size_t quiet = 0;
    std::size_t named = 0;
    for (const auto& f : inputs.ignored) {
        const bool speed = megatron_flag_changes_speed(f.flag);
        if (speed || args.has("--verbose")) {
            // the flag and its value are the script's bytes: no raw control byte reaches the terminal
            ctx.err << "plan-layout: note: " << terminal_safe(f.where + ": " + f.flag + (f.value.empty() ? "" : " " + f.value))
                    << (speed ? ": not modelled, and it changes the step time" : ": not modelled") << "\n";
            named += speed ? 1 : 0;
        } else {
            ++quiet;
        }
    }
    if (quiet > 0) {
        ctx.err << "plan-layout: note: " << quiet << (named > 0 ? " other" : "") << (quiet == 1 ? " flag" : " flags")
                << " of the launch script " << (quiet == 1 ? "is" : "are") << " not modelled; --verbose lists them\n";
    }
}

}  // namespace planlayout::cli
