// Emit: group listings (JSON streamed in chunks with to_chars; text for terminals).
#include "planlayout/emit/groups_emit.hpp"

#include <algorithm>
#include <charconv>
#include <ostream>
#include <sstream>
#include <string_view>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/text_format.hpp"
#include "planlayout/version.hpp"

namespace planlayout {
namespace {

bool wanted(const std::vector<std::string>& kinds, const std::string& name) {
    return kinds.empty() || std::find(kinds.begin(), kinds.end(), name) != kinds.end();
}

void append_int(std::string& out, std::int64_t v) {
    char buf[24];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, res.ptr);
}

std::string list_text(const std::vector<std::int64_t>& ranks, std::size_t max_items) {
    std::string s = "[";
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        if (i == max_items && ranks.size() > max_items + 1) {
            s += " ... " + std::to_string(ranks.back());
            break;
        }
        s += (i ? " " : "") + std::to_string(ranks[i]);
    }
    return s + "]";
}

// The first max_items members of group g and its last one, without building the group (a dp
// group of a 2^31-rank world has 2^28 members).
std::string group_head_text(const GroupKind& k, std::int64_t g, std::size_t max_items) {
    const auto n = static_cast<std::size_t>(k.group_size());
    if (n <= max_items + 1) {
        return list_text(k.group(g), max_items);
    }
    std::string s = "[";
    for (std::size_t i = 0; i < max_items; ++i) {
        s += (i ? " " : "") + std::to_string(k.member(g, static_cast<std::int64_t>(i)));
    }
    return s + " ... " + std::to_string(k.member(g, static_cast<std::int64_t>(n - 1))) + "]";
}

// Coordinates of a rank along each axis of a generator, e.g. "tp=0 cp=0 dp=3 pp=1".
std::string coords(const std::vector<Axis>& axes, std::int64_t rel, const std::vector<std::string>& rename) {
    std::string s;
    for (const auto& a : axes) {
        if (a.size == 1 && a.name != "tp") {
            continue;
        }
        std::string name = a.name;
        for (std::size_t i = 0; i + 1 < rename.size(); i += 2) {
            if (name == rename[i]) {
                name = rename[i + 1];
            }
        }
        s += (s.empty() ? "" : " ") + name + "=" + std::to_string((rel / a.stride) % a.size);
    }
    return s;
}

}  // namespace

std::int64_t group_entry_count(const Groups& groups, const std::vector<std::string>& kinds) {
    std::int64_t entries = 0;
    for (const auto& k : groups.kinds) {
        if (wanted(kinds, k.name)) {
            entries += k.group_count() * k.group_size();  // ≤ world ≤ 2^31 per kind: no overflow
        }
    }
    return entries;
}

namespace {

// Collects text in a small buffer and hands it to the stream in 64 KiB pieces: the listing is
// written as it is produced, never held whole (a 2^20-rank listing is 140 MB of JSON).
class ChunkWriter {
public:
    explicit ChunkWriter(std::ostream& os) : os_(os) { buf_.reserve(kChunk + 64); }

    ChunkWriter(const ChunkWriter&) = delete;
    ChunkWriter& operator=(const ChunkWriter&) = delete;
    ChunkWriter(ChunkWriter&&) = delete;
    ChunkWriter& operator=(ChunkWriter&&) = delete;

    ~ChunkWriter() { flush(); }

    void put(char c) { buf_ += c; }

    void put(std::string_view s) {
        buf_.append(s);
        maybe_flush();
    }

    void put_int(std::int64_t v) {
        append_int(buf_, v);
        maybe_flush();
    }

    void flush() {
        os_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
        buf_.clear();
    }

private:
    static constexpr std::size_t kChunk = std::size_t{1} << 16U;

    void maybe_flush() {
        if (buf_.size() >= kChunk) {
            flush();
        }
    }

    std::ostream& os_;
    std::string buf_;
};

}  // namespace

