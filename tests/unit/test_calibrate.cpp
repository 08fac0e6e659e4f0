// Tests: calibration fits (floor, alpha, efficiency curve) reproduce what they were fitted on,
// interpolate in log size, and apply per (transport, collective, class) without interfering.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "planlayout/analysis/calibrate.hpp"
#include "planlayout/emit/calibration_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/calibration_file.hpp"
#include "planlayout/ingest/nccl_tests.hpp"
#include "planlayout/ingest/read_file.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

/// nccl-tests rows of a doubling curve, timed by the cost model itself (plus extra_us per call).
NcclTestsRun synthesize(CollectiveOp op, const PlacedGroup& g, const TransportModel& x, double extra_us = 0) {
    NcclTestsRun run;
    run.op = op;
    run.ranks = g.n;
    std::size_t line = 1;
    for (int shift = 20; shift <= 33; ++shift) {
        const double s = std::ldexp(1.0, shift);
        NcclTestsRow r;
        r.line = line++;
        r.size_bytes = s;
        r.time_us = collective_cost(op, g, s, x).time_s * 1e6 + extra_us;
        run.rows.push_back(r);
    }
    return run;
}

double cost_us(CollectiveOp op, const PlacedGroup& g, double size, const TransportSpec& spec, Transport t) {
    return collective_cost(op, g, size, transport_model(spec, t)).time_s * 1e6;
}

std::vector<Calibration> written_and_read(const std::vector<Calibration>& fits) {
    return calibrations_from_json(nlohmann::json::parse(to_json(fits).dump()), "calib.json");
}

}  // namespace

TEST_CASE("efficiency curve: piecewise linear in log size between points, flat beyond them") {
    CollectiveFit f;
    f.curve = {{1 << 20, 0.4}, {1 << 24, 0.8}, {1 << 28, 0.6}};
    CHECK(f.efficiency_at(1 << 22) == doctest::Approx(0.6));   // halfway in log size
    CHECK(f.efficiency_at(1 << 23) == doctest::Approx(0.7));
    CHECK(f.efficiency_at(1 << 26) == doctest::Approx(0.7));   // falling segment
    CHECK(f.efficiency_at(1 << 24) == doctest::Approx(0.8));   // on a point
    CHECK(f.efficiency_at(1024) == doctest::Approx(0.4));      // below the smallest: flat
    CHECK(f.efficiency_at(1e12) == doctest::Approx(0.6));      // above the largest: flat
}

TEST_CASE("round trip: rail-NIC all_reduce, alpha below the prior is fitted, no floor, same times") {
    NodeHardware hw;
    hw.nic_gbit_s = 100;  // NIC bound, so the NIC term is what gets fitted
    const PlacedGroup g = make_placed_group(4, 8, hw);
    TransportSpec truth;
    truth.gdrdma_params.efficiency.value = 0.72;
    truth.gdrdma_params.alpha_us = 11.5;  // below the 14 us prior
    const auto run = synthesize(CollectiveOp::AllReduce, g, transport_model(truth, Transport::Gdrdma));
    const Calibration c = fit_calibration(run, g, Transport::Gdrdma, std::nullopt);
    CHECK(c.efficiency == doctest::Approx(0.72).epsilon(1e-9));
    for (const auto& p : c.curve) {
        CHECK(p.efficiency == doctest::Approx(0.72).epsilon(1e-9));
    }
    CHECK(c.alpha_us == doctest::Approx(11.5).epsilon(1e-6));
    CHECK_FALSE(c.alpha_from_prior);
    CHECK(c.floor_us == 0);
    CHECK(c.rms_residual < 1e-9);
    CHECK(c.link_class == PathClass::Rail);
    CHECK(c.line == "rail NIC");
    // Written, read back and applied, it predicts what it was fitted on.
    const auto back = written_and_read({c});
    REQUIRE(back.size() == 1);
    TransportSpec spec;
    apply_calibration(back.front(), spec);
    for (const auto& r : run.rows) {
        CHECK(cost_us(CollectiveOp::AllReduce, g, r.size_bytes, spec, Transport::Gdrdma) == doctest::Approx(r.time_us));
    }
}

