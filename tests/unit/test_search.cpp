// Tests: sampled classification against the full one, memory, search and its negative control.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "planlayout/analysis/sampled_footprints.hpp"
#include "planlayout/analysis/search.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/calibration_file.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/limits.hpp"
#include "tolerances.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

SearchModel seed_model() {
    const std::string path = (fs::path(PLANLAYOUT_SOURCE_DIR) / "layouts/seed-2x8-ep16.json").string();
    const json j = parse_json_text(read_text_file(path), path);
    SearchModel m;
    m.model = model_spec_from_json(j.at("model"), path);
    m.training = training_spec_from_json(j.at("training"), path);
    m.transport = transport_spec_from_json(j.at("transport"), path);
    // The compute side: layout A's compute_scale, fitted to its measured TCP step
    // (plan-layout calibrate --compute layouts/seed-2x8-ep16.json -o layouts/calibrations/seed-a-compute.json).
    const std::string calib = (fs::path(PLANLAYOUT_SOURCE_DIR) / "layouts/calibrations/seed-a-compute.json").string();
    const auto c = compute_calibration_from_json(parse_json_text(read_text_file(calib), calib), calib);
    REQUIRE(c.has_value());
    m.training.compute_scale = c->compute_scale;
    return m;
}

Cluster seed_cluster() {
    return load_cluster_file((fs::path(PLANLAYOUT_SOURCE_DIR) / "layouts/seed-2x8-ep16.json").string());
}

bool same_shape(const GroupFootprint& a, const GroupFootprint& b) {
    return a.n == b.n && a.nodes == b.nodes && a.max_per_node == b.max_per_node &&
           a.min_rails_per_node == b.min_rails_per_node && a.worst_intra == b.worst_intra &&
           a.worst_cross == b.worst_cross && a.worst_gpu_nic == b.worst_gpu_nic &&
           a.bottleneck_gbyte_s == doctest::Approx(b.bottleneck_gbyte_s) && a.pairs == b.pairs;
}

const KindReach& reach(const SearchLayout& l, const std::string& kind) {
    for (const auto& k : l.kinds) {
        if (k.kind == kind) {
            return k;
        }
    }
    FAIL("no kind " << kind);
    return l.kinds.front();
}

}  // namespace

TEST_CASE("sampled classification finds the same worst footprint as the full one on small clusters") {
    const char* clusters[] = {
        R"({"nodes": 2, "node": "h100-hgx-8gpu-8nic"})",
        R"({"nodes": 8, "node": "h100-hgx-8gpu-8nic", "fabric": {"nodes_per_su": 2, "sus_per_pod": 2}})",
        R"({"nodes": 6, "node": "h100-hgx-8gpu-8nic", "fabric": {"nodes_per_su": 3, "pxn": false}})",
        R"({"nodes": 4, "node": "pcie-8gpu-4nic"})",
    };
    const std::vector<std::array<std::int64_t, 5>> specs = {
        {1, 1, 1, 16, 1}, {2, 2, 1, 4, 1}, {4, 1, 2, 2, 2}, {8, 2, 1, 8, 1}, {1, 4, 1, 4, 1}, {2, 1, 1, 8, 2}};
    int compared = 0;
    for (const char* text : clusters) {
        const Cluster cluster = cluster_from_json(json::parse(text), "c.json", "/cluster", ".");
        const Placement placement = node_major_placement(cluster, cluster.total_gpus());
        for (const auto& sizes : specs) {
            const std::int64_t tp = sizes[0];
            const std::int64_t pp = sizes[1];
            const std::int64_t cp = sizes[2];
            const std::int64_t ep = sizes[3];
            const std::int64_t etp = sizes[4];
            for (const char* order : {"tp-cp-ep-dp-pp", "tp-cp-ep-pp-dp"}) {
                ParallelSpec spec;
                spec.world = cluster.total_gpus();
                spec.tp = tp;
                spec.pp = pp;
                spec.cp = cp;
                spec.ep = ep;
                spec.etp = etp;
                spec.order = order;
                ResolvedSpec resolved;
                try {
                    resolved = resolve_spec(spec);
                } catch (const Error&) {
                    continue;
                }
                const Groups groups = build_groups(resolved);
                const auto full = classify_groups(groups, cluster, placement, {});
                const auto sampled = classify_groups_sampled(groups, cluster, placement, {});
                REQUIRE(full.size() == sampled.size());
                for (std::size_t i = 0; i < full.size(); ++i) {
                    CAPTURE(text);
                    CAPTURE(order);
                    CAPTURE(full[i].kind);
                    CAPTURE(tp);
                    CAPTURE(pp);
                    CAPTURE(ep);
                    CHECK(full[i].kind == sampled[i].kind);
                    CHECK(full[i].worst == sampled[i].worst);
                    CHECK(full[i].max_nodes == sampled[i].max_nodes);
                    CHECK(full[i].groups == sampled[i].groups);
                    REQUIRE(!sampled[i].footprints.empty());
                    CHECK(same_shape(full[i].footprints.front(), sampled[i].footprints.front()));
                    ++compared;
                }
            }
        }
    }
    CHECK(compared > 200);
}

