// Ingest: NCCL_DEBUG=INFO log parser. Hand-written scanning (no std::regex: its recursion can
// overflow the stack on the multi-megabyte binary "lines" a damaged log may contain).
// Over 500 lines on purpose: one scanner per NCCL message family (connections, NET/IB and
// GDR lines, rings, trees, comm init) across every NCCL generation from 2.4 to 2.28, kept
// together so a new NCCL wording is fixed in one place.
#include "planlayout/ingest/nccl_log.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_set>

namespace planlayout {
namespace {

constexpr std::size_t kMaxDiagnostics = 5;

bool has_control_byte(std::string_view s) {
    return std::any_of(s.begin(), s.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return (u < 0x20 && u != '\t') || u == 0x7f;
    });
}

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

std::string_view trim_view(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) {
        s.remove_prefix(1);
    }
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) {
        s.remove_suffix(1);
    }
    return s;
}

bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

/// A small cursor over one message; every read is bounds-checked.
class Scanner {
public:
    explicit Scanner(std::string_view s) : s_(s) {}

    void skip_spaces() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) {
            ++pos_;
        }
    }

    bool eat(std::string_view lit) {
        if (s_.substr(pos_, lit.size()) == lit) {
            pos_ += lit.size();
            return true;
        }
        return false;
    }

    /// A non-negative decimal of at most 9 digits (larger numbers are not ranks or channels).
    bool integer(int& out) {
        std::size_t end = pos_;
        while (end < s_.size() && is_ascii_digit(s_[end]) && end - pos_ < 10) {
            ++end;
        }
        if (end == pos_ || end - pos_ > 9 || (end < s_.size() && is_ascii_digit(s_[end]))) {
            return false;
        }
        int v = 0;
        for (std::size_t i = pos_; i < end; ++i) {
            v = v * 10 + (s_[i] - '0');
        }
        out = v;
        pos_ = end;
        return true;
    }

    /// A possibly negative integer (tree listings use -1).
    bool signed_integer(int& out) {
        const bool neg = eat("-");
        if (!integer(out)) {
            return false;
        }
        out = neg ? -out : out;
        return true;
    }

    /// Text up to (not including) `close`; fails when close never comes.
    bool until(char close, std::string& out) {
        const auto end = s_.find(close, pos_);
        if (end == std::string_view::npos) {
            return false;
        }
        out = std::string(s_.substr(pos_, end - pos_));
        pos_ = end + 1;
        return true;
    }

    [[nodiscard]] std::string_view rest() const { return s_.substr(pos_); }

    [[nodiscard]] bool done() const { return pos_ >= s_.size(); }

private:
    std::string_view s_;
    std::size_t pos_ = 0;
};

/// The `host:pid:tid [dev]` envelope in front of "NCCL INFO".
struct Envelope {
    std::string host;
    int pid = -1;
    int dev = -1;
};

/// Splits "…host:pid:tid [dev] NCCL INFO msg" into envelope and message. Launcher prefixes
/// (`[1,0]<stdout>:`, `[155] `, timestamps) sit before the host and are dropped.
bool split_envelope(std::string_view line, Envelope& env, std::string_view& msg) {
    constexpr std::string_view kInfo = "NCCL INFO ";
    const auto at = line.find(kInfo);
    if (at == std::string_view::npos) {
        return false;
    }
    msg = line.substr(at + kInfo.size());
    std::string_view head = trim_view(line.substr(0, at));
    // [dev]
    if (!head.empty() && head.back() == ']') {
        const auto open = head.rfind('[');
        if (open != std::string_view::npos) {
            Scanner sc(head.substr(open + 1, head.size() - open - 2));
            int dev = -1;
            if (sc.integer(dev) && sc.done()) {
                env.dev = dev;
            }
            head = trim_view(head.substr(0, open));
        }
    }
    // host:pid:tid is the last whitespace-separated token.
    const auto space = head.find_last_of(" \t");
    std::string_view token = space == std::string_view::npos ? head : head.substr(space + 1);
    const auto c2 = token.rfind(':');
    if (c2 == std::string_view::npos || c2 == 0) {
        return true;
    }
    const auto c1 = token.rfind(':', c2 - 1);
    if (c1 == std::string_view::npos) {
        return true;
    }
    Scanner pid_sc(token.substr(c1 + 1, c2 - c1 - 1));
    int pid = -1;
    if (!pid_sc.integer(pid) || !pid_sc.done()) {
        return true;
    }
    env.pid = pid;
    std::string_view host = token.substr(0, c1);
    if (const auto c0 = host.rfind(':'); c0 != std::string_view::npos) {
        host = host.substr(c0 + 1);  // "[1,0]<stdout>:gpu34" → "gpu34"
    }
    env.host = std::string(host);
    return true;
}