TEST_CASE("round trip: alpha above the prior becomes prior alpha + a per-call floor (one group size)") {
    NodeHardware hw;
    hw.tcp_gbit_s = 200;
    const PlacedGroup g = make_placed_group(2, 8, hw);
    TransportSpec truth;
    truth.tcp_params.alltoall_efficiency.value = 0.31;
    truth.tcp_params.alpha_us = 25;
    const auto run = synthesize(CollectiveOp::AllToAll, g, transport_model(truth, Transport::Tcp));
    const Calibration c = fit_calibration(run, g, Transport::Tcp, std::nullopt);
    CHECK(c.efficiency == doctest::Approx(0.31).epsilon(1e-9));
    CHECK(c.alpha_from_prior);
    CHECK(c.alpha_us == doctest::Approx(TransportSpec{}.tcp_params.alpha_us));
    const int net_steps = 1;  // the 8 remote peers of an all-to-all are in flight together: one round
    CHECK(c.floor_us == doctest::Approx((25 - TransportSpec{}.tcp_params.alpha_us) * net_steps).epsilon(1e-6));
    CHECK(c.line == "TCP interface");
    TransportSpec spec;
    apply_calibration(c, spec);
    for (const auto& r : run.rows) {
        CHECK(cost_us(CollectiveOp::AllToAll, g, r.size_bytes, spec, Transport::Tcp) == doctest::Approx(r.time_us));
    }
    // The ring collectives and sendrecv keep the priors: an all_to_all fit is not theirs.
    for (const auto op : {CollectiveOp::AllReduce, CollectiveOp::SendRecv, CollectiveOp::AllGather}) {
        CHECK(cost_us(op, g, 1 << 26, spec, Transport::Tcp) == cost_us(op, g, 1 << 26, TransportSpec{}, Transport::Tcp));
    }
}

TEST_CASE("round trip within 2%: a floor and a size-dependent efficiency, and the real 2 x H200 sweeps") {
    const PlacedGroup g = make_placed_group(1, 8, {});
    // Efficiency rises with size (0.3 at 1 MiB .. 0.8 at 8 GiB) on top of a 30 us floor.
    NcclTestsRun run;
    run.op = CollectiveOp::AllReduce;
    run.ranks = 8;
    for (int shift = 20; shift <= 33; shift += 2) {
        const double s = std::ldexp(1.0, shift);
        PlacedGroup e = g;
        e.nvlink_efficiency = 0.3 + 0.5 * std::log2(s / (1 << 20)) / 13.0;
        NcclTestsRow row;
        row.line = run.rows.size() + 1;
        row.size_bytes = s;
        row.time_us = collective_cost(run.op, e, s, {}).time_s * 1e6 + 30.0;
        run.rows.push_back(row);
    }
    const Calibration c = fit_calibration(run, g, Transport::Gdrdma, std::nullopt);
    for (const auto& r : c.rows) {
        CHECK(std::abs(r.residual) <= 0.02);
    }
    // Real runs: socket-forced and NVLink, all_reduce and all_to_all, 1-256 MiB.
    const std::filesystem::path data = std::filesystem::path(PLANLAYOUT_SOURCE_DIR) / "tests/gpu/data/h200-2gpu";
    for (const char* name : {"sweep-all_reduce-g2-tcp-r1.txt", "sweep-all_to_all-g2-tcp-r1.txt",
                             "sweep-all_reduce-g2-fast-r1.txt", "sweep-all_to_all-g2-fast-r1.txt"}) {
        const std::string path = (data / name).string();
        const bool tcp = std::string(name).find("tcp") != std::string::npos;
        const NcclTestsRun real = parse_nccl_tests(read_text_file(path), path, {});
        const PlacedGroup two = make_placed_group(1, 2, {});
        const Calibration f = fit_calibration(real, two, tcp ? Transport::Tcp : Transport::Gdrdma, std::nullopt, 0, tcp);
        TransportSpec spec;
        spec.tcp.inside_node = tcp;
        apply_calibration(f, spec);
        for (const auto& r : real.rows) {
            const double predicted = cost_us(real.op, two, r.size_bytes, spec, tcp ? Transport::Tcp : Transport::Gdrdma);
            INFO(name << " " << r.size_bytes);
            CHECK(std::abs(predicted - r.time_us) / r.time_us <= 0.02);
        }
    }
}