TEST_CASE("memory per GPU: experts shard over ep and pp, LoRA keeps the optimizer small") {
    const SearchModel m = seed_model();
    const ParallelSizes a{1, 1, 1, 16, 16, 1, 1, 1};
    const ParallelSizes b{1, 2, 1, 8, 8, 1, 1, 1};
    const ParallelSizes none{1, 1, 1, 16, 1, 1, 16, 1};
    const MemoryEstimate ma = estimate_memory(a, m.model, m.training);
    const MemoryEstimate mb = estimate_memory(b, m.model, m.training);
    const MemoryEstimate mn = estimate_memory(none, m.model, m.training);
    CHECK(ma.total_bytes() < 80.0 * (1 << 30));
    CHECK(mb.total_bytes() < 80.0 * (1 << 30));
    CHECK(mn.total_bytes() > 400e9);  // every expert on every GPU
    // LoRA: 12 bytes of optimizer state per adapter parameter only.
    CHECK(ma.optimizer_bytes == doctest::Approx(12.0 * 1e8));
    CHECK(ma.activations_bytes > 0);
}

TEST_CASE("search on the seed's 2x8 cluster rediscovers layout B in the least transport-sensitive band and A-like layouts on top") {
    const Cluster cluster = seed_cluster();
    SearchOptions options;
    options.sort = SearchSort::Benefit;
    const SearchResult r = search_layouts(cluster, seed_model(), options);
    REQUIRE(r.layouts.size() >= 2);
    CHECK(r.pruned_memory > 0);  // ep·pp too small to hold 256 experts
    CHECK(r.candidates == r.rejected + r.pruned_memory + r.evaluated);
    const SearchLayout& least = r.layouts.back();
    const SearchLayout& most = r.layouts.front();
    CAPTURE(least.name());
    CAPTURE(most.name());
    // Least sensitive: the all-to-all never crosses nodes; the bottom band (within the seed's
    // measured noise of 0.35%) holds B and only layouts whose ep stays inside a node. (Layouts
    // whose dp also crosses, but only with LoRA adapter gradients hidden under the backward,
    // score 0.0% and sit in the same band: the model sees nothing for RDMA to remove there.)
    CHECK(reach(least, "ep").max_nodes == 1);
    CHECK(least.score.rdma_benefit < 0.0035);
    const SearchLayout* b = nullptr;
    const SearchLayout* a = nullptr;
    for (const auto& l : r.layouts) {
        if (l.score.rdma_benefit < 0.0035) {
            CHECK(reach(l, "ep").max_nodes == 1);
        }
        if (l.name() == "tp1-pp2-cp1-ep8-etp1-dp8 tp-cp-ep-dp-pp") {
            b = &l;
        }
        if (l.name() == "tp1-pp1-cp1-ep16-etp1-dp16 tp-cp-ep-dp-pp") {
            a = &l;
        }
    }
    REQUIRE(a != nullptr);
    REQUIRE(b != nullptr);
    CHECK(reach(*b, "ep").max_nodes == 1);
    CHECK(reach(*b, "dp").max_nodes == 1);
    CHECK(b->score.rdma_benefit < 0.0035);
    // Among the layouts whose ep and dp both stay inside a node, none is less sensitive than
    // B by more than the noise, and B-like layouts (pp crossing only) form the bottom.
    for (const auto& l : r.layouts) {
        if (reach(l, "ep").max_nodes > 1 || reach(l, "dp").max_nodes > 1) {
            continue;
        }
        CHECK(l.score.rdma_benefit >= b->score.rdma_benefit - 0.0035);
    }
    // Most sensitive: A-like, the all-to-all crosses nodes; A itself is far above B.
    CHECK(reach(most, "ep").max_nodes == 2);
    CHECK(most.score.rdma_benefit > 0.2);
    CHECK(a->score.rdma_benefit > 0.3);
    CHECK(a->score.rdma_benefit > 100 * b->score.rdma_benefit);
    for (std::size_t i = 0; i < 10; ++i) {
        CHECK(reach(r.layouts[i], "ep").max_nodes == 2);
    }
}

