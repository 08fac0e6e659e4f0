// CLI: `plan-layout search CLUSTER --model FILE` — rank every valid layout for a cluster.
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "commands.hpp"
#include "cost_options.hpp"
#include "messages.hpp"
#include "planlayout/analysis/search.hpp"
#include "planlayout/emit/search_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/parallel/parallel_spec.hpp"

namespace planlayout::cli {

void define_search(CommandSpec& spec) {
    spec.usage = "plan-layout search CLUSTER --model FILE [--world N] [--top N] [--sort tcp|gdrdma|benefit] [options]";
    spec.description =
        "Enumerates every valid (tp, pp, cp, ep, etp, dp, order) for the world size and the model's constraints\n"
        "(tp divides the heads, ep the experts, pp at most the layers, at least pp micro-batches, Megatron's\n"
        "validity rules), prunes layouts whose parameters, optimizer state and activations do not fit in\n"
        "--gpu-memory, evaluates the rest with the structure and cost model, and ranks them by predicted step\n"
        "time on one transport, or by RDMA benefit. CLUSTER is a cluster spec or a layout file (its \"cluster\");\n"
        "FILE is a layout or a JSON with \"model\", \"training\" and \"transport\" sections.";
    spec.positionals = {1, 1, "one CLUSTER (a cluster spec or a layout file)",
                        "e.g. plan-layout search layouts/seed-2x8-ep16.json --model layouts/seed-2x8-ep16.json"};
    add_options(spec, {
        {"--model", "FILE", "the model, training and transport sections (a layout file will do)"},
        {"--world", "N", "ranks (default: every GPU of the cluster)"},
        {"--top", "N", "show the first N layouts (default 20; 0 = all)"},
        {"--sort", "tcp|gdrdma|rdma|benefit", "rank by that transport's step time, or by RDMA benefit (default: the candidate transport)"},
        {"--max-tp", "N", "largest tp (default 8)"},
        {"--max-cp", "N", "largest cp (default 8)"},
        {"--ep", "N,N,...", "only these ep sizes"},
        {"--orders", "O,O", "rank orders (default tp-cp-ep-dp-pp,tp-cp-ep-pp-dp)"},
        {"--even-pp", "", "pp must divide the layers (default: stages may differ by one layer)"},
        {"--gpu-memory", "SIZE", "memory per GPU, e.g. 80GiB (default 80GiB)"},
        {"--format", "text|json", "output format (default text)"},
        {"-o,--output", "FILE", "write to FILE atomically instead of standard output"},
        {"--help,-h", "", "show this help"},
    });
    check_choice(spec, "--format", "format", {"text", "json"});
    check_int(spec, "--world", 1, kMaxWorld);
    check_int(spec, "--max-tp", 1, 1 << 20);
    check_int(spec, "--max-cp", 1, 1 << 20);
    check_int(spec, "--top", 0, std::int64_t{1} << 40);
    spec.examples = {
        "plan-layout search layouts/seed-2x8-ep16.json --model layouts/seed-2x8-ep16.json --sort benefit",
        "plan-layout search layouts/h100-32node-tp8-pp4-ep8.json --model layouts/h100-32node-tp8-pp4-ep8.json --top 10",
    };
}

int run_search(const ParsedArgs& parsed, Context& ctx) {
    const auto model_path = parsed.get("--model");
    if (!model_path) {
        throw usage_error("search", "--model is required",
                          "give a layout file or a JSON with \"model\", \"training\" and \"transport\" sections");
    }
    const std::string format = parsed.get_or("--format", "text");
    const std::string& cluster_path = parsed.positionals().front();
    const Cluster cluster = load_cluster_file(cluster_path);
    const nlohmann::json mj = parse_json_text(read_input(*model_path, ctx), *model_path);
    if (!mj.is_object() || !mj.contains("model") || !mj.contains("training")) {
        throw input_error(*model_path, "no \"model\" and \"training\" sections",
                          "point --model at a layout file such as layouts/seed-2x8-ep16.json");
    }
    SearchModel model;
    model.model = ModelSpec::from_json(mj.at("model"), *model_path);
    model.training = TrainingSpec::from_json(mj.at("training"), *model_path);
    if (mj.contains("transport")) {
        model.transport = TransportSpec::from_json(mj.at("transport"), *model_path);
    }
    SearchOptions options;
    options.world = parsed.get_int("--world").value_or(0);
    options.max_tp = static_cast<int>(parsed.get_int("--max-tp").value_or(8));
    options.max_cp = static_cast<int>(parsed.get_int("--max-cp").value_or(8));
    options.even_pp = parsed.has("--even-pp");
    if (const auto eps = parsed.get("--ep")) {
        for (const auto& v : split_csv(*eps)) {
            char* end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (end == v.c_str() || *end != '\0' || n < 1 || n > (1L << 30)) {
                throw input_error("--ep " + *eps, "'" + v + "' is not a positive integer", "e.g. --ep 8,16");
            }
            options.ep.push_back(static_cast<int>(n));
        }
    }
    if (const auto orders = parsed.get("--orders")) {
        options.orders = split_csv(*orders);
    }
    if (const auto mem = parsed.get("--gpu-memory")) {
        options.gpu_memory_bytes = parse_size_bytes(*mem, "--gpu-memory");
    }
    const std::string base(to_string(model.transport.baseline));
    const std::string cand(to_string(model.transport.candidate));
    const std::string sort = parsed.get_or("--sort", cand);
    if (sort == "benefit") {
        options.sort = SearchSort::Benefit;
    } else if (sort == base) {
        options.sort = SearchSort::Baseline;
    } else if (sort == cand) {
        options.sort = SearchSort::Candidate;
    } else {
        throw input_error("--sort " + sort, "not one of the compared transports",
                          "use " + base + ", " + cand + " or benefit (the model's transport.compare names the two)");
    }
    if (ctx.err_is_terminal) {
        options.progress = [&ctx](std::int64_t done, std::int64_t total) {
            if (total < 64) {
                return;  // short runs need no bar
            }
            const auto width = 30 * done / std::max<std::int64_t>(total, 1);
            ctx.err << "\rsearch [" << std::string(static_cast<std::size_t>(width), '#')
                    << std::string(static_cast<std::size_t>(30 - width), ' ') << "] " << done << "/" << total
                    << std::flush;
        };
    }
    const SearchResult result = search_layouts(cluster, model, options, parent_dir(*model_path));
    if (ctx.err_is_terminal) {
        ctx.err << "\r" << std::string(60, ' ') << "\r" << std::flush;
    }
    SearchHeader header;
    header.cluster_source = cluster_path;
    header.model_source = *model_path;
    header.sort = sort;
    header.gpu_memory_bytes = options.gpu_memory_bytes;
    header.top = parsed.get_int("--top").value_or(20);
    write_output(parsed, format == "json" ? search_json(result, cluster, header) : search_text(result, cluster, header),
                 ctx);
    return 0;
}

}  // namespace planlayout::cli