TEST_CASE("an NVLink-class fit changes its own collective's intra-node time only, whatever the transport") {
    PlacedGroup g = make_placed_group(1, 8, {});
    g.nvlink_efficiency = 0.66;
    g.nvlink_alpha_us = 2.5;
    const auto run = synthesize(CollectiveOp::AllGather, g, transport_model({}, Transport::Gdrdma));
    const PlacedGroup prior = make_placed_group(1, 8, {});
    const Calibration c = fit_calibration(run, prior, Transport::Gdrdma, std::nullopt);
    CHECK(c.link_class == PathClass::Nv);
    CHECK(c.efficiency == doctest::Approx(0.66).epsilon(1e-9));
    CHECK(c.alpha_us == doctest::Approx(2.5).epsilon(1e-6));
    TransportSpec spec;
    apply_calibration(c, spec);
    for (const auto t : {Transport::Gdrdma, Transport::Tcp}) {
        CHECK(cost_us(CollectiveOp::AllGather, prior, 1 << 30, spec, t) ==
              doctest::Approx(collective_cost(CollectiveOp::AllGather, g, 1 << 30, {}).time_s * 1e6));
        CHECK(cost_us(CollectiveOp::AllReduce, prior, 1 << 30, spec, t) ==
              cost_us(CollectiveOp::AllReduce, prior, 1 << 30, TransportSpec{}, t));
    }
    // Across nodes the fit times the NVLink part of an all_gather too.
    const PlacedGroup two = make_placed_group(2, 8, {});
    const FitsUsed used = fits_used(CollectiveOp::AllGather, two, transport_model(spec, Transport::Gdrdma));
    CHECK(used.network == nullptr);
    REQUIRE(used.intra != nullptr);
    CHECK(used.intra->op == CollectiveOp::AllGather);
}

TEST_CASE("two files with different collectives both apply - a later fit replaces only its own key") {
    const PlacedGroup g = make_placed_group(1, 2, {});
    TransportSpec truth_ar;
    truth_ar.tcp.inside_node = true;
    truth_ar.tcp_params.efficiency.value = 0.47;
    truth_ar.tcp_params.alpha_us = 19;
    TransportSpec truth_a2a = truth_ar;
    truth_a2a.tcp_params.alltoall_efficiency.value = 0.39;
    truth_a2a.tcp_params.alpha_us = 70;
    const auto ar = synthesize(CollectiveOp::AllReduce, g, transport_model(truth_ar, Transport::Tcp));
    const auto a2a = synthesize(CollectiveOp::AllToAll, g, transport_model(truth_a2a, Transport::Tcp));
    const auto fits = fit_calibrations({ar, a2a}, g, Transport::Tcp, std::nullopt, 0, true);
    REQUIRE(fits.size() == 2);
    CHECK(fits[0].op == CollectiveOp::AllReduce);
    CHECK(fits[1].op == CollectiveOp::AllToAll);
    // As two files, in either order: each collective keeps its own fit.
    for (const bool a2a_last : {true, false}) {
        TransportSpec spec;
        spec.tcp.inside_node = true;
        apply_calibration(a2a_last ? fits[0] : fits[1], spec, "first.json");
        apply_calibration(a2a_last ? fits[1] : fits[0], spec, "second.json");
        CHECK(cost_us(CollectiveOp::AllReduce, g, 1 << 20, spec, Transport::Tcp) == doctest::Approx(ar.rows.front().time_us));
        CHECK(cost_us(CollectiveOp::AllToAll, g, 1 << 20, spec, Transport::Tcp) == doctest::Approx(a2a.rows.front().time_us));
        // sendrecv has no fit: the ring prior, not the all_reduce fit.
        TransportSpec prior;
        prior.tcp.inside_node = true;
        CHECK(cost_us(CollectiveOp::SendRecv, g, 1 << 20, spec, Transport::Tcp) ==
              cost_us(CollectiveOp::SendRecv, g, 1 << 20, prior, Transport::Tcp));
        REQUIRE(spec.fits != nullptr);
        CHECK(spec.fits->fits.size() == 2);
    }
    // The same key again replaces the earlier fit.
    TransportSpec spec;
    apply_calibration(fits[0], spec, "a.json");
    apply_calibration(fits[0], spec, "b.json");
    CHECK(spec.fits->fits.size() == 1);
    CHECK(spec.fits->fits.front().label() == "tcp all_reduce RAIL (b.json)");
    // One file with both fits reads back as both.
    const auto back = written_and_read(fits);
    REQUIRE(back.size() == 2);
    CHECK(back[1].curve.size() == fits[1].curve.size());
    CHECK(back[1].floor_us == doctest::Approx(fits[1].floor_us).epsilon(1e-4));
}