TEST_CASE("search ranks by step time and honours --ep and the memory budget") {
    const Cluster cluster = seed_cluster();
    SearchOptions options;
    options.ep = {8};
    const SearchResult r = search_layouts(cluster, seed_model(), options);
    for (std::size_t i = 0; i < r.layouts.size(); ++i) {
        CHECK(r.layouts[i].sizes.ep == 8);
        if (i > 0) {
            CHECK(r.layouts[i - 1].score.step_time_s[1] <= r.layouts[i].score.step_time_s[1] + 1e-9);
        }
    }
    options.memory_limits = {1e9, 0.0};  // 1 GB, no headroom
    const SearchResult none = search_layouts(cluster, seed_model(), options);
    CHECK(none.layouts.empty());
    CHECK(none.pruned_memory > 0);
}

TEST_CASE("search evaluation agrees with plan() on the seed layouts") {
    const Cluster cluster = seed_cluster();
    const SearchModel m = seed_model();
    const SearchLayout a = evaluate_layout(cluster, m, {1, 1, 1, 16, 16, 1, 1, 1}, "tp-cp-ep-dp-pp");
    const SearchLayout b = evaluate_layout(cluster, m, {1, 2, 1, 8, 8, 1, 1, 1}, "tp-cp-ep-dp-pp");
    // The seed's numbers (test_plan.cpp): A within its baseline of the measured 32.08 % (this path's own
    // baseline: search's evaluation differs from analyze's 34.9 % by the shipped compute calibration), B within
    // seed.b_benefit of the measured -0.35 % (tests/tolerances.json).
    CHECK(std::abs(a.score.rdma_benefit - 0.3208) * 100 <=
          planlayout::testing::baseline_bound("seed", "a_abs_error_points_search"));
    CHECK(std::abs(b.score.rdma_benefit - (-0.0035)) <= planlayout::testing::tolerance("seed.b_benefit"));
}

TEST_CASE("shares are shares: the x-node share stays in [0, 1] where hidden time would push it past the step") {
    const Cluster cluster = load_cluster_file((fs::path(PLANLAYOUT_SOURCE_DIR) / "layouts/h100-32node-tp8-pp4-ep8.json").string());
    const SearchModel m = seed_model();
    // tp4 cp8 ep8 dp8 on 32 nodes: cp and dp cross nodes under compute (the old x-node column said
    // 108%). Since the DP reduce hides only under the last micro-batch's backward (overlap.hpp),
    // hidden plus exposed no longer passes the step here; the shares must stay shares either way.
    const SearchLayout l = evaluate_layout(cluster, m, {4, 1, 8, 8, 8, 1, 32, 1}, "tp-cp-ep-dp-pp");
    const Score& s = l.score;
    CHECK(s.cross_node_share >= 0.0);
    CHECK(s.cross_node_share <= 1.0);
    CHECK(s.cross_node_hidden_s > 0.0);
    CHECK(s.cross_node_share * s.eliminable * s.non_overlapped == doctest::Approx(s.rdma_benefit));
    for (const auto& k : s.by_kind) {
        CHECK(k.share >= 0.0);
        CHECK(k.share <= 1.0);
        CHECK(k.share * s.step_time_s[0] + k.hidden_s == doctest::Approx(k.time_s[0]));
    }
    SearchOptions options;
    options.ep = {8, 16};
    for (const auto& row : search_layouts(cluster, m, options).layouts) {
        CHECK(row.score.cross_node_share >= 0.0);
        CHECK(row.score.cross_node_share <= 1.0);
        for (double f : {row.score.eliminable, row.score.non_overlapped}) {
            CHECK(f >= 0.0);
            CHECK(f <= 1.0);
        }
    }
}

