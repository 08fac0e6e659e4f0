// Ingest: NCCL_DEBUG=INFO logs (every generation, 2.4 to 2.28) → the connections NCCL chose.
#pragma once

#include <deque>
#include <map>
#include <ostream>
#include <unordered_set>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace planlayout {

/// What carries one channel connection, as named in the `via …` part of the line.
/// Ordered roughly best → worst inside a node, then the network kinds.
enum class TransportKind {
    P2pIpc,      // P2P/IPC (cudaIpc handles; NVLink or PCIe P2P)
    P2pCumem,    // P2P/CUMEM (cuMem handles, 2.19+)
    P2pDirect,   // P2P/direct pointer (both GPUs in one process)
    P2pOther,    // P2P/indirect, P2P/MNNVL, other P2P spellings
    Shm,         // SHM/…, "direct shared memory": staged through host memory
    NetIb,       // NET/IB, NET/IBext, NET/IBext_v8 (IB or RoCE verbs)
    NetSocket,   // NET/Socket (TCP)
    NetOther,    // NET/<plugin> that is neither IB nor Socket (AWS Libfabric, GIN…)
    CollNet,     // COLLNET/… (SHARP)
    Unknown,
};

[[nodiscard]] const char* to_string(TransportKind kind);

[[nodiscard]] bool is_p2p(TransportKind kind);

[[nodiscard]] bool is_net(TransportKind kind);

/// `[send]` / `[receive]` on NET lines; P2P and SHM lines carry none (printed by the sender).
enum class Direction { None, Send, Receive };

[[nodiscard]] const char* to_string(Direction d);

/// A text that repeats over a log's connection lines (log name, host, transport, device
/// brackets, NIC names), kept once in NcclLog::texts: a connection holds pointers, not copies
/// (issue #20: a 160 MB log's connections took several times its size as strings). Reads as a
/// const std::string& ("" when unset).
class LogText {
public:
    LogText() = default;
    explicit LogText(const std::string* text) : text_(text) {}

    [[nodiscard]] const std::string& str() const;
    operator const std::string&() const { return str(); }  // NOLINT(google-explicit-constructor)
    [[nodiscard]] bool empty() const { return text_ == nullptr || text_->empty(); }
    /// Same pool: same text exactly when same pointer.
    [[nodiscard]] const std::string* get() const { return text_; }

private:
    const std::string* text_ = nullptr;
};

[[nodiscard]] inline bool operator==(const LogText& a, const std::string& b) { return a.str() == b; }
[[nodiscard]] inline bool operator==(const LogText& a, const char* b) { return a.str() == b; }
[[nodiscard]] inline bool operator!=(const LogText& a, const std::string& b) { return a.str() != b; }
[[nodiscard]] inline bool operator!=(const LogText& a, const char* b) { return a.str() != b; }
[[nodiscard]] inline std::string operator+(const std::string& a, const LogText& b) { return a + b.str(); }
[[nodiscard]] inline std::string operator+(const char* a, const LogText& b) { return a + b.str(); }
[[nodiscard]] inline std::string operator+(const LogText& a, const std::string& b) { return a.str() + b; }
[[nodiscard]] inline std::string operator+(const LogText& a, const char* b) { return a.str() + b; }
inline std::ostream& operator<<(std::ostream& out, const LogText& t) { return out << t.str(); }