std::string process_key(const std::string& host, int pid) {
    return host + ":" + std::to_string(pid);
}

/// Splits s on '/'.
std::vector<std::string_view> split_slash(std::string_view s) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= s.size(); ++i) {
        if (i == s.size() || s[i] == '/') {
            parts.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    }
    return parts;
}

/// Fills kind, net_name, net_dev, relay and flags from the text after "via ".
void classify_via(Connection& c, NcclLog& log) {
    const std::string_view via = c.via.str();
    const auto parts = split_slash(via);
    auto has_part = [&](std::string_view word) {
        return std::any_of(parts.begin() + 1, parts.end(), [&](std::string_view p) {
            return p.find(word) != std::string_view::npos;
        });
    };
    if (starts_with(via, "NET/") && parts.size() >= 3) {
        c.net_name = log.intern(parts[1]);
        c.kind = starts_with(parts[1], "IB")       ? TransportKind::NetIb
                 : starts_with(parts[1], "Socket") ? TransportKind::NetSocket
                                                   : TransportKind::NetOther;
        Scanner sc(parts[2]);
        int dev = -1;
        if (sc.integer(dev)) {
            c.net_dev = dev;
            int relay = -1;
            if (sc.eat("(") && sc.integer(relay) && sc.eat(")")) {
                c.pxn_relay_rank = relay;
            }
        }
        c.gdr = has_part("GDRDMA");
        c.shared = has_part("Shared");
    } else if (starts_with(via, "P2P/")) {
        c.kind = starts_with(via, "P2P/IPC")              ? TransportKind::P2pIpc
                 : starts_with(via, "P2P/CUMEM")          ? TransportKind::P2pCumem
                 : starts_with(via, "P2P/direct pointer") ? TransportKind::P2pDirect
                                                          : TransportKind::P2pOther;
        c.read = has_part("read");
        c.copy_engine = std::any_of(parts.begin() + 1, parts.end(),
                                    [](std::string_view p) { return p == "CE"; });
    } else if (starts_with(via, "SHM") || via.find("shared memory") != std::string_view::npos) {
        c.kind = TransportKind::Shm;
    } else if (starts_with(via, "COLLNET")) {
        c.kind = TransportKind::CollNet;
    }
}

enum class ParseResult { NotConnection, Connection, Malformed };

/// `(Ring|Channel) ch[/k] : a[x] -> b[y] [send|receive] via T`.
ParseResult parse_connection(std::string_view msg, Connection& c, NcclLog& log) {
    std::string src_dev;
    std::string dst_dev;
    Scanner sc(msg);
    if (!sc.eat("Channel ") && !sc.eat("Ring ")) {
        return ParseResult::NotConnection;
    }
    if (msg.find(" via ") == std::string_view::npos) {
        // Ring/channel listings ("Channel 00/02 : 0 1 2") and GRAPH "Ring 00 : 0 -> 1 -> 2" have
        // no "via"; a Channel line with an arrow but no transport was cut short.
        return starts_with(msg, "Channel ") && msg.find("->") != std::string_view::npos
                   ? ParseResult::Malformed
                   : ParseResult::NotConnection;
    }
    sc.skip_spaces();
    if (!sc.integer(c.channel)) {
        return ParseResult::Malformed;
    }
    if (sc.eat("/") && !sc.integer(c.conn_index)) {
        return ParseResult::Malformed;
    }
    sc.skip_spaces();
    if (!sc.eat(":")) {
        return ParseResult::Malformed;
    }
    sc.skip_spaces();
    if (!sc.integer(c.src_rank)) {
        return ParseResult::Malformed;
    }
    if (sc.eat("[") && !sc.until(']', src_dev)) {
        return ParseResult::Malformed;
    }
    sc.skip_spaces();
    if (!sc.eat("->")) {
        return ParseResult::Malformed;
    }
    sc.skip_spaces();
    if (!sc.integer(c.dst_rank)) {
        return ParseResult::Malformed;
    }
    if (sc.eat("[") && !sc.until(']', dst_dev)) {
        return ParseResult::Malformed;
    }
    sc.skip_spaces();
    if (sc.eat("[send]")) {
        c.direction = Direction::Send;
    } else if (sc.eat("[receive]")) {
        c.direction = Direction::Receive;
    }
    sc.skip_spaces();
    if (!sc.eat("via ")) {
        return ParseResult::Malformed;
    }
    const std::string_view via = trim_view(sc.rest());
    if (via.empty()) {
        return ParseResult::Malformed;
    }
    c.via = log.intern(via);
    c.src_dev = log.intern(src_dev);
    c.dst_dev = log.intern(dst_dev);
    classify_via(c, log);
    return ParseResult::Connection;
}