TEST_CASE("with the compute model, search keeps a 64-expert MoE's expert parallelism inside 8-GPU nodes") {
    // 4 x 8 H100, a Mixtral-sized model with 64 fine-grained experts, 4k tokens (issue 16: the flat
    // MFU ranked tp1-pp4-cp8-ep1 first, since compute was the same for every layout).
    const Cluster cluster =
        cluster_from_json(json::parse(R"({"nodes": 4, "node": "h100-hgx-8gpu-8nic"})"), "c.json", "/cluster", ".");
    SearchModel m;
    m.model = model_spec_from_json(json::parse(R"({"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
        "ffn_hidden": 14336, "vocab": 32000, "moe": {"experts": 64, "topk": 2, "ffn_hidden": 1792}})"), "m.json");
    m.training = training_spec_from_json(json::parse(R"({"global_batch": 256, "seq_len": 4096, "sequence_parallel": true,
        "distributed_optimizer": true, "recompute": "selective"})"), "m.json");
    const SearchResult r = search_layouts(cluster, m, SearchOptions{});
    REQUIRE(r.layouts.size() >= 5);
    for (std::size_t i = 0; i < 5; ++i) {
        CAPTURE(r.layouts[i].name());
        CHECK(r.layouts[i].sizes.ep >= 4);                 // experts spread over several GPUs ...
        CHECK(reach(r.layouts[i], "ep").max_nodes == 1);   // ... of one node
        CHECK(r.layouts[i].score.compute.modelled);
        CHECK(r.layouts[i].score.mfu[1] > 0.2);
    }
    // EP=1 puts 64 experts of 128 tokens each on every GPU: slower compute than EP=8.
    ParallelSizes ep1{1, 1, 1, 32, 1, 1, 32, 1};
    ParallelSizes ep8{1, 1, 1, 32, 8, 1, 4, 1};
    CHECK(evaluate_layout(cluster, m, ep1, "tp-cp-ep-dp-pp").score.compute_s >
          evaluate_layout(cluster, m, ep8, "tp-cp-ep-dp-pp").score.compute_s);
}

TEST_CASE("search tries virtual pipeline sizes where Megatron allows them, and each changes the bubble") {
    // 4 x 8 H100, a 32-layer dense model: vpp 2 and 4 divide every pp's layers per stage here, vpp 3
    // none; interleaving divides the bubble.
    const Cluster cluster =
        cluster_from_json(json::parse(R"({"nodes": 4, "node": "h100-hgx-8gpu-8nic"})"), "c.json", "/cluster", ".");
    SearchModel m;
    m.model = model_spec_from_json(json::parse(R"({"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
        "ffn_hidden": 14336, "vocab": 32000})"), "m.json");
    m.training = training_spec_from_json(json::parse(R"({"global_batch": 64, "seq_len": 4096, "sequence_parallel": true,
        "distributed_optimizer": true})"), "m.json");
    SearchOptions o;
    o.vpp = {1, 2, 3, 4};
    const SearchResult r = search_layouts(cluster, m, o);
    bool interleaved = false;
    for (const SearchLayout& l : r.layouts) {
        CAPTURE(l.name());
        CHECK(l.sizes.vpp != 3);  // 32 / pp is never a multiple of 3
        CHECK((l.sizes.vpp == 1 || l.sizes.pp > 1));
        CHECK(l.sizes.etp == 1);  // a dense model: one candidate per sizes
        CHECK((l.sizes.vpp == 1) == (l.name().find("-vp") == std::string::npos));
        interleaved = interleaved || l.sizes.vpp > 1;
    }
    CHECK(interleaved);
    const ParallelSizes flat{2, 4, 1, 4, 1, 1, 16, 1};
    ParallelSizes vp4 = flat;
    vp4.vpp = 4;
    const SearchLayout a = evaluate_layout(cluster, m, flat, "tp-cp-ep-dp-pp");
    const SearchLayout b = evaluate_layout(cluster, m, vp4, "tp-cp-ep-dp-pp");
    CHECK(b.score.bubble_s == doctest::Approx(a.score.bubble_s / 4).epsilon(0.02));
    CHECK(b.memory.activations_bytes > a.memory.activations_bytes);  // more micro-batches in flight
}