void check_group_entry_limit(const Groups& groups, const std::vector<std::string>& kinds) {
    if (const std::int64_t entries = group_entry_count(groups, kinds); entries > kMaxGroupEntries) {
        throw input_error("groups --format json",
                          "the listing would hold " + std::to_string(entries) +
                              " rank entries, over the limit of " + std::to_string(kMaxGroupEntries) +
                              " (2^27, about 1 GiB of JSON)",
                          "list fewer kinds with --kinds (e.g. --kinds tp,ep), or one rank's groups with --rank R");
    }
}

void write_groups_json(std::ostream& os, const Groups& groups, const std::vector<std::string>& kinds) {
    check_group_entry_limit(groups, kinds);
    ChunkWriter out(os);
    out.put("{\"schema_version\":");
    out.put_int(kSchemaVersion);
    out.put(",\"spec\":" + to_json(groups.spec).dump());  // a few hundred bytes
    if (groups.framework != "megatron") {
        nlohmann::json roles = nlohmann::json::object();
        for (const auto& k : groups.kinds) {
            if (wanted(kinds, k.name)) {
                roles[k.name] = k.role;
            }
        }
        out.put(",\"framework\":" + nlohmann::json(groups.framework).dump() +
                ",\"degrees\":" + nlohmann::json(groups.framework_degrees).dump() + ",\"roles\":" + roles.dump());
    }
    out.put(",\"groups\":{");
    bool first_kind = true;
    for (const auto& k : groups.kinds) {
        if (!wanted(kinds, k.name)) {
            continue;
        }
        out.put(first_kind ? "\n\"" : ",\n\"");
        first_kind = false;
        out.put(k.name);
        out.put("\":[");
        const std::int64_t count = k.group_count();
        const std::int64_t size = k.group_size();
        // Grid kinds walk their masked axes as an odometer: no division per member.
        const auto& masked = k.base.masked;
        std::vector<std::int64_t> digit(masked.size(), 0);
        for (std::int64_t g = 0; g < count; ++g) {
            out.put(g ? ",[" : "[");
            if (k.derivation == KindDerivation::Grid) {
                const std::int64_t base = k.member(g, 0);
                std::fill(digit.begin(), digit.end(), 0);
                std::int64_t rank = base;
                for (std::int64_t i = 0; i < size; ++i) {
                    if (i) {
                        out.put(',');
                        for (std::size_t a = 0; a < masked.size(); ++a) {
                            if (++digit[a] < masked[a].size) {
                                rank += masked[a].stride;
                                break;
                            }
                            rank -= (masked[a].size - 1) * masked[a].stride;
                            digit[a] = 0;
                        }
                    }
                    out.put_int(rank);
                }
            } else {
                for (std::int64_t i = 0; i < size; ++i) {
                    if (i) {
                        out.put(',');
                    }
                    out.put_int(k.member(g, i));
                }
            }
            out.put(']');
        }
        out.put(']');
    }
    out.put("\n}}\n");
}

std::string groups_json(const Groups& groups, const std::vector<std::string>& kinds) {
    std::ostringstream out;
    write_groups_json(out, groups, kinds);
    return out.str();
}

void write_groups_text(std::ostream& out, const Groups& groups, const std::vector<std::string>& kinds) {
    const auto& s = groups.spec;
    const bool other = groups.framework != "megatron";
    if (other) {
        out << groups.framework << ", world " << s.world << ": " << groups.framework_degrees << "\nas Megatron sizes: ";
    }
    out << "world " << s.world << ": tp=" << s.tp << " pp=" << s.pp << " cp=" << s.cp << " dp=" << s.dp
        << " | ep=" << s.ep << " etp=" << s.etp << " expert_dp=" << s.expert_dp;
    if (s.gtp > 1 || s.egtp > 1) {
        out << " | gtp=" << s.gtp << " egtp=" << s.egtp;
    }
    if (s.dist_opt_instances > 1) {
        out << " | optimizer instances=" << s.dist_opt_instances;
    }
    if (other) {
        out << "\n\nkind                     role          groups x size  first groups\n";
    } else {
        out << "\norder " << s.order << " (dense " << axes_order(s.dense) << ", expert " << axes_order(s.expert) << ")\n\n";
        out << "kind                     groups x size  first groups\n";
    }
    for (const auto& k : groups.kinds) {
        if (!wanted(kinds, k.name)) {
            continue;
        }
        std::string name = k.name;
        name.resize(std::max<std::size_t>(24, name.size()), ' ');
        std::string shape = std::to_string(k.group_count()) + " x " + std::to_string(k.group_size());
        shape.insert(0, std::max<std::ptrdiff_t>(0, 13 - static_cast<std::ptrdiff_t>(shape.size())), ' ');
        out << name << " ";
        if (other) {
            out << padded(k.role.empty() ? "-" : k.role, 13);
        }
        out << shape << "  ";
        const std::int64_t show = std::min<std::int64_t>(k.group_count(), 3);
        for (std::int64_t g = 0; g < show; ++g) {
            out << (g ? " " : "") << group_head_text(k, g, 8);  // never the whole group
        }
        if (k.group_count() > show) {
            out << " ...";
        }
        out << "\n";
    }
}