/// `NET/IB : Using [0]mlx5_0:1/IB/SHARP [1]… [RO]; OOB …` and `NET/Socket : Using [0]eno2:ip<0>`.
bool parse_using(std::string_view msg, ProcessNet& proc) {
    if (!starts_with(msg, "NET/")) {
        return false;
    }
    const auto using_at = msg.find(": Using");
    if (using_at == std::string_view::npos) {
        return false;
    }
    const std::string_view net = trim_view(msg.substr(4, using_at - 4));
    const bool socket = net.find("Socket") != std::string_view::npos;
    std::string_view list = msg.substr(using_at + 7);
    if (const auto oob = list.find(';'); oob != std::string_view::npos) {
        list = list.substr(0, oob);
    }
    std::vector<NetDevice> devices;
    std::size_t i = 0;
    while (i < list.size()) {
        while (i < list.size() && list[i] == ' ') {
            ++i;
        }
        auto end = list.find(' ', i);
        if (end == std::string_view::npos) {
            end = list.size();
        }
        const std::string_view token = list.substr(i, end - i);
        i = end;
        Scanner sc(token);
        NetDevice d;
        if (!sc.eat("[") || !sc.integer(d.index) || !sc.eat("]")) {
            continue;  // "[RO]" and anything else
        }
        const std::string_view body = sc.rest();
        const auto colon = body.find(':');
        d.name = std::string(body.substr(0, colon));
        if (!socket && colon != std::string_view::npos) {
            const auto fields = split_slash(body.substr(colon + 1));
            d.port = std::string(fields[0]);
            if (fields.size() > 1) {
                d.link_layer = std::string(fields[1]);
            }
            d.sharp = std::find(fields.begin(), fields.end(), "SHARP") != fields.end();
        }
        if (!d.name.empty()) {
            devices.push_back(d);
        }
    }
    (socket ? proc.socket_devices : proc.ib_devices) = std::move(devices);
    return true;
}

/// `NET/IB: [0] mlx5_0:uverbs0:1/IB provider=Mlx5 speed=400000 context=0x… pciPath=… ar=1` (NVIDIA/nccl
/// src/transport/net_ib/init.cc, ncclIbInitDevices: name:dev_name:port/link layer, speed in Mb/s).
bool parse_ib_device(std::string_view msg, ProcessNet& proc) {
    if (!starts_with(msg, "NET/IB: [")) {
        return false;
    }
    Scanner sc(msg.substr(8));
    NetDevice d;
    if (!sc.eat("[") || !sc.integer(d.index) || !sc.eat("]")) {
        return false;
    }
    const std::string_view rest = trim_view(sc.rest());
    const auto space = rest.find(' ');
    const std::string_view id = rest.substr(0, space);
    const auto fields = split_slash(id);
    if (fields.size() < 2) {
        return false;
    }
    const std::string_view names = fields[0];  // mlx5_0:uverbs0:1
    const auto c1 = names.find(':');
    const auto c2 = names.rfind(':');
    if (c1 == std::string_view::npos || c2 == c1) {
        return false;
    }
    d.name = std::string(names.substr(0, c1));
    d.port = std::string(names.substr(c2 + 1));
    d.link_layer = std::string(fields[1]);
    if (const auto sp = rest.find(" speed="); sp != std::string_view::npos) {
        const std::string_view num = rest.substr(sp + 7, rest.find(' ', sp + 7) - (sp + 7));
        long long v = 0;
        bool ok = !num.empty() && num.size() <= 12;
        for (const char ch : num) {
            ok = ok && ch >= '0' && ch <= '9';
            v = ok ? v * 10 + (ch - '0') : v;
        }
        d.speed_mbit_s = ok ? v : 0;
    }
    for (auto& known : proc.ib_device_lines) {
        if (known.index == d.index) {
            known = d;
            return true;
        }
    }
    proc.ib_device_lines.push_back(d);
    return true;
}