TEST_CASE("search --explain: names parse as search prints them, and the parts of the step are named minus #1") {
    const NamedLayout n = parse_layout_name("tp4-pp8-vp5-cp1-ep1-etp4-dp2 tp-cp-ep-dp-pp", "--explain");
    CHECK(n.sizes.tp == 4);
    CHECK(n.sizes.pp == 8);
    CHECK(n.sizes.vpp == 5);
    CHECK(n.sizes.etp == 4);
    CHECK(n.sizes.dp == 2);
    CHECK(n.order.value_or("") == "tp-cp-ep-dp-pp");
    const NamedLayout short_name = parse_layout_name("tp2,ep16", "--explain");
    CHECK(short_name.sizes.etp == 2);  // Megatron's default, etp = tp ...
    CHECK_FALSE(short_name.etp_given);  // ... but a search match takes any etp
    CHECK_FALSE(short_name.dp_given);
    CHECK_FALSE(short_name.order.has_value());
    CHECK_THROWS_WITH_AS((void)parse_layout_name("tp4-xx2", "--explain tp4-xx2"),
                         doctest::Contains("--explain tp4-xx2: 'xx2' is not a size of the layout name"), Error);
    CHECK_THROWS_AS((void)parse_layout_name("tp-pp", "--explain"), Error);

    const SearchResult r = search_layouts(seed_cluster(), seed_model(), SearchOptions{});
    REQUIRE(r.layouts.size() > 3);
    const SearchExplanation e = explain_layout(r, r.layouts[3], SearchSort::Candidate, 4, "");
    CHECK(e.rank == 4);
    CHECK(e.best_step_s == r.layouts[0].score.step_time_s[1]);
    double sum = 0;
    for (const ExplainPart& p : e.parts) {
        sum += p.named_s - p.best_s;
    }
    // The parts are the whole step: their differences add up to the step's (less what rounds away).
    CHECK(sum == doctest::Approx(e.named_step_s - e.best_step_s).epsilon(1e-3));
    for (std::size_t i = 1; i < e.parts.size(); ++i) {
        CHECK(std::abs(e.parts[i - 1].named_s - e.parts[i - 1].best_s) >= std::abs(e.parts[i].named_s - e.parts[i].best_s));
    }
    const SearchExplanation self = explain_layout(r, r.layouts[0], SearchSort::Candidate, 1, "");
    CHECK(self.parts.empty());
}