/// One `Ring|Channel … : a[x] -> b[y] … via …` line.
struct Connection {
    LogText source;           // log name as given (file base name or "-")
    int line = 0;             // 1-based line in that log
    LogText host;             // envelope host ("" when the line had none)
    int pid = -1;
    int channel = -1;
    int conn_index = -1;      // the `/k` after the channel (2.12+); -1 when absent
    int src_rank = -1;
    int dst_rank = -1;
    LogText src_dev;          // bracket text: cudaDev (≤2.4), busId hex (2.5–2.18), NVML index (2.19+)
    LogText dst_dev;
    Direction direction = Direction::None;
    TransportKind kind = TransportKind::Unknown;
    LogText via;              // the whole transport text after "via "
    LogText net_name;         // "IB", "IBext_v8", "Socket"… for NET lines
    int net_dev = -1;         // NIC index into the process's `NET/<name> : Using [k]…` list
    LogText nic_device;       // resolved from that list ("mlx5_0"); "" when unknown
    int pxn_relay_rank = -1;  // `(r)` after the NIC index: the rank whose NIC/proxy sends (PXN)
    LogText pxn_relay_dev;    // that rank's bracket text when the log shows it
    bool gdr = false;         // /GDRDMA
    bool shared = false;      // /Shared
    bool read = false;        // /read
    bool copy_engine = false;   // /CE

    /// The rank that printed the line and owns the local end: dst for receive lines, else src.
    [[nodiscard]] int local_rank() const { return direction == Direction::Receive ? dst_rank : src_rank; }

    /// The other end.
    [[nodiscard]] int peer_rank() const { return direction == Direction::Receive ? src_rank : dst_rank; }
};

/// One entry of a `NET/IB : Using [0]mlx5_0:1/IB [1]…` (or NET/Socket) list.
struct NetDevice {
    int index = -1;
    std::string name;        // mlx5_0, roce0, eno2
    std::string port;        // "1" for IB; "" for sockets
    std::string link_layer;  // IB, RoCE; "" for sockets
    bool sharp = false;
    long long speed_mbit_s = 0;  // from `NET/IB: [k] … speed=N` (Mb/s); 0 when not logged
};

/// One process's network facts (keyed by host:pid; lines without an envelope use ":-1").
struct ProcessNet {
    std::string host;
    int pid = -1;
    std::vector<NetDevice> ib_devices;
    std::vector<NetDevice> socket_devices;
    /// `NET/IB: [k] mlx5_0:uverbs0:1/IB provider=Mlx5 speed=400000 …` lines (NCCL >= 2.2x prints
    /// one per port found, before the `Using` list): name, port, link layer and speed.
    std::vector<NetDevice> ib_device_lines;
    std::string network;  // from "Using network X" / "Assigned NET plugin X to comm"
};

/// `GPU Direct RDMA Enabled|Disabled for HCA k 'mlx5_0'` (2.2x) or the older per-GPU form.
struct GdrLine {
    std::string source;
    int line = 0;
    std::string host;
    bool enabled = false;
    int hca_index = -1;
    std::string hca;
};

/// `Channel 00/02 :    0   1   2 …` or GRAPH `Ring 00 : a -> b -> c`.
struct RingListing {
    int channel = -1;
    int total = -1;  // the number after '/'; -1 in the GRAPH form
    std::vector<int> ranks;
    std::string host;
    int pid = -1;
};

/// One `[ch] c0/c1/c2->me->parent` entry of a `Trees` line.
struct TreeListing {
    int channel = -1;
    int rank = -1;
    std::vector<int> children;  // -1 entries dropped
    int parent = -1;
};

/// What a rank's `comm …` line and connection lines reveal about it.
struct RankInfo {
    int rank = -1;
    std::string host;
    int pid = -1;
    int nranks = -1;    // the largest nRanks of its comm lines (the world communicator's)
    int nnodes = -1;    // the largest nNodes of its comm lines (2.19+), -1 not logged
    int outside_nranks = -1;  // a comm line's nRanks that this rank is not below (a broken line), else -1
    int cuda_dev = -1;  // envelope `[d]` or `cudaDev d`
    std::string bus_id;
    int mnnvl = -1;     // `… localRank l MNNVL m` of the comm line (2.19+): 1 on, 0 off, -1 not logged
};

