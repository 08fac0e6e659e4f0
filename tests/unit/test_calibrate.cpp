// Tests: calibration fits back the parameters its rows were made from.
#include <doctest/doctest.h>

#include <cmath>

#include "planlayout/emit/calibration_emit.hpp"
#include "planlayout/ingest/calibration_file.hpp"
#include "planlayout/analysis/calibrate.hpp"
#include "planlayout/error.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

/// nccl-tests rows of a doubling curve, timed by the cost model itself.
NcclTestsRun synthesize(CollectiveOp op, const PlacedGroup& g, const TransportModel& x) {
    NcclTestsRun run;
    run.op = op;
    run.ranks = g.n;
    std::size_t line = 1;
    for (double s = 1 << 20; s <= double(1ULL << 33); s *= 2) {
        NcclTestsRow r;
        r.line = line++;
        r.size_bytes = s;
        r.time_us = collective_cost(op, g, s, x).time_s * 1e6;
        run.rows.push_back(r);
    }
    return run;
}

}  // namespace

TEST_CASE("round trip: rail-NIC all_reduce rows fit back alpha and efficiency, and predict the same times") {
    NodeHardware hw;
    hw.nic_gbit_s = 100;  // NIC bound, so the NIC term is what gets fitted
    const PlacedGroup g = make_placed_group(4, 8, hw);
    TransportSpec truth;
    truth.gdrdma_params.efficiency.value = 0.72;
    truth.gdrdma_params.alpha_us = 11.5;
    const auto run = synthesize(CollectiveOp::AllReduce, g, transport_model(truth, Transport::Gdrdma));
    const Calibration c = fit_calibration(run, g, Transport::Gdrdma, std::nullopt);
    CHECK(c.efficiency == doctest::Approx(0.72).epsilon(1e-9));
    CHECK(c.alpha_us == doctest::Approx(11.5).epsilon(1e-6));
    CHECK(c.rms_residual < 1e-9);
    CHECK(c.link_class == PathClass::Rail);
    CHECK(c.line == "rail NIC");
    // Written, read back and applied, it predicts what it was fitted on.
    const Calibration back = calibration_from_json(to_json(c), "calib.json");
    TransportSpec spec;
    apply_calibration(back, spec);
    for (const auto& r : run.rows) {
        CHECK(all_reduce(g, r.size_bytes, transport_model(spec, Transport::Gdrdma)).time_s * 1e6 ==
              doctest::Approx(r.time_us));
    }
}

TEST_CASE("round trip: TCP all_to_all fits the all-to-all efficiency of the shared interface") {
    NodeHardware hw;
    hw.tcp_gbit_s = 200;
    const PlacedGroup g = make_placed_group(2, 8, hw);
    TransportSpec truth;
    truth.tcp_params.alltoall_efficiency.value = 0.31;
    truth.tcp_params.alpha_us = 25;
    const auto run = synthesize(CollectiveOp::AllToAll, g, transport_model(truth, Transport::Tcp));
    const Calibration c = fit_calibration(run, g, Transport::Tcp, std::nullopt);
    CHECK(c.efficiency == doctest::Approx(0.31).epsilon(1e-9));
    CHECK(c.alpha_us == doctest::Approx(25).epsilon(1e-6));
    CHECK(c.line == "TCP interface");
    TransportSpec spec;
    apply_calibration(c, spec);
    CHECK(spec.tcp_params.alltoall_efficiency.value == doctest::Approx(0.31));
    CHECK(spec.tcp_params.efficiency.value == 0.4);  // the ring prior is left alone
}

TEST_CASE("round trip: an NVLink-class fit sets the shape's NVLink efficiency and alpha") {
    PlacedGroup g = make_placed_group(1, 8, {});
    g.nvlink_efficiency = 0.66;
    g.nvlink_alpha_us = 2.5;
    const auto run = synthesize(CollectiveOp::AllGather, g, transport_model({}, Transport::Gdrdma));
    const Calibration c = fit_calibration(run, make_placed_group(1, 8, {}), Transport::Gdrdma, std::nullopt);
    CHECK(c.link_class == PathClass::Nv);
    CHECK(c.efficiency == doctest::Approx(0.66).epsilon(1e-9));
    CHECK(c.alpha_us == doctest::Approx(2.5).epsilon(1e-6));
    PlacedGroup applied = make_placed_group(1, 8, {});
    apply_calibration(c, applied);
    CHECK(applied.nvlink_efficiency == doctest::Approx(0.66));
}

TEST_CASE("rows below min_size are listed but not fitted; one row is not enough") {
    const PlacedGroup g = make_placed_group(2, 8, {});
    const auto run = synthesize(CollectiveOp::AllReduce, g, transport_model({}, Transport::Gdrdma));
    const Calibration c = fit_calibration(run, g, Transport::Gdrdma, std::nullopt, double(1ULL << 32));
    CHECK(c.rows_used == 2);
    CHECK_FALSE(c.rows.front().used);
    CHECK_THROWS_WITH_AS((void)fit_calibration(run, g, Transport::Gdrdma, std::nullopt, double(1ULL << 33)),
                         doctest::Contains("only 1 row(s) to fit"), Error);
}

TEST_CASE("a calibration file that is not one is refused with its pointer") {
    CHECK_THROWS_WITH_AS((void)calibration_from_json(nlohmann::json::object(), "c.json"),
                         "c.json (/kind): missing 'kind'; write the file with plan-layout calibrate -o FILE", Error);
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
    const Calibration back = calibration_from_json(to_json(c), "calib.json");
    CHECK(back.socket_inside_node);
    CHECK(render_text(c).find("sockets inside the node") != std::string::npos);
    // Without the flag the same rows are NVLink rows: a different (and wrong) line.
    CHECK(fit_calibration(run, g, Transport::Tcp, std::nullopt).line == "NVLink");
    // An NV-class fit reaches the node hardware every shape is built from.
    Calibration nv = c;
    nv.link_class = PathClass::Nv;
    nv.efficiency = 0.7;
    nv.alpha_us = 17;
    NodeHardware hw;
    apply_calibration(nv, hw);
    CHECK(make_placed_group(1, 8, hw).nvlink_efficiency == 0.7);
    CHECK(make_placed_group(1, 8, hw).nvlink_alpha_us == 17);
    apply_calibration(c, hw);  // a TCP-class fit leaves it alone
    CHECK(hw.nvlink_efficiency == 0.7);
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
    CHECK(c.alpha_us == doctest::Approx(9.0).epsilon(1e-6));
    for (const auto& row : c.rows) {
        CHECK(std::abs(row.residual) < 0.02);
    }
    TransportSpec applied;
    apply_calibration(c, applied);
    CHECK(applied.shm_params.efficiency.value == doctest::Approx(0.3));
    CHECK(applied.shm_params.alpha_us == doctest::Approx(9.0));
    CHECK(applied.gdrdma_params.efficiency.value == doctest::Approx(0.9));  // the network is untouched
    PlacedGroup shape = g;
    apply_calibration(c, shape);
    CHECK(shape.nvlink_efficiency == doctest::Approx(0.8));  // and so is NVLink
    // The file reads back as shm
    const Calibration back = calibration_from_json(to_json(c), "shm.json");
    CHECK(back.transport == Transport::Shm);
    // A multi-node run is not an SHM run
    CHECK_THROWS_AS((void)fit_calibration(run, make_placed_group(2, 2, {}), Transport::Shm, std::nullopt), Error);
}