/// `GPU Direct RDMA Enabled for HCA 0 'mlx5_0'` or `… Disabled for GPU 0 / HCA 0 (distance 4 > 2)`.
bool parse_gdr(std::string_view msg, GdrLine& g) {
    const auto at = msg.find("GPU Direct RDMA ");
    if (at == std::string_view::npos) {
        return false;
    }
    Scanner sc(msg.substr(at + 16));
    if (sc.eat("Enabled")) {
        g.enabled = true;
    } else if (!sc.eat("Disabled")) {
        return false;
    }
    const std::string_view rest = sc.rest();
    if (const auto hca = rest.find("HCA "); hca != std::string_view::npos) {
        Scanner hs(rest.substr(hca + 4));
        int idx = -1;
        if (hs.integer(idx)) {
            g.hca_index = idx;
        }
        hs.skip_spaces();
        std::string name;
        if (hs.eat("'") && hs.until('\'', name)) {
            g.hca = name;
        }
    }
    return true;
}

/// `Trees [0] 1/4/-1->0->-1 [1] …`; the ≤2.11 form adds `|p->me->c0/c1/c2` (dropped).
void parse_trees(std::string_view msg, std::vector<TreeListing>& out) {
    Scanner sc(msg.substr(6));
    while (true) {
        sc.skip_spaces();
        TreeListing t;
        if (!sc.eat("[") || !sc.integer(t.channel) || !sc.eat("]")) {
            return;
        }
        sc.skip_spaces();
        for (int k = 0; k < 3; ++k) {
            int child = -1;
            if (!sc.signed_integer(child)) {
                return;
            }
            if (child >= 0) {
                t.children.push_back(child);
            }
            if (k < 2 && !sc.eat("/")) {
                return;
            }
        }
        if (!sc.eat("->") || !sc.signed_integer(t.rank) || !sc.eat("->") ||
            !sc.signed_integer(t.parent)) {
            return;
        }
        out.push_back(t);
        if (sc.eat("|")) {  // old down-tree half: skip to the next space
            const auto rest = sc.rest();
            const auto sp = rest.find(' ');
            if (sp == std::string_view::npos) {
                return;
            }
            sc = Scanner(rest.substr(sp));
        }
    }
}

/// `Channel 00/02 :    0   1   2   3` (2.7+).
bool parse_ring_listing(std::string_view msg, RingListing& r) {
    Scanner sc(msg);
    if (!sc.eat("Channel ") || !sc.integer(r.channel) || !sc.eat("/") || !sc.integer(r.total)) {
        return false;
    }
    sc.skip_spaces();
    if (!sc.eat(":")) {
        return false;
    }
    while (true) {
        sc.skip_spaces();
        if (sc.done()) {
            break;
        }
        int rank = -1;
        if (!sc.integer(rank)) {
            return false;
        }
        r.ranks.push_back(rank);
    }
    return !r.ranks.empty();
}

/// Looks for `word N` in msg and stores N.
bool find_int_after(std::string_view msg, std::string_view word, int& out) {
    std::size_t from = 0;
    while (true) {
        const auto at = msg.find(word, from);
        if (at == std::string_view::npos) {
            return false;
        }
        const bool word_start = at == 0 || msg[at - 1] == ' ';
        Scanner sc(msg.substr(at + word.size()));
        if (word_start && sc.eat(" ") && sc.integer(out)) {
            return true;
        }
        from = at + 1;
    }
}