std::string groups_text(const Groups& groups, const std::vector<std::string>& kinds) {
    std::ostringstream out;
    write_groups_text(out, groups, kinds);
    return out.str();
}

std::string comparison_text(const Groups& groups, const Groups& other, const std::vector<KindComparison>& rows) {
    std::ostringstream out;
    const auto& o = other.spec;
    out << groups.framework << " (" << (groups.framework_degrees.empty() ? compact_sizes_text(groups.spec) : groups.framework_degrees)
        << ") against " << other.framework << " --tp " << o.tp
        << " --pp " << o.pp << " --cp " << o.cp << " --ep " << o.ep << " (etp " << o.etp << ", order " << o.order
        << ")\n\n";
    out << "kind                     role          groups x size  " << other.framework << " kind          verdict\n";
    std::int64_t differ = 0;
    for (const auto& r : rows) {
        std::string shape = std::to_string(r.groups) + " x " + std::to_string(r.size);
        shape.insert(0, std::max<std::ptrdiff_t>(0, 13 - static_cast<std::ptrdiff_t>(shape.size())), ' ');
        out << padded(r.kind, 25) << padded(r.role.empty() ? "-" : r.role, 13) << shape << "  "
            << padded(r.counterpart.empty() ? "-" : r.counterpart, 23);
        switch (r.verdict) {
            case KindVerdict::Same:
                out << "same groups";
                break;
            case KindVerdict::SameMembers:
                out << "same groups, members in another order";
                break;
            case KindVerdict::Differ:
                ++differ;
                out << "DIFFER: rank " << r.rank << " is in " << list_text(r.group, 8) << " here, in "
                    << list_text(r.counterpart_group, 8) << " in " << other.framework;
                break;
            default:
                out << "no " << other.framework << " counterpart";
                break;
        }
        out << "\n";
    }
    out << "\n" << differ << " kind" << (differ == 1 ? "" : "s") << " differ";
    if (differ > 0) {
        out << ": a plan made with " << other.framework << "'s convention puts those groups on other links "
            << "(see analyze --framework " << groups.framework << ")";
    }
    out << "\n";
    return out.str();
}

std::string comparison_json(const Groups& groups, const Groups& other, const std::vector<KindComparison>& rows) {
    nlohmann::json j;
    j["schema_version"] = kSchemaVersion;
    j["framework"] = groups.framework;
    j["degrees"] = groups.framework_degrees;
    j["same_as"] = other.framework;
    j["same_as_spec"] = to_json(other.spec);
    j["kinds"] = nlohmann::json::array();
    for (const auto& r : rows) {
        nlohmann::json k{{"kind", r.kind}, {"role", r.role}, {"groups", r.groups}, {"size", r.size},
                         {"counterpart", r.counterpart}, {"verdict", verdict_name(r.verdict)}};
        if (r.verdict == KindVerdict::Differ) {
            k["rank"] = r.rank;
            k["group"] = r.group;
            k["counterpart_group"] = r.counterpart_group;
        }
        j["kinds"].push_back(std::move(k));
    }
    return j.dump(2) + "\n";
}

