// Ingest: `nvidia-smi topo -m` matrices → NodeTemplate (docs/formats/captures.md).
// Over 500 lines: one format's grammar: the header and its glued titles, the NIC legend, the matrix
// cells coded by hand (a 1024-device matrix has a million), the metadata columns, then the paths
// and the NVLink section they imply.
#include "planlayout/ingest/nvidia_smi_topo.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <unordered_map>
#include <map>
#include <regex>
#include <set>
#include <string_view>

#include "ingest_util.hpp"
#include "planlayout/error.hpp"

namespace planlayout {
namespace {

// NV# counts the bonded NVLinks of one GPU pair: 18 per GPU on Hopper and Blackwell, so a pair
// never has more; 64 leaves room for what comes next.
constexpr long kMaxNvlinksPerPair = 64;

using ingest_detail::lines_of;
using ingest_detail::split;
using ingest_detail::split_ws;
using ingest_detail::trim;

const std::set<std::string>& metadata_titles() {
    static const std::set<std::string> kTitles = {"CPU Affinity", "NUMA Affinity", "GPU NUMA ID"};
    return kTitles;
}

/// Length of the cell at the start of s (X|NV\d+|PIX|PXB|PHB|NODE|SYS|PSB), 0 if none. By hand:
/// a 1024-device matrix has a million cells, too many for a std::regex search each.
std::size_t cell_length(std::string_view s) {
    if (s.rfind("NV", 0) == 0) {
        std::size_t n = 2;
        while (n < s.size() && s[n] >= '0' && s[n] <= '9') {
            ++n;
        }
        return n > 2 ? n : 0;
    }
    for (const std::string_view cell : {"X", "PIX", "PXB", "PHB", "NODE", "SYS", "PSB"}) {
        if (s.rfind(cell, 0) == 0) {
            return cell.size();
        }
    }
    return 0;
}

/// A matrix cell as one byte (a 1024-device matrix has a million cells: strings took most of
/// the reader's time and memory): X, PIX, PXB, PHB, NODE, SYS, PSB, NV1…NV64 (kNv + count), or
/// kOdd for any other spelling (NV0, NV007, NV99), whose text is kept aside.
using CellCode = std::uint8_t;
constexpr CellCode kX = 0;
constexpr CellCode kOdd = 7;
constexpr CellCode kNv = 8;
constexpr std::string_view kNamedCells[] = {"X", "PIX", "PXB", "PHB", "NODE", "SYS", "PSB"};

/// The code of one cell's text (as cell_length cut it).
CellCode cell_code(std::string_view cell) {
    for (std::size_t k = 0; k < std::size(kNamedCells); ++k) {
        if (cell == kNamedCells[k]) {
            return static_cast<CellCode>(k);
        }
    }
    const long n = ingest_detail::parse_uint(cell.substr(2));
    if (n >= 1 && n <= kMaxNvlinksPerPair && cell.size() > 2 && cell[2] != '0') {
        return static_cast<CellCode>(kNv + n);
    }
    return kOdd;
}

/// The cells of one matrix: codes row by row, odd spellings by position.
struct CellMatrix {
    std::size_t n = 0;
    std::vector<CellCode> code;
    std::unordered_map<std::size_t, std::string> odd;

    [[nodiscard]] std::string text(std::size_t r, std::size_t c) const {
        const CellCode k = code[r * n + c];
        if (k == kOdd) {
            return odd.at(r * n + c);
        }
        return k >= kNv ? "NV" + std::to_string(k - kNv) : std::string(kNamedCells[k]);
    }

