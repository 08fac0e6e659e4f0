// Emit: a verify report as text and JSON.
#include "planlayout/emit/verify_emit.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <tuple>

#include "planlayout/text_format.hpp"

namespace planlayout::verify {

using nlohmann::json;

std::string summary_line(const VerifyReport& report) {
    std::ostringstream out;
    out << "verify: " << (report.passed() ? "PASS " : "FAIL ") << report.errors << " errors "
        << report.warnings << " warnings " << report.ranks_seen << " ranks "
        << report.log.channel_count() << " channels";
    return out.str();
}

namespace {

std::vector<const Connection*> sorted_connections(const NcclLog& log) {
    std::vector<const Connection*> out;
    for (const auto& c : log.connections) {
        out.push_back(&c);
    }
    std::stable_sort(out.begin(), out.end(), [](const Connection* a, const Connection* b) {
        return std::make_tuple(a->local_rank(), a->channel, a->conn_index,
                               static_cast<int>(a->direction), a->peer_rank()) <
               std::make_tuple(b->local_rank(), b->channel, b->conn_index,
                               static_cast<int>(b->direction), b->peer_rank());
    });
    return out;
}

}  // namespace

std::string render_text(const VerifyReport& report) {
    const NcclLog& log = report.log;
    std::ostringstream out;
    std::set<int> nodes;
    for (const auto& r : report.expectation.ranks) {
        nodes.insert(r.node);
    }
    std::string networks;
    for (const auto& n : log.networks()) {
        networks += (networks.empty() ? "" : ",") + n;
    }
    out << "verify: " << log.sources.size() << (log.sources.size() == 1 ? " log" : " logs")
        << ", NCCL " << (log.nccl_version.empty() ? "version unknown" : log.nccl_version)
        << ", network " << (networks.empty() ? "not named" : networks) << ", expect "
        << to_string(report.expectation.expect)
        << (report.expectation.intra == verify::ExpectedIntra::Shm ? " (shm inside nodes)" : "") << ", plan " << report.expectation.ranks.size()
        << " ranks on " << nodes.size() << (nodes.size() == 1 ? " node\n" : " nodes\n");
    if (!log.connections.empty()) {
        out << "\n"
            << padded("rank", 6) << padded("host", 14) << padded("ch", 4) << padded("dir", 9) << padded("peer", 6)
            << padded("transport", 12) << padded("nic", 14) << padded("gdr", 5) << padded("pxn", 8) << "via\n";
        for (const Connection* c : sorted_connections(log)) {
            const auto host = report.rank_hosts.find(c->local_rank());
            std::string ch = std::to_string(c->channel);
            if (c->conn_index > 0) {
                ch += "/" + std::to_string(c->conn_index);
            }
            std::string nic = "-";
            if (c->net_dev >= 0) {
                nic = std::to_string(c->net_dev) + (c->nic_device.empty() ? "" : " " + c->nic_device);
            }
            std::string pxn = "-";
            if (c->pxn_relay_rank >= 0) {
                pxn = std::to_string(c->pxn_relay_rank) +
                      (c->pxn_relay_dev.empty() ? "" : "[" + c->pxn_relay_dev + "]");
            }
            out << padded(std::to_string(c->local_rank()), 6)
                << padded(host == report.rank_hosts.end() ? "-" : host->second, 14) << padded(ch, 4)
                << padded(to_string(c->direction), 9) << padded(std::to_string(c->peer_rank()), 6)
                << padded(to_string(c->kind), 12) << padded(nic, 14)
                << padded(is_net(c->kind) ? (c->gdr ? "on" : "off") : "-", 5) << padded(pxn, 8)
                << c->via << "\n";
        }
    }
    if (!report.findings.empty()) {
        out << "\nfindings:\n";
        for (const auto& f : report.findings) {
            out << "  " << padded(std::string(to_string(f.severity)), 8) << f.code;
            if (f.rank >= 0) {
                out << " rank " << f.rank;
            }
            out << ": " << f.message << "\n";
            if (!f.fix.empty()) {
                out << "           fix: " << f.fix << "\n";
            }
        }
    }
    out << "\n" << summary_line(report) << "\n";
    return out.str();
}

namespace {

nlohmann::json connection_json(const Connection* c) {
    using nlohmann::json;
    json j = {{"rank", c->local_rank()},
              {"peer", c->peer_rank()},
              {"src", c->src_rank},
              {"dst", c->dst_rank},
              {"channel", c->channel},
              {"conn_index", c->conn_index},
              {"direction", to_string(c->direction)},
              {"transport", to_string(c->kind)},
              {"via", c->via.str()},
              {"source", c->source.str()},
              {"line", c->line}};
    if (is_net(c->kind)) {
        j["net"] = c->net_name.str();
        j["nic_index"] = c->net_dev;
        j["nic_device"] = c->nic_device.empty() ? json(nullptr) : json(c->nic_device.str());
        j["gdr"] = c->gdr;
        j["shared"] = c->shared;
        j["pxn_relay_rank"] = c->pxn_relay_rank >= 0 ? json(c->pxn_relay_rank) : json(nullptr);
    }
    if (is_p2p(c->kind)) {
        j["read"] = c->read;
    }
    return j;
}

nlohmann::json plan_rank_json(const RankExpectation& r) {
    return {{"rank", r.rank}, {"node", r.node}, {"local_gpu", r.local_gpu}, {"nic_index", r.nic_index}, {"nic_device", r.nic_device}};
}

/// Everything but the two big arrays, which `with_arrays` fills (to_json) or leaves empty
/// (to_json_text streams them).
nlohmann::json report_json(const VerifyReport& report, bool with_arrays) {
    using nlohmann::json;
    const NcclLog& log = report.log;
    json conns = json::array();
    json expect_ranks = json::array();
    if (with_arrays) {
        for (const Connection* c : sorted_connections(log)) {
            conns.push_back(connection_json(c));
        }
        for (const auto& r : report.expectation.ranks) {
            expect_ranks.push_back(plan_rank_json(r));
        }
    }
    json findings = json::array();
    for (const auto& f : report.findings) {
        findings.push_back({{"severity", std::string(to_string(f.severity))},
                            {"code", f.code},
                            {"rank", f.rank >= 0 ? json(f.rank) : json(nullptr)},
                            {"channel", f.channel >= 0 ? json(f.channel) : json(nullptr)},
                            {"message", f.message},
                            {"fix", f.fix}});
    }
    json hosts = json::object();
    for (const auto& [rank, host] : report.rank_hosts) {
        hosts[std::to_string(rank)] = host;
    }
    return json{{"schema_version", 1},
                {"command", "verify"},
                {"logs", log.sources},
                {"nccl_version", log.nccl_version},
                {"networks", log.networks()},
                {"expect", to_string(report.expectation.expect)},
                {"intra", to_string(report.expectation.intra)},
                {"plan", expect_ranks},
                {"rank_hosts", hosts},
                {"connections", conns},
                {"findings", findings},
                {"summary",
                 {{"status", report.passed() ? "PASS" : "FAIL"},
                  {"errors", report.errors},
                  {"warnings", report.warnings},
                  {"infos", report.infos},
                  {"ranks", report.ranks_seen},
                  {"channels", log.channel_count()},
                  {"connections", log.connections.size()},
                  {"duplicate_lines", log.duplicate_connections},
                  {"unparsed_lines", log.skipped_connection_lines},
                  {"line", summary_line(report)}}}};
}

std::string dump(const nlohmann::json& j) { return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace); }

/// Writes one array element as dump(2) writes it one level deeper (four more spaces).
void write_element(std::ostream& out, const nlohmann::json& j, bool first) {
    const std::string one = dump(j);
    out << (first ? "\n    " : ",\n    ");
    std::size_t from = 0;
    while (true) {  // dump escapes newlines inside strings: these are line breaks
        const auto nl = one.find('\n', from);
        if (nl == std::string::npos) {
            out.write(one.data() + from, static_cast<std::streamsize>(one.size() - from));
            return;
        }
        out.write(one.data() + from, static_cast<std::streamsize>(nl + 1 - from));
        out << "    ";
        from = nl + 1;
    }
}

}  // namespace