TEST_CASE("a layout search did not rank is evaluated as the searched framework builds and allocates it") {
    const Cluster cluster = seed_cluster();
    const SearchModel m = seed_model();
    const ParallelSizes sizes{1, 1, 1, 16, 16, 1, 1, 1};
    // The search's own torchtitan candidate for these sizes, and the same sizes evaluated apart
    // (what search --explain does for a layout it did not rank): the same memory and step.
    SearchOptions options;
    options.framework = "torchtitan";
    const SearchResult r = search_layouts(cluster, m, options);
    const auto ranked = std::find_if(r.layouts.begin(), r.layouts.end(), [&](const SearchLayout& l) {
        return l.sizes.tp == 1 && l.sizes.pp == 1 && l.sizes.cp == 1 && l.sizes.ep == 16 && l.sizes.vpp == 1;
    });
    REQUIRE(ranked != r.layouts.end());
    const SearchLayout apart = evaluate_layout(cluster, m, sizes, ranked->order, "torchtitan");
    CHECK(apart.memory.accounting.find("torchtitan") != std::string::npos);
    CHECK(apart.memory.total_bytes() == doctest::Approx(ranked->memory.total_bytes()));
    CHECK(apart.score.step_time_s[1] == doctest::Approx(ranked->score.step_time_s[1]));
    // Megatron's accounting of the same sizes differs (fp32 master beside bf16 weights, not FSDP2's 16/Nd).
    const SearchLayout megatron = evaluate_layout(cluster, m, sizes, "tp-cp-ep-dp-pp");
    CHECK(megatron.memory.accounting.find("torchtitan") == std::string::npos);
    CHECK(megatron.memory.total_bytes() != doctest::Approx(apart.memory.total_bytes()));
    // Sizes the framework cannot build are refused by name.
    CHECK_THROWS_WITH_AS(evaluate_layout(cluster, m, {1, 1, 1, 16, 16, 2, 1, 1}, "tp-cp-ep-dp-pp", "torchtitan"),
                         doctest::Contains("torchtitan"), Error);
}

TEST_CASE("search keeps only the best SearchOptions::keep layouts, the same as the first of a full ranking") {
    // A bounded heap replaces the list of every candidate and its groups (10 KB each: a
    // 180,180-node search reached 23.9 GB for --top 1).
    const Cluster cluster = seed_cluster();
    for (const SearchSort sort : {SearchSort::Candidate, SearchSort::Benefit}) {
        SearchOptions all;
        all.sort = sort;
        const SearchResult full = search_layouts(cluster, seed_model(), all);
        REQUIRE(full.layouts.size() > 3);
        CHECK(static_cast<std::int64_t>(full.layouts.size()) == full.evaluated);
        for (const std::size_t keep : {std::size_t{1}, std::size_t{3}}) {
            SearchOptions some = all;
            some.keep = keep;
            const SearchResult r = search_layouts(cluster, seed_model(), some);
            REQUIRE(r.layouts.size() == keep);
            CHECK(r.evaluated == full.evaluated);  // the rest counted
            CHECK(r.candidates == full.candidates);
            CHECK(r.reasons == full.reasons);
            for (std::size_t i = 0; i < keep; ++i) {
                CHECK(r.layouts[i].name() == full.layouts[i].name());
            }
        }
    }
}

TEST_CASE("search refuses more candidates than kMaxSearchCandidates before evaluating any, naming the flags that narrow it") {
    const std::string path = (fs::path(PLANLAYOUT_SOURCE_DIR) / "tests/data/search-many-divisors/cluster.json").string();
    const Cluster cluster = load_cluster_file(path);
    SearchModel m = seed_model();
    const std::string model = (fs::path(PLANLAYOUT_SOURCE_DIR) / "tests/data/search-many-divisors/model.json").string();
    const json j = parse_json_text(read_text_file(model), model);
    m.model = model_spec_from_json(j.at("model"), model);
    m.training = training_spec_from_json(j.at("training"), model);
    try {
        (void)search_layouts(cluster, m, SearchOptions{});
        FAIL("expected the candidate limit to refuse the search");
    } catch (const Error& e) {
        const std::string what = e.what();
        CHECK(e.code() == ExitCode::BadInput);
        for (const char* flag : {"--ep", "--max-tp", "--max-cp", "--vpp", "--orders", "--world"}) {
            CHECK_MESSAGE(what.find(flag) != std::string::npos, flag);
        }
    }
    SearchOptions narrow;
    narrow.ep = {8};
    narrow.max_cp = 1;
    narrow.keep = 1;
    const SearchResult r = search_layouts(cluster, m, narrow);
    CHECK(r.candidates <= kMaxSearchCandidates);
    CHECK(r.layouts.size() <= 1);
}
