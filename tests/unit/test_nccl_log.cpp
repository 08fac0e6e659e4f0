// Tests: the NCCL INFO log parser on every real fixture, plus damaged input.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "planlayout/ingest/read_file.hpp"
#include "planlayout/ingest/nccl_log.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

NcclLog fixture(const std::string& name) {
    const std::string path = std::string(PLANLAYOUT_FIXTURES_DIR) + "/nccl-debug-log/" + name;
    return parse_nccl_log(planlayout::read_text_file(path), name);
}

std::size_t count_kind(const NcclLog& log, TransportKind kind) {
    return static_cast<std::size_t>(std::count_if(log.connections.begin(), log.connections.end(),
                                                  [&](const Connection& c) { return c.kind == kind; }));
}

const Connection& find_conn(const NcclLog& log, int channel, int src, int dst, Direction d) {
    const auto it = std::find_if(log.connections.begin(), log.connections.end(), [&](const Connection& c) {
        return c.channel == channel && c.src_rank == src && c.dst_rank == dst && c.direction == d;
    });
    REQUIRE(it != log.connections.end());
    return *it;
}

}  // namespace

TEST_CASE("NCCL 2.7.8 old grammar: busId brackets, sockets, direct shared memory, old trees") {
    const auto log = fixture("nccl2.7.8-2node-4gpu-socket-p2p-ipc-direct-shm-old-grammar.log");
    CHECK(log.nccl_version == "2.7.8");
    CHECK(log.connections.size() == 20);
    CHECK(log.channel_count() == 2);
    CHECK(count_kind(log, TransportKind::NetSocket) == 8);
    CHECK(count_kind(log, TransportKind::P2pIpc) == 8);
    CHECK(count_kind(log, TransportKind::Shm) == 4);
    const auto& send = find_conn(log, 0, 3, 4, Direction::Send);
    CHECK(send.src_dev == "b1000");
    CHECK(send.dst_dev == "18000");
    CHECK(send.conn_index == -1);
    CHECK(send.net_dev == 0);
    CHECK(send.nic_device == "eno2");  // the socket interface, from `NET/Socket : Using [0]eno2`
    CHECK_FALSE(send.gdr);
    CHECK(send.host == "tesla-105");
    CHECK(find_conn(log, 0, 7, 0, Direction::Receive).local_rank() == 0);
    CHECK(log.networks() == std::vector<std::string>{"Socket"});
    CHECK(log.rings.size() == 2);
    CHECK(log.rings[0].ranks.size() == 8);
    CHECK(log.rings[0].total == 2);
    CHECK(log.trees.size() == 8);
    const auto tree = std::find_if(log.trees.begin(), log.trees.end(),
                                   [](const TreeListing& t) { return t.rank == 1 && t.channel == 0; });
    REQUIRE(tree != log.trees.end());
    CHECK(tree->children == std::vector<int>{2, 4});
    CHECK(tree->parent == 0);
    CHECK(log.ranks.at(3).host == "tesla-105");
    CHECK(log.ranks.at(3).cuda_dev == 3);
    CHECK(log.ranks.at(3).bus_id == "b1000");
    CHECK(log.ranks.at(3).nranks == 8);
}

TEST_CASE("NCCL 2.1x socket fallback: P2P/IPC/read, NET/Socket/3, anonymised host") {
    const auto log = fixture("nccl2.1x-2node-socket-fallback-p2p-ipc-read-issue952.log");
    CHECK(log.connections.size() == 16);
    CHECK(log.channel_count() == 8);
    CHECK(count_kind(log, TransportKind::P2pIpc) == 14);
    const auto& s = find_conn(log, 3, 15, 6, Direction::Send);
    CHECK(s.kind == TransportKind::NetSocket);
    CHECK(s.net_dev == 3);
    CHECK(s.conn_index == 0);
    CHECK(s.nic_device.empty());  // no Using line in the excerpt
    CHECK(find_conn(log, 1, 8, 15, Direction::None).read);
    CHECK(log.ranks.at(15).host == "<cluster_name>");
}

TEST_CASE("topology-print excerpts carry no connections but their NIC lists parse") {
    const auto old = fixture("nccl2.11-era-hgx-a100-socket-over-ipoib-topology-print-nccltests-issue100.log");
    CHECK(old.connections.empty());
    REQUIRE(old.processes.count("node2:1208") == 1);
    const auto& sock = old.processes.at("node2:1208").socket_devices;
    REQUIRE(sock.size() == 4);
    CHECK(sock[3].name == "ibp212s0");
    CHECK(sock[3].index == 3);

    const auto vm = fixture("nccl2.2x-h100-vm-topology-print-systemid-nodeids-nccltests-issue256.log");
    CHECK(vm.connections.empty());
    CHECK(vm.lines == 17);
}