    [[nodiscard]] bool same(std::size_t r1, std::size_t c1, std::size_t r2, std::size_t c2) const {
        const CellCode a = code[r1 * n + c1];
        return a == code[r2 * n + c2] && (a != kOdd || odd.at(r1 * n + c1) == odd.at(r2 * n + c2));
    }
};

/// Splits a token made of glued cells ("SYSSYS", "NV12PXB") into cells, appended to `row` (odd
/// spellings to `odd`, by index in the row); false if it is not one.
bool split_cells(std::string_view token, std::vector<CellCode>& row, std::vector<std::pair<std::size_t, std::string>>& odd) {
    std::size_t pos = 0;
    std::size_t added = 0;
    while (pos < token.size()) {
        const std::size_t n = cell_length(token.substr(pos));
        if (n == 0) {
            row.resize(row.size() - added);
            return false;
        }
        const std::string_view cell = token.substr(pos, n);
        const CellCode k = cell_code(cell);
        if (k == kOdd) {
            odd.emplace_back(row.size(), std::string(cell));
        }
        row.push_back(k);
        ++added;
        pos += n;
    }
    return true;
}

/// Header titles: tab-separated when tabs are present, else runs of 2+ spaces; glued device
/// titles ("GPU7NIC0") are split apart.
std::vector<std::string> header_titles(const std::string& line) {
    std::vector<std::string> raw;
    if (line.find('\t') != std::string::npos) {
        raw = split(line, '\t');
    } else {
        static const std::regex kSep(" {2,}");
        raw.assign(std::sregex_token_iterator(line.begin(), line.end(), kSep, -1),
                   std::sregex_token_iterator());
    }
    std::vector<std::string> out;
    static const std::regex kDev("(GPU\\d+|NIC\\d+)");
    for (auto& r : raw) {
        const std::string t = trim(r);
        if (t.empty()) {
            continue;
        }
        if (metadata_titles().count(t) == 0 && t.find(' ') == std::string::npos &&
            std::regex_match(t, std::regex("((GPU|NIC)\\d+){2,}"))) {
            for (auto it = std::sregex_iterator(t.begin(), t.end(), kDev);
                 it != std::sregex_iterator(); ++it) {
                out.push_back(it->str());
            }
        } else if (t.find(' ') != std::string::npos && metadata_titles().count(t) == 0) {
            for (const auto& w : split_ws(t)) {  // "GPU0 GPU1" separated by one space
                out.push_back(w);
            }
        } else {
            out.push_back(t);
        }
    }
    return out;
}

/// "3" → 3; "0-7"/"N/A"/"" → -1 (unknown or several nodes).
int parse_numa(const std::string& cell) { return static_cast<int>(ingest_detail::parse_uint(cell)); }

/// The index of the header line (the first line whose titles include GPU0).
std::size_t find_header(const std::vector<std::string>& lines, const std::string& where) {
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto toks = header_titles(lines[i]);
        if (std::find(toks.begin(), toks.end(), "GPU0") != toks.end()) {
            return i;
        }
    }
    throw input_error(where, "no nvidia-smi topology header (a line with GPU0, GPU1, ...)",
                      "pass the output of 'nvidia-smi topo -m'");
}

/// The header's titles apart: device column labels, then metadata titles, each in order.
struct HeaderColumns {
    std::vector<std::string> devices;
    std::vector<std::string> meta;
};

/// The header's device columns and metadata titles; a device column after the metadata throws.
HeaderColumns header_columns(const std::string& line, const std::string& hdr_where) {
    HeaderColumns out;
    for (const auto& t : header_titles(line)) {
        if (metadata_titles().count(t) > 0) {
            out.meta.push_back(t);
        } else if (!out.meta.empty()) {
            throw input_error(hdr_where, "device column '" + t + "' after the metadata columns",
                              "check that the header line is complete");
        } else {
            out.devices.push_back(t);
        }
    }
    return out;
}

/// The NIC Legend below the header: NICk → RDMA device name.
std::map<std::string, std::string> nic_legend(const std::vector<std::string>& lines, std::size_t header_at) {
    std::map<std::string, std::string> legend;
    static const std::regex kLegend("^\\s*(NIC\\d+):\\s*(\\S+)\\s*$");
    for (std::size_t i = header_at + 1; i < lines.size(); ++i) {
        std::smatch m;
        if (std::regex_match(lines[i], m, kLegend)) {
            legend[m[1].str()] = m[2].str();
        }
    }
    return legend;
}

/// Each column's canonical name and the column of each header label.
struct DeviceColumns {
    std::vector<std::string> canon;
    std::map<std::string, std::size_t> index_of;
};

/// The template's GPUs and NICs, one per column (GPUs keep their numbers, NICs are numbered in
/// column order), added to `t`; the columns' canonical names.
DeviceColumns add_devices(const std::vector<std::string>& devices, const std::map<std::string, std::string>& legend,
                          const std::string& hdr_where, NodeTemplate& t) {
    const std::size_t ndev = devices.size();
    DeviceColumns out;
    out.canon.resize(ndev);
    int nic_count = 0;
    for (std::size_t c = 0; c < ndev; ++c) {
        const std::string& d = devices[c];
        if (out.index_of.count(d) > 0) {
            throw input_error(hdr_where, "column '" + d + "' appears twice",
                              "check the header line");
        }
        out.index_of[d] = c;
        if (std::regex_match(d, std::regex("GPU\\d+"))) {
            out.canon[c] = d;
            Gpu g;
            g.name = d;
            t.gpus.push_back(g);
        } else {
            out.canon[c] = "NIC" + std::to_string(nic_count++);
            Nic n;
            n.name = out.canon[c];
            if (std::regex_match(d, std::regex("NIC\\d+"))) {
                const auto it = legend.find(d);
                n.device = it == legend.end() ? std::string() : it->second;
            } else {
                n.device = d;  // legacy header: the column is the RDMA device itself
            }
            t.nics.push_back(n);
        }
    }
    if (nic_count > 0 && legend.empty() &&
        std::any_of(devices.begin(), devices.end(),
                    [](const std::string& d) { return d.rfind("NIC", 0) == 0; })) {
        t.warnings.emplace_back("no NIC Legend: NIC device names (mlx5_*) are unknown");
    }
    return out;
}

/// The relation cells of one row's tokens (after its label) into `rel` and `odd`; the tokens
/// after the last relation cell (the metadata cells).
std::vector<std::string> read_row_cells(const std::vector<std::string>& toks, std::size_t ndev, const std::string& lw,
                                        std::vector<CellCode>& rel, std::vector<std::pair<std::size_t, std::string>>& odd) {
    rel.clear();
    odd.clear();
    std::vector<std::string> rest;
    for (std::size_t k = 1; k < toks.size(); ++k) {
        if (rel.size() < ndev) {
            if (!split_cells(toks[k], rel, odd)) {
                throw input_error(lw,
                                  "row " + toks[0] + " has " + std::to_string(rel.size()) +
                                      " relation cells before '" + toks[k] + "', expected " +
                                      std::to_string(ndev),
                                  "each row needs one of X, NV#, PIX, PXB, PHB, NODE, SYS per "
                                  "device column; is a column missing?");
            }
            if (rel.size() > ndev) {
                throw input_error(lw, "row " + toks[0] + " has more relation cells than the "
                                          "header's " + std::to_string(ndev) + " devices",
                                  "check the header line");
            }
        } else {
            rest.push_back(toks[k]);
        }
    }
    if (rel.size() < ndev) {
        throw input_error(lw,
                          "row " + toks[0] + " has " + std::to_string(rel.size()) +
                              " relation cells, expected " + std::to_string(ndev),
                          "each row needs one cell per device column; is a column missing?");
    }
    return rest;
}

/// A GPU's metadata: NUMA node (-1 unknown) and CPU list.
using GpuMeta = std::pair<int, std::string>;

/// One GPU row's metadata cells read into `info`: non-empty cells align to the right-most titles
/// (empty cells vanish); oddities become warnings of `t`.
void read_row_metadata(std::vector<std::string> rest, const std::vector<std::string>& meta, std::size_t line_no,
                       const std::string& label, GpuMeta& info, NodeTemplate& t) {
    if (rest.size() > meta.size()) {
        t.warnings.push_back("line " + std::to_string(line_no) + ": " + label + " has " + std::to_string(rest.size()) +
                             " metadata cells for " + std::to_string(meta.size()) +
                             " columns; extra cells ignored");
        rest.resize(meta.size());
    }
    const std::size_t off = meta.size() - rest.size();
    for (std::size_t k = 0; k < rest.size(); ++k) {
        const std::string& title = meta[off + k];
        if (title == "CPU Affinity" && rest[k] != "N/A") {
            info.second = rest[k];
        } else if (title == "NUMA Affinity") {
            info.first = parse_numa(rest[k]);
            if (info.first < 0 && rest[k] != "N/A" &&
                !std::regex_match(rest[k], std::regex("\\d+(-\\d+)?(,\\d+(-\\d+)?)*"))) {
                t.warnings.push_back("line " + std::to_string(line_no) + ": NUMA affinity '" + rest[k] + "' of " +
                                     label + " is not a NUMA id; treated as unknown");
            }
        }
    }
}

/// The matrix rows read: the cells, each row's line number (1-based) and each GPU's metadata.
struct MatrixRows {
    CellMatrix cells;
    std::vector<std::size_t> row_line;
    std::map<std::string, GpuMeta> gpu_meta;  // GPU → (NUMA, CPU list)
};

/// The rows below the header up to a blank or Legend line, one per column; warnings to `t`.
MatrixRows read_rows(const std::vector<std::string>& lines, std::size_t header_at, const HeaderColumns& header,
                     const DeviceColumns& columns, const std::string& where, NodeTemplate& t) {
    const std::size_t ndev = header.devices.size();
    MatrixRows out;
    out.cells.n = ndev;
    out.cells.code.assign(ndev * ndev, kX);
    out.row_line.assign(ndev, 0);
    std::vector<bool> seen(ndev, false);
    std::vector<CellCode> rel;
    std::vector<std::pair<std::size_t, std::string>> odd;
    for (std::size_t i = header_at + 1; i < lines.size(); ++i) {
        const auto toks = split_ws(lines[i]);
        if (toks.empty() || toks[0].rfind("Legend", 0) == 0) {
            break;
        }
        const std::string lw = where + ":" + std::to_string(i + 1);
        const auto it = columns.index_of.find(toks[0]);
        if (it == columns.index_of.end()) {
            throw input_error(lw, "row label '" + toks[0] + "' is not a column of the header",
                              "rows must be labelled GPUk, NICk or the RDMA device names of "
                              "the header");
        }
        const std::size_t r = it->second;
        if (seen[r]) {
            throw input_error(lw, "row '" + toks[0] + "' appears twice", "keep one row per device");
        }
        seen[r] = true;
        out.row_line[r] = i + 1;
        const std::vector<std::string> rest = read_row_cells(toks, ndev, lw, rel, odd);
        std::copy(rel.begin(), rel.end(), out.cells.code.begin() + static_cast<std::ptrdiff_t>(r * ndev));
        for (auto& [c, spelled] : odd) {
            out.cells.odd[r * ndev + c] = std::move(spelled);
        }
        if (rel[r] != kX) {
            throw input_error(lw, "diagonal cell of " + toks[0] + " is '" + out.cells.text(r, r) + "', not X",
                              "check the column order of the header");
        }
        if (columns.canon[r].rfind("GPU", 0) == 0 && !rest.empty()) {
            auto& info = out.gpu_meta.emplace(columns.canon[r], std::make_pair(-1, std::string())).first->second;
            read_row_metadata(rest, header.meta, i + 1, toks[0], info, t);
        } else if (!rest.empty()) {
            t.warnings.push_back("line " + std::to_string(i + 1) + ": extra cells after the matrix in row " + toks[0] +
                                 " ignored");
        }
    }
    for (std::size_t c = 0; c < ndev; ++c) {
        if (!seen[c]) {
            throw input_error(where + ":" + std::to_string(header_at + 1),
                              "column " + header.devices[c] + " has no row", "the matrix is incomplete");
        }
    }
    return out;
}

/// Each GPU's NUMA node set from its metadata, and one Cpu per distinct NUMA/CPU-affinity pair,
/// in GPU order, added to `t`.
void add_cpus(const std::map<std::string, GpuMeta>& gpu_meta, NodeTemplate& t) {
    for (auto& g : t.gpus) {
        const auto it = gpu_meta.find(g.name);
        if (it == gpu_meta.end()) {
            continue;
        }
        g.numa = it->second.first;
        const bool known = std::any_of(t.cpus.begin(), t.cpus.end(), [&](const Cpu& c) {
            return c.numa == g.numa && c.cpuset == it->second.second;
        });
        if (!known && (g.numa >= 0 || !it->second.second.empty())) {
            Cpu c;
            c.name = "CPU" + std::to_string(t.cpus.size());
            c.numa = g.numa;
            c.cpuset = it->second.second;
            t.cpus.push_back(std::move(c));
        }
    }
}

/// The path class of a cell off the diagonal (PSB reads as PIX; unknown spellings as SYS).
PathClass path_class_of(const CellMatrix& cells, std::size_t a, std::size_t b) {
    const CellCode k = cells.code[a * cells.n + b];
    if (k >= kNv) {
        return PathClass::Nv;
    }
    if (k == kOdd) {
        return parse_path_class(cells.text(a, b)).value_or(PathClass::Sys);
    }
    const std::string_view v = kNamedCells[k];
    return v == "PSB" ? PathClass::Pix : parse_path_class(std::string(v)).value_or(PathClass::Sys);
}

/// The paths of `t`, from the row of the first device of each pair; asymmetry is reported (as
/// warnings after the paths), not fixed. NIC NUMA in the same pass: a NIC within
/// PIX/PXB/PHB/NODE of a GPU shares that GPU's NUMA node (the first such GPU in path order).
/// Devices by column: no lookups by name per pair.
void add_paths(const MatrixRows& rows, const std::vector<std::string>& devices, const std::vector<std::string>& canon,
               const std::string& where, NodeTemplate& t) {
    const std::size_t ndev = devices.size();
    const CellMatrix& cells = rows.cells;
    std::vector<int> gpu_of(ndev, -1);  // column → index in t.gpus
    std::vector<int> nic_of(ndev, -1);  // column → index in t.nics
    {
        int gpus = 0;
        int nics = 0;
        for (std::size_t c = 0; c < ndev; ++c) {
            if (canon[c].rfind("GPU", 0) == 0) {
                gpu_of[c] = gpus++;
            } else {
                nic_of[c] = nics++;
            }
        }
    }
    auto nic_numa = [&](std::size_t nic, std::size_t other) {
        if (nic_of[nic] < 0 || gpu_of[other] < 0) {
            return;
        }
        const int numa = t.gpus[static_cast<std::size_t>(gpu_of[other])].numa;
        Nic& n = t.nics[static_cast<std::size_t>(nic_of[nic])];
        if (numa >= 0 && n.numa < 0) {
            n.numa = numa;
        }
    };
    std::vector<std::string> asym;
    t.paths.reserve(ndev * (ndev - 1) / 2);
    for (std::size_t a = 0; a < ndev; ++a) {
        const std::string cell_where = where + ":" + std::to_string(rows.row_line[a]);
        for (std::size_t b = a + 1; b < ndev; ++b) {
            const CellCode k = cells.code[a * ndev + b];
            if (!cells.same(a, b, b, a)) {
                asym.push_back(devices[a] + "/" + devices[b] + " is " + cells.text(a, b) + " but " + devices[b] +
                               "/" + devices[a] + " is " + cells.text(b, a));
            }
            if (k == kX) {
                throw input_error(cell_where, "cell " + devices[a] + "/" + devices[b] + " is X off the diagonal",
                                  "X marks a device with itself only");
            }
            DevicePath d;
            d.a = canon[a];
            d.b = canon[b];
            d.path_class = path_class_of(cells, a, b);
            if (d.path_class == PathClass::Nv) {
                const std::string v = cells.text(a, b);
                if (gpu_of[a] < 0 || gpu_of[b] < 0) {
                    throw input_error(cell_where,
                                      "cell " + devices[a] + "/" + devices[b] + " is " + v +
                                          ", but NVLink joins GPUs only",
                                      "check the column order of the header");
                }
                const long links = k >= kNv ? k - kNv : ingest_detail::parse_uint(v.substr(2));
                if (links < 1 || links > kMaxNvlinksPerPair) {
                    throw input_error(cell_where,
                                      "cell " + devices[a] + "/" + devices[b] + " is " + v +
                                          ": not a count of NVLinks (1 to " + std::to_string(kMaxNvlinksPerPair) + ")",
                                      "re-capture the matrix with nvidia-smi topo -m; NV# counts the bonded links of the pair");
                }
                d.nvlinks = static_cast<int>(links);
            }
            if (d.path_class != PathClass::Sys) {
                nic_numa(a, b);
                nic_numa(b, a);
            }
            t.paths.push_back(std::move(d));
        }
    }
    for (const auto& w : asym) {
        t.warnings.push_back("asymmetric matrix: " + w + " (kept " + w.substr(0, w.find(' ')) +
                             ")");
    }
}

/// The NVLink section of `t` from its GPU paths: every GPU pair NV# with one count that no GPU
/// could wire point-to-point (count × (GPUs − 1) > 18 links) means an NVSwitch fabric.
void set_nvlink(NodeTemplate& t) {
    int common = -1;
    bool all_nv = t.gpus.size() > 1;
    int max_sum = 0;
    std::map<std::string, int> sums;
    for (const auto& p : t.paths) {
        if (p.a.rfind("GPU", 0) == 0 && p.b.rfind("GPU", 0) == 0) {
            if (p.path_class != PathClass::Nv) {
                all_nv = false;
                continue;
            }
            common = (common == -1 || common == p.nvlinks) ? p.nvlinks : -2;
            sums[p.a] += p.nvlinks;
            sums[p.b] += p.nvlinks;
        }
    }
    for (const auto& kv : sums) {
        max_sum = std::max(max_sum, kv.second);
    }
    const int ngpu = static_cast<int>(t.gpus.size());
    if (all_nv && common > 0 && common * (ngpu - 1) > 18) {
        t.nvlink.nvswitch = true;
        t.nvlink.links_per_gpu = common;
        for (auto& g : t.gpus) {
            g.nvswitch_links = common;
        }
    } else {
        t.nvlink.links_per_gpu = max_sum;
        if (all_nv && common > 0) {
            t.warnings.push_back("every GPU pair is NV" + std::to_string(common) +
                                 ": NVSwitch or direct links cannot be told apart from this "
                                 "matrix; assumed direct links");
        }
    }
}

}  // namespace