nlohmann::json to_json(const VerifyReport& report) { return report_json(report, true); }

void write_json(const VerifyReport& report, std::ostream& out) {
    // The report without the two big arrays, dumped once; each top-level `"key": []` left empty
    // there is written element by element straight into `out`, in the order the keys come.
    const std::string text = dump(report_json(report, false));
    const auto conns = sorted_connections(report.log);
    const auto& ranks = report.expectation.ranks;
    struct Slot {
        std::size_t at;
        std::size_t size;
        int which;  // 0: connections, 1: plan
    };
    std::vector<Slot> slots;
    for (int which = 0; which < 2; ++which) {
        const std::string empty = std::string("\n  \"") + (which == 0 ? "connections" : "plan") + "\": []";
        const std::size_t count = which == 0 ? conns.size() : ranks.size();
        if (const auto at = text.find(empty); at != std::string::npos && count > 0) {
            slots.push_back({at, empty.size(), which});
        }
    }
    std::sort(slots.begin(), slots.end(), [](const Slot& a, const Slot& b) { return a.at < b.at; });
    std::size_t from = 0;
    for (const Slot& s : slots) {
        out.write(text.data() + from, static_cast<std::streamsize>(s.at - from));
        out << "\n  \"" << (s.which == 0 ? "connections" : "plan") << "\": [";
        if (s.which == 0) {
            for (std::size_t i = 0; i < conns.size(); ++i) {
                write_element(out, connection_json(conns[i]), i == 0);
            }
        } else {
            for (std::size_t i = 0; i < ranks.size(); ++i) {
                write_element(out, plan_rank_json(ranks[i]), i == 0);
            }
        }
        out << "\n  ]";
        from = s.at + s.size;
    }
    out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
    out << '\n';
}

std::string to_json_text(const VerifyReport& report) {
    std::ostringstream out;
    write_json(report, out);
    return out.str();
}

}  // namespace planlayout::verify