TEST_CASE("format 1 files (one fit, no curve) are still read: one efficiency at every size, no floor") {
    const nlohmann::json v1 = {{"schema_version", 1}, {"kind", "plan-layout calibration"}, {"transport", "tcp"},
                               {"class", "RAIL"}, {"op", "all_reduce"}, {"nodes", 2}, {"gpus_per_node", 8},
                               {"alpha_us", 18.0}, {"efficiency", 0.47}, {"line_gbyte_s", 12.5},
                               {"rows", nlohmann::json::array()}, {"warnings", nlohmann::json::array()}};
    const auto fits = calibrations_from_json(v1, "old.json");
    REQUIRE(fits.size() == 1);
    CHECK(fits.front().floor_us == 0);
    REQUIRE(fits.front().curve.size() == 1);
    const PlacedGroup g = make_placed_group(2, 8, {});
    TransportSpec spec;
    apply_calibration(fits.front(), spec);
    TransportSpec old;
    old.tcp_params.efficiency.value = 0.47;
    old.tcp_params.alpha_us = 18;
    for (const double s : {1e3, 1e6, 1e9}) {
        CHECK(cost_us(CollectiveOp::AllReduce, g, s, spec, Transport::Tcp) ==
              doctest::Approx(cost_us(CollectiveOp::AllReduce, g, s, old, Transport::Tcp)));
    }
    // A "compute" section (calibrate --compute) sits next to the fits; it is read on its own.
    ComputeCalibration cc;
    cc.compute_scale = 0.0147;
    cc.gpu = "H100 SXM";
    cc.measured_transport = "tcp";
    cc.measured_step_time_s = 4.49;
    const nlohmann::json v2 = to_json(cc);
    CHECK(calibrations_from_json(v2, "c.json").empty());
    const auto back = compute_calibration_from_json(v2, "c.json");
    REQUIRE(back.has_value());
    CHECK(back->compute_scale == doctest::Approx(0.0147));
    CHECK(back->gpu == "H100 SXM");
    CHECK(back->measured_step_time_s == doctest::Approx(4.49));
    nlohmann::json bad = v2;
    bad["compute"].erase("compute_scale");
    CHECK_THROWS_WITH_AS((void)calibrations_from_json(bad, "c.json"),
                         doctest::Contains("c.json (/compute/compute_scale): missing 'compute_scale'"), Error);
    bad = v2;
    bad["compute"]["compute_scale"] = 0;
    CHECK_THROWS_AS((void)compute_calibration_from_json(bad, "c.json"), Error);
    CHECK_FALSE(compute_calibration_from_json(to_json(std::vector<Calibration>{}), "c.json").has_value());
}