void note_rank(NcclLog& log, int rank, const Envelope& env) {
    if (rank < 0) {
        return;
    }
    RankInfo& info = log.ranks[rank];
    info.rank = rank;
    if (info.host.empty() && !env.host.empty()) {
        info.host = env.host;
    }
    if (info.pid < 0) {
        info.pid = env.pid;
    }
    if (info.cuda_dev < 0) {
        info.cuda_dev = env.dev;
    }
}

/// `comm 0x… rank R nRanks N …` (2.19+) or `comm 0x… rank R nranks N cudaDev d … busId b …`.
void parse_comm(std::string_view msg, const Envelope& env, NcclLog& log) {
    const auto at = msg.find("comm 0x");
    if (at == std::string_view::npos || msg.find("Destroy") != std::string_view::npos) {
        return;
    }
    const std::string_view body = msg.substr(at);
    int rank = -1;
    if (!find_int_after(body, "rank", rank)) {
        return;
    }
    note_rank(log, rank, env);
    RankInfo& info = log.ranks[rank];
    int n = -1;
    if (find_int_after(body, "nRanks", n) || find_int_after(body, "nranks", n)) {
        info.nranks = std::max(info.nranks, n);  // sub-communicators (TP, DP groups) are smaller
        if (rank >= n) {
            info.outside_nranks = n;
        }
    }
    if (int nodes = -1; find_int_after(body, "nNodes", nodes)) {
        info.nnodes = std::max(info.nnodes, nodes);
    }
    int dev = -1;
    if (find_int_after(body, "cudaDev", dev)) {
        info.cuda_dev = dev;
    }
    if (const auto b = body.find("busId "); b != std::string_view::npos) {
        const auto rest = body.substr(b + 6);
        info.bus_id = std::string(rest.substr(0, rest.find(' ')));
    }
    int mnnvl = -1;
    if (find_int_after(body, "MNNVL", mnnvl)) {
        info.mnnvl = mnnvl;
    }
}

/// `MNNVL 1 cliqueId 7fff cliqueSize 72 cliqueRank 5 nvlDomainSize 72` (src/mnnvl.cc) or the
/// 2.19-2.22 form without nvlDomainSize (src/init.cc). Not the `MNNVL busId …` / `MNNVL rack
/// serial …` lines of the fabric dump (their second word is not a number).
bool parse_mnnvl(std::string_view msg, MnnvlLine& out) {
    if (!starts_with(msg, "MNNVL ")) {
        return false;
    }
    Scanner sc(msg.substr(6));
    int enabled = -1;
    if (!sc.integer(enabled) || (enabled != 0 && enabled != 1)) {
        return false;
    }
    const auto id_at = msg.find(" cliqueId ");
    if (id_at == std::string_view::npos) {
        return false;
    }
    const auto id = msg.substr(id_at + 10);
    out.clique_id = std::string(id.substr(0, id.find(' ')));
    out.enabled = enabled == 1;
    if (!find_int_after(msg, "cliqueSize", out.clique_size)) {
        return false;
    }
    (void)find_int_after(msg, "cliqueRank", out.clique_rank);
    (void)find_int_after(msg, "nvlDomainSize", out.nvl_domain_size);
    return true;
}

/// `NVLS multicast support is available on dev 3` / `… is not available on dev 3`.
bool parse_nvls(std::string_view msg, NvlsLine& out) {
    constexpr std::string_view kHead = "NVLS multicast support is ";
    if (!starts_with(msg, kHead)) {
        return false;
    }
    const auto rest = msg.substr(kHead.size());
    out.available = starts_with(rest, "available");
    if (!out.available && !starts_with(rest, "not available")) {
        return false;
    }
    (void)find_int_after(rest, "dev", out.dev);
    return true;
}

}  // namespace

// A named namespace, not the anonymous one: NcclLogParser::Seen (external linkage) holds a
// ConnectionSet, which gcc flags (-Wsubobject-linkage) once this file is part of a unity build.
namespace nccl_log_detail {

/// The connections already taken, as indices into log.connections, hashed on what makes two
/// lines the same connection (channel, index, ends, direction, transport text): a set of the
/// text keys took about 100 bytes per connection on a big log (issue #20).
class ConnectionSet {
public:
    using All = decltype(NcclLog::connections);