NodeTemplate read_nvidia_smi_topo(const std::string& input, const std::string& where) {
    ingest_detail::require_utf8(input, where);
    const std::string text = ingest_detail::strip_ansi(input);
    const auto lines = lines_of(text);
    const std::size_t header_at = find_header(lines, where);
    const std::string hdr_where = where + ":" + std::to_string(header_at + 1);
    const HeaderColumns header = header_columns(lines[header_at], hdr_where);
    const std::vector<std::string>& devices = header.devices;
    const std::size_t ndev = devices.size();
    const auto legend = nic_legend(lines, header_at);

    // The limit first, before anything per column pair (the matrix has devices² cells).
    const auto gpu_columns = static_cast<std::size_t>(std::count_if(devices.begin(), devices.end(), [](const std::string& d) {
        return d.size() > 3 && d.rfind("GPU", 0) == 0 && d.find_first_not_of("0123456789", 3) == std::string::npos;
    }));
    ingest_detail::require_node_size(gpu_columns, ndev - gpu_columns, hdr_where);

    NodeTemplate t;
    t.source = where;
    const DeviceColumns columns = add_devices(devices, legend, hdr_where, t);
    const MatrixRows rows = read_rows(lines, header_at, header, columns, where, t);
    add_cpus(rows.gpu_meta, t);
    add_paths(rows, devices, columns.canon, where, t);
    set_nvlink(t);
    require_template_names(t, where);
    return t;
}

}  // namespace planlayout