std::string rank_text(const Groups& groups, std::int64_t rank, const std::vector<std::string>& kinds) {
    std::ostringstream out;
    const auto& s = groups.spec;
    const std::int64_t rel = rank - s.rank_offset;
    out << "rank " << rank << "\n  dense:  " << coords(s.dense, rel, {}) << "\n  expert: "
        << coords(s.expert, rel, {"tp", "etp", "dp", "edp"}) << "\n\n";
    for (const auto& k : groups.kinds) {
        if (!wanted(kinds, k.name)) {
            continue;
        }
        std::string name = k.name;
        name.resize(std::max<std::size_t>(24, name.size()), ' ');
        const auto found = k.find(rank);
        if (!found) {
            out << name << " (not a member)\n";
            continue;
        }
        out << name << " group " << found->first << " position " << found->second << ": "
            << group_head_text(k, found->first, 16) << "\n";
    }
    return out.str();
}

std::int64_t rank_entry_count(const Groups& groups, std::int64_t rank, const std::vector<std::string>& kinds) {
    std::int64_t entries = 0;
    for (const auto& k : groups.kinds) {
        if (wanted(kinds, k.name) && k.find(rank)) {
            entries += k.group_size();  // ≤ world ≤ 2^31 per kind: no overflow
        }
    }
    return entries;
}

void check_rank_entry_limit(const Groups& groups, std::int64_t rank, const std::vector<std::string>& kinds) {
    if (const std::int64_t entries = rank_entry_count(groups, rank, kinds); entries > kMaxGroupEntries) {
        throw input_error("groups --rank " + std::to_string(rank) + " --format json",
                          "the rank's groups would list " + std::to_string(entries) +
                              " rank entries, over the limit of " + std::to_string(kMaxGroupEntries) +
                              " (2^27, about 1 GiB of JSON)",
                          "list fewer kinds with --kinds (e.g. --kinds tp,pp,ep), or drop --format json: the text "
                          "shows each group's first members");
    }
}

// The layout of nlohmann's dump(2), written member by member: the rank's groups are never held
// (a dp group of a 2^24-rank world is 2^21 ranks, and a DOM of it took 3.1 GB).
void write_rank_json(std::ostream& os, const Groups& groups, std::int64_t rank, const std::vector<std::string>& kinds) {
    check_rank_entry_limit(groups, rank, kinds);
    const auto& s = groups.spec;
    const std::int64_t rel = rank - s.rank_offset;
    nlohmann::ordered_json j;
    j["schema_version"] = kSchemaVersion;
    j["rank"] = rank;
    nlohmann::ordered_json dense;
    for (const auto& a : s.dense) {
        dense[a.name] = (rel / a.stride) % a.size;
    }
    nlohmann::ordered_json expert;
    for (const auto& a : s.expert) {
        expert[a.name] = (rel / a.stride) % a.size;
    }
    j["coordinates"] = {{"dense", dense}, {"expert", expert}};
    std::string head = j.dump(2);  // "{\n  ...\n  }\n}": reopened for "groups"
    head.resize(head.size() - 2);
    ChunkWriter out(os);
    out.put(head);
    out.put(",\n  \"groups\": ");
    bool first = true;
    for (const auto& k : groups.kinds) {
        if (!wanted(kinds, k.name)) {
            continue;
        }
        out.put(first ? "{\n    " : ",\n    ");
        first = false;
        out.put(nlohmann::json(k.name).dump());
        const auto found = k.find(rank);
        if (!found) {
            out.put(": null");
            continue;
        }
        out.put(": {\n      \"group\": ");
        out.put_int(found->first);
        out.put(",\n      \"position\": ");
        out.put_int(found->second);
        out.put(",\n      \"ranks\": [");
        const std::int64_t size = k.group_size();
        for (std::int64_t i = 0; i < size; ++i) {
            out.put(i ? ",\n        " : "\n        ");
            out.put_int(k.member(found->first, i));
        }
        out.put(size > 0 ? "\n      ]\n    }" : "]\n    }");
    }
    out.put(first ? "{}\n}\n" : "\n  }\n}\n");
}

std::string rank_json(const Groups& groups, std::int64_t rank, const std::vector<std::string>& kinds) {
    std::ostringstream out;
    write_rank_json(out, groups, rank, kinds);
    return out.str();
}

}  // namespace planlayout