    explicit ConnectionSet(const All& all)
        : set_(64, Hash{&all}, Equal{&all}) {
        for (std::size_t i = 0; i < all.size(); ++i) {
            set_.insert(i);
        }
    }

    /// Adds all[i]; false when an equal connection was taken before.
    bool insert(std::size_t i) { return set_.insert(i).second; }

private:
    struct Hash {
        const All* all;
        std::size_t operator()(std::size_t i) const {
            const Connection& c = (*all)[i];
            std::size_t h = std::hash<const std::string*>{}(c.via.get());  // interned: same text, same pointer
            for (const int v : {c.channel, c.conn_index, c.src_rank, c.dst_rank, static_cast<int>(c.direction)}) {
                h ^= std::hash<int>{}(v) + 0x9e3779b97f4a7c15ULL + (h << 6U) + (h >> 2U);
            }
            return h;
        }
    };
    struct Equal {
        const All* all;
        bool operator()(std::size_t i, std::size_t j) const {
            const Connection& a = (*all)[i];
            const Connection& b = (*all)[j];
            return a.channel == b.channel && a.conn_index == b.conn_index && a.src_rank == b.src_rank &&
                   a.dst_rank == b.dst_rank && a.direction == b.direction && a.via.get() == b.via.get();
        }
    };
    std::unordered_set<std::size_t, Hash, Equal> set_;
};

}  // namespace nccl_log_detail

namespace {

using nccl_log_detail::ConnectionSet;

void add_connection(const Connection& c, NcclLog& log, ConnectionSet& seen) {
    log.connections.push_back(c);  // trivially copyable: interned handles, no strings
    if (!seen.insert(log.connections.size() - 1)) {
        log.connections.pop_back();
        ++log.duplicate_connections;
    }
}

void parse_line(std::string_view line,
                const std::string& source,
                int line_no,
                NcclLog& log,
                ConnectionSet& seen) {
    Envelope env;
    std::string_view msg;
    bool nccl = split_envelope(line, env, msg);
    if (!nccl) {
        // No envelope: a pasted connection line, or "NCCL version 2.7.8+cuda10.1" on its own.
        msg = trim_view(line);
        if (const auto ch = msg.find("Channel "); ch != std::string_view::npos) {
            msg = msg.substr(ch);
            nccl = true;
        } else if (const auto ring = msg.find("Ring "); ring != std::string_view::npos) {
            msg = msg.substr(ring);
            nccl = true;
        }
    }
    msg = trim_view(msg);
    if (nccl && (has_control_byte(env.host) || has_control_byte(msg))) {
        // Host, NIC and transport names of a line reach verify's tables (issue 41 item 7); NCCL
        // writes none with a control character, so such a line is not read: it is skipped and
        // named, as a malformed line is (the reader never throws on a log's content).
        ++log.skipped_connection_lines;
        if (log.diagnostics.size() < kMaxDiagnostics) {
            log.diagnostics.push_back(source + ":" + std::to_string(line_no));
        }
        return;
    }
    if (msg.empty()) {
        return;
    }
    Connection c;
    switch (parse_connection(msg, c, log)) {
        case ParseResult::Connection:
            c.source = log.intern(source);
            c.line = line_no;
            c.host = log.intern(env.host);
            c.pid = env.pid;
            note_rank(log, c.local_rank(), env);
            add_connection(c, log, seen);
            return;
        case ParseResult::Malformed:
            ++log.skipped_connection_lines;
            if (log.diagnostics.size() < kMaxDiagnostics) {
                log.diagnostics.push_back(source + ":" + std::to_string(line_no));
            }
            return;
        case ParseResult::NotConnection:
            break;
    }
    if (const auto v = msg.find("NCCL version "); v != std::string_view::npos) {
        if (log.nccl_version.empty()) {
            const auto rest = msg.substr(v + 13);
            log.nccl_version = std::string(rest.substr(0, rest.find_first_of("+ ")));
        }
        return;
    }
    ProcessNet& proc = log.processes[process_key(env.host, env.pid)];
    proc.host = env.host;
    proc.pid = env.pid;
    if (parse_using(msg, proc) || parse_ib_device(msg, proc)) {
        return;
    }
    if (starts_with(msg, "Using network ")) {
        proc.network = std::string(trim_view(msg.substr(14)));
        return;
    }
    if (starts_with(msg, "Assigned NET plugin ")) {
        const auto rest = msg.substr(20);
        proc.network = std::string(rest.substr(0, rest.find(' ')));
        return;
    }
    GdrLine g;
    if (parse_gdr(msg, g)) {
        g.source = source;
        g.line = line_no;
        g.host = env.host;
        log.gdr_lines.push_back(g);
        return;
    }
    if (starts_with(msg, "Connected all rings")) {
        int v = -1;
        if (find_int_after(msg, "PXN", v)) {
            log.rings_connected_pxn = v;
        }
        if (find_int_after(msg, "GDR", v)) {
            log.rings_connected_gdr = v;
        }
        return;
    }
    if (starts_with(msg, "Trees ")) {
        parse_trees(msg, log.trees);
        return;
    }
    MnnvlLine m;
    if (parse_mnnvl(msg, m)) {
        m.source = source;
        m.line = line_no;
        m.host = env.host;
        m.pid = env.pid;
        m.dev = env.dev;
        log.mnnvl_lines.push_back(std::move(m));
        return;
    }
    NvlsLine nv;
    if (parse_nvls(msg, nv)) {
        nv.source = source;
        nv.line = line_no;
        nv.host = env.host;
        nv.pid = env.pid;
        log.nvls_lines.push_back(std::move(nv));
        return;
    }
    RingListing r;
    if (parse_ring_listing(msg, r)) {
        r.host = env.host;
        r.pid = env.pid;
        log.rings.push_back(std::move(r));
        return;
    }
    parse_comm(msg, env, log);
}

}  // namespace