TEST_CASE("bad calibration files are refused with one line naming file and pointer") {
    CHECK_THROWS_WITH_AS((void)calibrations_from_json(nlohmann::json::object(), "c.json"),
                         "c.json (/kind): missing 'kind'; write the file with plan-layout calibrate -o FILE", Error);
    nlohmann::json newer = {{"schema_version", 3}, {"kind", "plan-layout calibration"}, {"fits", nlohmann::json::array()}};
    CHECK_THROWS_WITH_AS((void)calibrations_from_json(newer, "c.json"),
                         doctest::Contains("c.json (/schema_version): format 3 is newer"), Error);
    const PlacedGroup g = make_placed_group(2, 8, {});
    nlohmann::json good = to_json(std::vector<Calibration>{
        fit_calibration(synthesize(CollectiveOp::AllReduce, g, transport_model({}, Transport::Gdrdma)), g,
                        Transport::Gdrdma, std::nullopt)});
    nlohmann::json unsorted = good;
    unsorted["fits"][0]["curve"][1]["size"] = 1;
    CHECK_THROWS_WITH_AS((void)calibrations_from_json(unsorted, "c.json"),
                         doctest::Contains("c.json (/fits/0/curve/1/size): curve sizes must increase"), Error);
    nlohmann::json nofloor = good;
    nofloor["fits"][0].erase("floor_us");
    CHECK_THROWS_WITH_AS((void)calibrations_from_json(nofloor, "c.json"),
                         doctest::Contains("c.json (/fits/0/floor_us): missing 'floor_us'"), Error);
    nlohmann::json stray = good;
    stray["fitz"] = 1;
    CHECK_THROWS_AS((void)calibrations_from_json(stray, "c.json"), Error);
    for (const auto* bad : {&unsorted, &nofloor, &stray}) {
        try {
            (void)calibrations_from_json(*bad, "c.json");
        } catch (const Error& e) {
            CHECK(std::string(e.what()).find('\n') == std::string::npos);
        }
    }
}

TEST_CASE("rows below min_size are listed but not fitted - one size is not enough") {
    const PlacedGroup g = make_placed_group(2, 8, {});
    const auto run = synthesize(CollectiveOp::AllReduce, g, transport_model({}, Transport::Gdrdma));
    const Calibration c = fit_calibration(run, g, Transport::Gdrdma, std::nullopt, std::ldexp(1.0, 32));
    CHECK(c.rows_used == 2);
    CHECK(c.curve.size() == 2);
    CHECK_FALSE(c.rows.front().used);
    CHECK_THROWS_WITH_AS((void)fit_calibration(run, g, Transport::Gdrdma, std::nullopt, std::ldexp(1.0, 33)),
                         doctest::Contains("only 1 size(s) to fit"), Error);
}

TEST_CASE("rounds of one collective pool: each size's point is their mean") {
    const PlacedGroup g = make_placed_group(1, 8, {});
    const auto a = synthesize(CollectiveOp::AllReduce, g, transport_model({}, Transport::Gdrdma), 0);
    const auto b = synthesize(CollectiveOp::AllReduce, g, transport_model({}, Transport::Gdrdma), 10);
    const auto fits = fit_calibrations({a, b}, g, Transport::Gdrdma, std::nullopt);
    REQUIRE(fits.size() == 1);
    CHECK(fits.front().rows.size() == a.rows.size() * 2);
    CHECK(fits.front().curve.size() == a.rows.size());
    TransportSpec spec;
    apply_calibration(fits.front(), spec);
    for (std::size_t i = 0; i < a.rows.size(); ++i) {
        CHECK(cost_us(CollectiveOp::AllReduce, g, a.rows[i].size_bytes, spec, Transport::Gdrdma) ==
              doctest::Approx((a.rows[i].time_us + b.rows[i].time_us) / 2));
    }
}

