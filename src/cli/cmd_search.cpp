// CLI: `plan-layout search CLUSTER --model FILE` — rank every valid layout for a cluster.
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "commands.hpp"
#include "cost_options.hpp"
#include "planlayout/ingest/calibration_file.hpp"
#include "messages.hpp"
#include "planlayout/analysis/search.hpp"
#include "planlayout/emit/search_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/parallel/parallel_spec.hpp"

namespace planlayout::cli {

int run_search(const ParsedArgs& parsed, Context& ctx) {
    const auto model_path = parsed.get("--model");
    if (!model_path) {
        throw usage_error("search", "--model is required",
                          "give a layout file or a JSON with \"model\", \"training\" and \"transport\" sections");
    }
    const std::string format = parsed.get_or("--format", "text");
    const std::string& cluster_path = parsed.positionals().front();
    const Cluster cluster = load_cluster_file(cluster_path, ctx.files_anywhere);
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
    const std::string model_dir = *model_path == "-" ? "." : parent_dir(*model_path);
    model.calibrations = read_calibration_files(model.transport.calibrations, FileScope{model_dir, model_dir, ctx.files_anywhere},
                                                *model_path + " (/transport)");
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
    const SearchResult result = search_layouts(cluster, model, options);
    if (ctx.err_is_terminal) {
        ctx.err << "\r" << std::string(60, ' ') << "\r" << std::flush;
    }
    SearchHeader header;
    header.cluster_source = cluster_path;
    header.model_source = *model_path;
    header.sort = sort;
    if (options.sort != SearchSort::Benefit && !result.layouts.empty()) {
        // The arms the hardware allows (analysis/arms.hpp) may differ from the ones named.
        const Score& s = result.layouts.front().score;
        header.sort = std::string(to_string(options.sort == SearchSort::Baseline ? s.baseline : s.candidate));
    }
    header.gpu_memory_bytes = options.gpu_memory_bytes;
    header.top = parsed.get_int("--top").value_or(20);
    std::vector<std::string> files = cluster.files;  // files the cluster and the model named: inputs too
    for (const auto& rel : model.transport.calibrations) {
        files.push_back(join_path(parent_dir(*model_path), rel));
    }
    write_output(parsed, format == "json" ? search_json(result, cluster, header) : search_text(result, cluster, header),
                 ctx, files);
    return 0;
}

}  // namespace planlayout::cli