const std::string& LogText::str() const {
    static const std::string kNone;
    return text_ == nullptr ? kNone : *text_;
}

LogText NcclLog::intern(std::string_view text) {
    return LogText(&*texts->emplace(text).first);
}

const char* to_string(TransportKind kind) {
    switch (kind) {
        case TransportKind::P2pIpc: return "P2P/IPC";
        case TransportKind::P2pCumem: return "P2P/CUMEM";
        case TransportKind::P2pDirect: return "P2P/direct";
        case TransportKind::P2pOther: return "P2P";
        case TransportKind::Shm: return "SHM";
        case TransportKind::NetIb: return "NET/IB";
        case TransportKind::NetSocket: return "NET/Socket";
        case TransportKind::NetOther: return "NET";
        case TransportKind::CollNet: return "COLLNET";
        case TransportKind::Unknown: break;
    }
    return "unknown";
}

bool is_p2p(TransportKind kind) {
    return kind == TransportKind::P2pIpc || kind == TransportKind::P2pCumem ||
           kind == TransportKind::P2pDirect || kind == TransportKind::P2pOther;
}

bool is_net(TransportKind kind) {
    return kind == TransportKind::NetIb || kind == TransportKind::NetSocket ||
           kind == TransportKind::NetOther;
}

const char* to_string(Direction d) {
    switch (d) {
        case Direction::Send: return "send";
        case Direction::Receive: return "receive";
        case Direction::None: break;
    }
    return "-";
}

std::vector<std::string> NcclLog::networks() const {
    std::set<std::string> names;
    for (const auto& [key, proc] : processes) {
        if (!proc.network.empty()) {
            names.insert(proc.network);
        }
    }
    return {names.begin(), names.end()};
}

std::size_t NcclLog::channel_count() const {
    std::set<int> ids;
    for (const auto& c : connections) {
        ids.insert(c.channel);
    }
    return ids.size();
}

struct NcclLogParser::Seen {
    nccl_log_detail::ConnectionSet set;
};

NcclLogParser::NcclLogParser(NcclLog& log, std::string source)
    : log_(log), source_(std::move(source)), seen_(std::make_unique<Seen>(Seen{nccl_log_detail::ConnectionSet(log.connections)})) {
    log_.sources.push_back(source_);
}

NcclLogParser::~NcclLogParser() = default;

void NcclLogParser::line(std::string_view text) {
    ++line_no_;
    ++log_.lines;
    parse_line(text, source_, line_no_, log_, seen_->set);
}