/// NCCL's multi-node NVLink decision at init (src/mnnvl.cc ncclMnnvlCheck, 2.23+:
/// `MNNVL %d cliqueId %x cliqueSize %d cliqueRank %d nvlDomainSize %d`; src/init.cc checkMNNVL,
/// 2.19-2.22: the same without nvlDomainSize). One per communicator and process.
struct MnnvlLine {
    std::string source;
    int line = 0;
    std::string host;
    int pid = -1;
    int dev = -1;             // envelope `[d]`
    bool enabled = false;
    std::string clique_id;    // hex as logged ("7fff")
    int clique_size = -1;     // ranks of the communicator in the clique
    int clique_rank = -1;
    int nvl_domain_size = -1;  // -1 when the line has none
};

/// `NVLS multicast support is [not ]available on dev %d` (src/transport/nvls.cc ncclNvlsInit).
struct NvlsLine {
    std::string source;
    int line = 0;
    std::string host;
    int pid = -1;
    bool available = false;
    int dev = -1;
};

/// Everything extracted from one or more logs. Lines that match nothing are skipped silently
/// (logs are mostly other messages); lines that look like connection lines but do not parse are
/// counted in `skipped_connection_lines` with their place in `diagnostics`.
struct NcclLog {
    std::vector<std::string> sources;
    std::string nccl_version;  // first "NCCL version X" seen
    std::shared_ptr<std::unordered_set<std::string>> texts =
        std::make_shared<std::unordered_set<std::string>>();  // what LogText points to
    std::deque<Connection> connections;  // de-duplicated, in first-seen order (a deque: no
                                         // doubling of a vector of millions)
    std::map<std::string, ProcessNet> processes;  // "host:pid"
    std::vector<GdrLine> gdr_lines;
    std::vector<RingListing> rings;
    std::vector<TreeListing> trees;
    std::map<int, RankInfo> ranks;
    std::vector<MnnvlLine> mnnvl_lines;
    std::vector<NvlsLine> nvls_lines;
    int rings_connected_gdr = -1;  // `Connected all rings, use ring PXN p GDR g`: g, or -1
    int rings_connected_pxn = -1;
    std::size_t lines = 0;
    std::size_t duplicate_connections = 0;
    std::size_t skipped_connection_lines = 0;
    std::vector<std::string> diagnostics;  // "file:line" of the first few skipped lines

    /// `text` kept once in `texts`.
    [[nodiscard]] LogText intern(std::string_view text);

    /// Distinct networks named by "Using network" lines, sorted.
    [[nodiscard]] std::vector<std::string> networks() const;

    /// Distinct channel ids over all connections.
    [[nodiscard]] std::size_t channel_count() const;
};

/// Parses one log line by line into `log` (so that a big log is never held whole): feed every
/// line without its '\n' to line(), then call finish(). parse_nccl_log_into is this over a text.
class NcclLogParser {
public:
    NcclLogParser(NcclLog& log, std::string source);
    ~NcclLogParser();
    NcclLogParser(const NcclLogParser&) = delete;
    NcclLogParser& operator=(const NcclLogParser&) = delete;
    NcclLogParser(NcclLogParser&&) = delete;
    NcclLogParser& operator=(NcclLogParser&&) = delete;

    void line(std::string_view text);
    /// Drops processes that only got a key (lines without network facts).
    void finish();

private:
    struct Seen;
    NcclLog& log_;
    std::string source_;
    int line_no_ = 0;
    std::unique_ptr<Seen> seen_;  // connections already taken, for de-duplication
};

/// Parses one log's text and adds what it finds to `log`. `source` names the log in messages.
/// Never throws on malformed content: binary bytes, truncated and unknown lines are skipped.
void parse_nccl_log_into(const std::string& text, const std::string& source, NcclLog& log);

/// Parses one log (convenience over parse_nccl_log_into).
[[nodiscard]] NcclLog parse_nccl_log(const std::string& text, const std::string& source);

/// Resolves NIC names (from the owning process's `Using` list, else one from the same host, else
/// for host-less lines the only list in the log; never another host's list) and
/// PXN relay brackets. parse_nccl_log calls it; call it again after merging several logs.
void resolve_nic_names(NcclLog& log);

}  // namespace planlayout