TEST_CASE("NCCL 2.19.3 RoCE single-GPU containers: RoCE link layer, IBext network, comm line") {
    const auto log = fixture("nccl2.19.3-roce-single-gpu-containers-graph-subsys-nccltests-issue329.log");
    CHECK(log.connections.empty());
    const auto& p = log.processes.at("6a9ab017bb44:454");
    REQUIRE(p.ib_devices.size() == 1);
    CHECK(p.ib_devices[0].name == "roce0");
    CHECK(p.ib_devices[0].port == "1");
    CHECK(p.ib_devices[0].link_layer == "RoCE");
    CHECK(log.networks() == std::vector<std::string>{"IBext"});
    CHECK(log.ranks.at(0).bus_id == "d8000");
    CHECK(log.ranks.at(0).cuda_dev == 0);
}

TEST_CASE("NCCL 2.23.4 rings and trees listing: 3 channels of 8 ranks, new tree form") {
    const auto log = fixture("nccl2.23.4-4node-a100-ib-sharp-plugin-rings-trees-nccltests-issue311.log");
    CHECK(log.connections.empty());
    CHECK(log.rings.size() == 3);
    CHECK(log.rings[2].channel == 2);
    CHECK(log.rings[2].total == 3);
    CHECK(log.rings[2].ranks == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
    CHECK(log.trees.size() == 24);
    const auto t = std::find_if(log.trees.begin(), log.trees.end(),
                                [](const TreeListing& x) { return x.rank == 2 && x.channel == 1; });
    REQUIRE(t != log.trees.end());
    CHECK(t->children == std::vector<int>{3, 0});
    CHECK(t->parent == 6);
    CHECK(log.ranks.size() == 8);
    CHECK(log.ranks.at(7).host == "gpu41");
    CHECK(log.ranks.at(7).nranks == 8);
}

TEST_CASE("NCCL 2.23.4 PXN: relays, GDRDMA, IBext_v8, NIC names from the Using line of the same host") {
    planlayout::NcclLog log;
    for (const char* name : {"nccl2.23.4-4node-a100-ibext-pxn-cumem-channels-nccltests-issue311.log",
                             "nccl2.23.4-4node-a100-net-ib-sharp-using-line-nccltests-issue311.log"}) {
        const std::string path = std::string(PLANLAYOUT_FIXTURES_DIR) + "/nccl-debug-log/" + name;
        parse_nccl_log_into(planlayout::read_text_file(path), name, log);
    }
    resolve_nic_names(log);
    CHECK(log.connections.size() == 33);
    CHECK(log.channel_count() == 3);
    CHECK(count_kind(log, TransportKind::NetIb) == 21);
    CHECK(count_kind(log, TransportKind::P2pCumem) == 12);
    CHECK(std::all_of(log.connections.begin(), log.connections.end(),
                      [](const Connection& c) { return !is_net(c.kind) || c.gdr; }));
    const auto& pxn = find_conn(log, 0, 3, 4, Direction::Send);
    CHECK(pxn.net_name == "IBext_v8");
    CHECK(pxn.net_dev == 5);
    CHECK(pxn.pxn_relay_rank == 2);
    CHECK(pxn.pxn_relay_dev == "0");
    CHECK(pxn.nic_device.empty());  // gpu36 printed no Using line; another host's order is not assumed
    const auto& recv = find_conn(log, 0, 3, 4, Direction::Receive);
    CHECK(recv.host == "gpu40");
    CHECK(recv.nic_device == "mlx5_2");
    const auto& relay5 = find_conn(log, 1, 5, 6, Direction::Send);
    CHECK(relay5.pxn_relay_rank == 4);
    CHECK(relay5.nic_device == "mlx5_2");
    CHECK(find_conn(log, 0, 4, 5, Direction::None).read);
    const auto& ib = log.processes.at("gpu40:9455").ib_devices;
    REQUIRE(ib.size() == 6);
    CHECK(ib[5].name == "mlx5_4");
    CHECK(ib[0].sharp);
    CHECK(ib[0].link_layer == "IB");
    CHECK(log.networks() == std::vector<std::string>{"IBext_v8"});
}

TEST_CASE("NCCL 2.28.9 VM: P2P/CUMEM with two connection indices, socket network, GDR 1") {
    const auto log = fixture("nccl2.28.9-2xh200-vm-p2p-cumem-rank0.log");
    CHECK(log.nccl_version == "2.28.9");
    CHECK(log.connections.size() == 56);
    CHECK(log.channel_count() == 32);
    CHECK(count_kind(log, TransportKind::P2pCumem) == 56);
    CHECK(find_conn(log, 31, 0, 1, Direction::None).conn_index == 1);
    CHECK(log.rings.size() == 24);
    CHECK(log.rings_connected_gdr == 1);
    CHECK(log.rings_connected_pxn == 0);
    CHECK(log.networks() == std::vector<std::string>{"Socket"});
    CHECK(log.processes.at("vm:639").ib_devices.empty());  // "NET/IB : Using [RO]; OOB …"
    CHECK(log.processes.at("vm:639").socket_devices.at(0).name == "eth0");
}

TEST_CASE("NCCL 2.28.9 VM with P2P disabled: SHM/direct/direct, repeated lines counted once") {
    const auto log = fixture("nccl2.28.9-2xh200-vm-shm-direct-rank0.log");
    CHECK(log.connections.size() == 4);
    CHECK(log.duplicate_connections == 2);
    CHECK(count_kind(log, TransportKind::Shm) == 4);
    CHECK(log.connections[0].conn_index == -1);
    CHECK(log.connections[0].src_dev == "0");
}

TEST_CASE("NCCL 2.2x multinode: IBext_v8 without GDRDMA next to P2P/CUMEM") {
    const auto log = fixture("nccl2.2x-multinode-p2p-cumem-ibext-nogdr-issue1814.log");
    CHECK(log.connections.size() == 13);
    CHECK(count_kind(log, TransportKind::P2pCumem) == 12);
    const auto& net = find_conn(log, 9, 33, 41, Direction::Send);
    CHECK(net.kind == TransportKind::NetIb);
    CHECK(net.net_dev == 4);
    CHECK_FALSE(net.gdr);
    CHECK(net.pxn_relay_rank == -1);
}

TEST_CASE("NCCL 2.2x single process: P2P/direct pointer/read and NET/IB/3 without GDR") {
    const auto log = fixture("nccl2.2x-single-process-8gpu-p2p-direct-pointer-ib-nogdr-issue1412.log");
    CHECK(log.connections.size() == 14);
    CHECK(count_kind(log, TransportKind::P2pDirect) == 10);
    CHECK(count_kind(log, TransportKind::NetIb) == 4);
    const auto& d = find_conn(log, 0, 7, 6, Direction::None);
    CHECK(d.read);
    CHECK(d.via == "P2P/direct pointer/read");
    const auto& r = find_conn(log, 3, 13, 4, Direction::Receive);
    CHECK(r.local_rank() == 4);
    CHECK(r.peer_rank() == 13);
    CHECK_FALSE(r.gdr);
}

TEST_CASE("other grammars: Ring lines of NCCL <= 2.4, 2.5 busIds, plugins with spaces, Shared, tags") {
    const std::string text =
        "host1:10:11 [0] NCCL INFO Ring 00 : 3 -> 4 [send] via NET/IB/0/GDRDMA\n"
        "[155] host1:10:11 [1] NCCL INFO Ring 01 : 155[3d000] -> 157[b2000] via P2P/IPC\n"
        "(RayWorkerWrapper pid=927) h:12:13 [2] NCCL INFO Channel 02/1 : 1[2] -> 9[2] [send] via "
        "NET/AWS Libfabric/2/GDRDMA/Shared\n"
        "Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n"
        "h:12:13 [2] NCCL INFO Channel 03/0 : 1[2] -> 9[2] [send] via NET/Socket/0/GDRDMA\n"
        "h:12:13 [2] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1'\n"
        "h:12:13 [2] NCCL INFO GPU Direct RDMA Enabled for GPU 2 / HCA 0 (distance 4 <= 4), read 0\n";
    const auto log = parse_nccl_log(text, "mixed.log");
    REQUIRE(log.connections.size() == 5);
    CHECK(log.connections[0].kind == TransportKind::NetIb);
    CHECK(log.connections[0].gdr);
    CHECK(log.connections[0].src_dev.empty());
    CHECK(log.connections[1].src_rank == 155);
    CHECK(log.connections[1].src_dev == "3d000");
    CHECK(log.connections[1].host == "host1");
    CHECK(log.connections[2].kind == TransportKind::NetOther);
    CHECK(log.connections[2].net_name == "AWS Libfabric");
    CHECK(log.connections[2].shared);
    CHECK(log.connections[2].conn_index == 1);
    CHECK(log.connections[3].host.empty());  // pasted without envelope
    CHECK(log.connections[4].kind == TransportKind::NetSocket);
    CHECK(log.connections[4].gdr);  // the label is kept; verify reports it as info
    REQUIRE(log.gdr_lines.size() == 2);
    CHECK_FALSE(log.gdr_lines[0].enabled);
    CHECK(log.gdr_lines[0].hca == "mlx5_1");
    CHECK(log.gdr_lines[1].enabled);
    CHECK(log.gdr_lines[1].hca_index == 0);
}

TEST_CASE("malformed, truncated and binary logs never crash") {
    SUBCASE("truncated connection lines are counted and named") {
        const auto log = parse_nccl_log(
            "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[\n"
            "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> via P2P/IPC\n"
            "h:1:2 [0] NCCL INFO Channel 99999999999 : 0 -> 1 via P2P/IPC\n"
            "h:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via \n"
            "h:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/IPC\n",
            "t.log");
        CHECK(log.connections.size() == 1);
        CHECK(log.skipped_connection_lines == 4);
        REQUIRE(!log.diagnostics.empty());
        CHECK(log.diagnostics[0] == "t.log:1");
    }
    SUBCASE("binary bytes, NULs, huge lines and empty input") {
        std::string bin;
        for (int i = 0; i < 4096; ++i) {
            bin.push_back(static_cast<char>((i * 7919) % 256));
        }
        bin += "\0NCCL INFO Channel \xff : \0 via \n";
        bin += std::string(1 << 20, 'x') + " NCCL INFO Trees [0] 1/2/";
        CHECK_NOTHROW((void)parse_nccl_log(bin, "bin"));
        CHECK_NOTHROW((void)parse_nccl_log("", "empty"));
        CHECK_NOTHROW((void)parse_nccl_log("NCCL INFO \n:::: [] NCCL INFO NET/IB : Using [", "x"));
        CHECK_NOTHROW((void)parse_nccl_log("h:1:2 [0] NCCL INFO Trees [0] -1/-1/-1->0->-1|", "x"));
        CHECK_NOTHROW((void)parse_nccl_log("h:1:2 [0] NCCL INFO GPU Direct RDMA Enabled for HCA '", "x"));
    }
}

TEST_CASE("an NCCL line with a control character is skipped and named, its names never read (issue 41 item 7)") {
    const std::string clean = "node-a:4100:4300 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB eth0:10.0.0.1<0>\n";
    const std::string evil = "node-a:4101:4301 [1] NCCL INFO NET/IB : Using [0]mlx5_0\x1b[2J:1/IB [RO]; OOB eth0:10.0.0.1<0>\n"
                             "node\x1b]0;t\x07:4102:4302 [2] NCCL INFO NET/IB : Using [0]mlx5_1:1/IB [RO]; OOB eth0:10.0.0.1<0>\n";
    const NcclLog log = parse_nccl_log(clean + evil, "job.log");
    CHECK(log.skipped_connection_lines == 2);
    CHECK(log.diagnostics == std::vector<std::string>{"job.log:2", "job.log:3"});
    for (const auto& entry : log.processes) {  // no structured binding: clang 14 cannot capture one
        CAPTURE(entry.first);
        CHECK(entry.first.find('\x1b') == std::string::npos);
        for (const auto& d : entry.second.ib_devices) {
            CHECK(d.name.find('\x1b') == std::string::npos);
        }
    }
    CHECK(log.processes.count("node-a:4100") == 1);
}

TEST_CASE("skipped connection lines are all counted and the first five named") {
    const std::vector<std::string> five{"x.log:1", "x.log:2", "x.log:3", "x.log:4", "x.log:5"};
    std::string control;
    std::string malformed;
    for (int i = 0; i < 7; ++i) {
        control += "node-a:4101:4301 [1] NCCL INFO NET/IB : Using [0]mlx5_0\x1b[2J:1/IB [RO]; OOB eth0:10.0.0.1<0>\n";
        malformed += "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[\n";
    }
    const NcclLog a = parse_nccl_log(control, "x.log");
    CHECK(a.skipped_connection_lines == 7);
    CHECK(a.diagnostics == five);
    const NcclLog b = parse_nccl_log(malformed, "x.log");
    CHECK(b.skipped_connection_lines == 7);
    CHECK(b.diagnostics == five);
}