void NcclLogParser::finish() {
    for (auto it = log_.processes.begin(); it != log_.processes.end();) {
        ProcessNet& p = it->second;
        // The per-port lines give the speeds of the `Using` list's devices (same name and port).
        for (auto& d : p.ib_devices) {
            for (const auto& line : p.ib_device_lines) {
                if (line.name == d.name && (line.port == d.port || d.port.empty())) {
                    d.speed_mbit_s = line.speed_mbit_s;
                    if (d.link_layer.empty()) {
                        d.link_layer = line.link_layer;
                    }
                }
            }
        }
        if (p.ib_devices.empty() && p.socket_devices.empty() && p.network.empty() && p.ib_device_lines.empty()) {
            it = log_.processes.erase(it);
        } else {
            ++it;
        }
    }
}

void parse_nccl_log_into(const std::string& text, const std::string& source, NcclLog& log) {
    NcclLogParser parser(log, source);
    const std::string_view all = text;
    std::size_t start = 0;
    while (start < all.size()) {
        auto end = all.find('\n', start);
        if (end == std::string_view::npos) {
            end = all.size();
        }
        parser.line(all.substr(start, end - start));
        start = end + 1;
    }
    parser.finish();
}

NcclLog parse_nccl_log(const std::string& text, const std::string& source) {
    NcclLog log;
    parse_nccl_log_into(text, source, log);
    resolve_nic_names(log);
    return log;
}

void resolve_nic_names(NcclLog& log) {
    // The list printed by the owning process; else one printed on the same host; else, for
    // lines without an envelope, the only distinct list in the whole log.
    auto devices_of = [&](const ProcessNet& p, bool socket) -> const std::vector<NetDevice>& {
        return socket ? p.socket_devices : p.ib_devices;
    };
    // Per transport (IB, socket), computed once: the first list of each host in process order,
    // and whether the whole log has one distinct list (issue #20: this scan ran per connection,
    // connections × processes on a big log).
    struct Lists {
        std::map<std::string, const std::vector<NetDevice>*> first_of_host;
        std::set<std::vector<std::string>> distinct;
        const std::vector<NetDevice>* only = nullptr;
    };
    Lists lists[2];
    for (int socket = 0; socket < 2; ++socket) {
        Lists& l = lists[socket];
        for (const auto& [key, p] : log.processes) {
            const auto& d = devices_of(p, socket == 1);
            if (d.empty()) {
                continue;
            }
            l.first_of_host.emplace(p.host, &d);
            std::vector<std::string> names;
            names.reserve(d.size());
            for (const auto& n : d) {
                names.push_back(std::to_string(n.index) + n.name);
            }
            l.distinct.insert(names);
            l.only = &d;
        }
    }
    for (auto& c : log.connections) {
        if (!is_net(c.kind) || c.net_dev < 0) {
            continue;
        }
        const bool socket = c.kind == TransportKind::NetSocket;
        const Lists& l = lists[socket ? 1 : 0];
        const std::vector<NetDevice>* found = nullptr;
        if (const auto it = log.processes.find(process_key(c.host, c.pid));
            it != log.processes.end() && !devices_of(it->second, socket).empty()) {
            found = &devices_of(it->second, socket);
        }
        if (found == nullptr && !c.host.empty()) {
            if (const auto it = l.first_of_host.find(c.host); it != l.first_of_host.end()) {
                found = it->second;
            }
        }
        // Another host's list is only a guess (NIC order differs between hosts): use it only
        // for lines that name no host at all.
        if (found == nullptr && l.distinct.size() == 1 && c.host.empty()) {
            found = l.only;
        }
        if (found != nullptr) {
            for (const auto& d : *found) {
                if (d.index == c.net_dev) {
                    c.nic_device = log.intern(d.name);
                }
            }
        }
    }
    // PXN relay: the relay rank's own bracket, from any line where it is an end.
    std::map<int, LogText> dev_of;
    for (const auto& c : log.connections) {
        dev_of.emplace(c.src_rank, c.src_dev);
        dev_of.emplace(c.dst_rank, c.dst_dev);
    }
    for (auto& c : log.connections) {
        if (c.pxn_relay_rank >= 0) {
            if (const auto it = dev_of.find(c.pxn_relay_rank); it != dev_of.end()) {
                c.pxn_relay_dev = it->second;
            }
        }
    }
}

}  // namespace planlayout