TEST_CASE("round trip: a socket-forced run inside one node fits the shared interface, and says so") {
    const PlacedGroup g = make_placed_group(1, 2, {});
    TransportSpec truth;
    truth.tcp.inside_node = true;
    truth.tcp_params.efficiency.value = 0.47;
    truth.tcp_params.alpha_us = 19;
    const auto run = synthesize(CollectiveOp::AllReduce, g, transport_model(truth, Transport::Tcp));
    const Calibration c = fit_calibration(run, g, Transport::Tcp, std::nullopt, 0, true);
    CHECK(c.socket_inside_node);
    CHECK(c.nodes == 1);
    CHECK(c.gpus_per_node == 2);
    CHECK(c.link_class == PathClass::Rail);
    CHECK(c.line == "TCP interface");
    CHECK(c.efficiency == doctest::Approx(0.47).epsilon(1e-9));
    CHECK(c.alpha_us == doctest::Approx(19).epsilon(1e-6));
    const auto back = written_and_read({c});
    CHECK(back.front().socket_inside_node);
    const std::string text = render_text(c);
    CHECK(text.find("sockets inside the node") != std::string::npos);
    CHECK(text.find("flat (the nearest measured point)") != std::string::npos);
    // Without the flag the same rows are NVLink rows: a different (and wrong) line.
    CHECK(fit_calibration(run, g, Transport::Tcp, std::nullopt).line == "NVLink");
}

TEST_CASE("round trip: a one-node run with P2P off fits SHM's efficiency and alpha, and applies to SHM only") {
    const PlacedGroup g = make_placed_group(1, 4, {});
    TransportSpec truth;
    truth.shm_params.efficiency = {0.3, 0.3, 0.3};
    truth.shm_params.alpha_us = 9.0;
    const auto run = synthesize(CollectiveOp::AllReduce, g, transport_model(truth, Transport::Shm));
    const Calibration c = fit_calibration(run, g, Transport::Shm, std::nullopt);
    CHECK(c.line == "SHM (PCIe, host memory)");
    CHECK(c.line_gbyte_s == doctest::Approx(22.0));  // 4 GPUs over two sockets: the inter-socket link
    CHECK(c.efficiency == doctest::Approx(0.3).epsilon(1e-9));
    // One group size: alpha is SHM's prior and the floor the rest of the fixed latency (9 us per step).
    CHECK(c.alpha_us == doctest::Approx(TransportSpec{}.shm_params.alpha_us));
    CHECK(c.latency_us == doctest::Approx(9.0 * 6).epsilon(1e-3));  // 2(n-1) = 6 steps of a 4-rank ring
    for (const auto& row : c.rows) {
        CHECK(std::abs(row.residual) < 0.02);
    }
    TransportSpec applied;
    apply_calibration(c, applied);
    CHECK(applied.shm_params.efficiency.value == doctest::Approx(0.3));
    CHECK(applied.shm_params.alpha_us == doctest::Approx(TransportSpec{}.shm_params.alpha_us));
    CHECK(applied.gdrdma_params.efficiency.value == doctest::Approx(0.9));  // the network is untouched
    // The fit itself (curve and floor) is the SHM arm's, apart from every NVLink/PCIe fit.
    REQUIRE(applied.fits != nullptr);
    REQUIRE(applied.fits->shm(CollectiveOp::AllReduce) != nullptr);
    CHECK(applied.fits->intra(CollectiveOp::AllReduce, g.worst_intra) == nullptr);
    // The SHM arm's call now carries the fit's floor (the priors alone do not: issue 28, item 4).
    const TransportModel with = transport_model(applied, Transport::Shm, PriorEnd::Point);
    TransportSpec priors_only = applied;
    priors_only.fits = nullptr;
    const TransportModel without = transport_model(priors_only, Transport::Shm, PriorEnd::Point);
    const double small = 1024;
    CHECK(collective_cost(CollectiveOp::AllReduce, g, small, with).time_s ==
          doctest::Approx(collective_cost(CollectiveOp::AllReduce, g, small, without).time_s + c.floor_us * 1e-6).epsilon(1e-6));
    // The file reads back as shm
    CHECK(written_and_read({c}).front().transport == Transport::Shm);
    // A multi-node run is not an SHM run
    CHECK_THROWS_AS((void)fit_calibration(run, make_placed_group(2, 2, {}), Transport::Shm, std::nullopt), Error);
}
