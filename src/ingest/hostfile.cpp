// Ingest: MPI/DeepSpeed hostfiles.
#include "planlayout/ingest/hostfile.hpp"

#include <cstdint>
#include <cstdlib>
#include <sstream>

#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/names.hpp"
#include "planlayout/limits.hpp"

namespace planlayout {
namespace {

constexpr const char* kSlotsFix = "write host slots=N (DeepSpeed, Open MPI; max_slots=N beside it) or host:N (MPICH), "
                                  "N from 1 to 4096";

// A slot count from 1 to 4096, or -1.
long slot_count(const std::string& digits) {
    char* end = nullptr;
    const long v = std::strtol(digits.c_str(), &end, 10);
    return digits.empty() || *end != '\0' || digits[0] == '+' || digits[0] == '-' || v < 1 || v > 4096 ? -1 : v;
}

}  // namespace

std::vector<std::pair<std::string, int>> parse_hostfile(const std::string& text, const std::string& where) {
    require_text_size(text, where, kMaxHostfileBytes, "kMaxHostfileBytes",
                      "a hostfile has one short line per host: check that this is the right file");
    std::vector<std::pair<std::string, int>> out;
    std::istringstream in(text);
    std::string line;
    for (int lineno = 1; std::getline(in, line); ++lineno) {
        const std::string at = where + ":" + std::to_string(lineno);
        if (const auto hash = line.find('#'); hash != std::string::npos) {
            line.resize(hash);
        }
        std::istringstream words(line);
        std::string host;
        if (!(words >> host)) {
            continue;
        }
        long slots = 0;
        if (const auto colon = host.find(':'); colon != std::string::npos) {
            slots = slot_count(host.substr(colon + 1));
            if (slots < 0) {
                throw input_error(at, "bad slot count '" + printable(host.substr(colon + 1)) + "' after '" +
                                          printable(host.substr(0, colon)) + ":'", kSlotsFix);
            }
            host.resize(colon);
        }
        for (std::string w; words >> w;) {
            const auto eq = w.find('=');
            const std::string key = w.substr(0, eq);
            if (eq == std::string::npos || eq == 0 || (key != "slots" && key != "max_slots" && key != "max-slots")) {
                throw input_error(at, "'" + printable(w) + "' is not slots=N" +
                                          (w == "=" || key == "slots" ? " (no spaces around '=')" : ""), kSlotsFix);
            }
            const long v = slot_count(w.substr(eq + 1));
            if (v < 0) {
                throw input_error(at, "bad slot count '" + printable(w) + "'", kSlotsFix);
            }
            if (key == "slots") {
                slots = v;
            }
        }
        if (static_cast<std::int64_t>(out.size()) >= kMaxHostfileHosts) {
            throw input_error(at,
                              "more than " + std::to_string(kMaxHostfileHosts) +
                                  " hosts in one hostfile, over the limit (kMaxHostfileHosts, the node limit)",
                              "list each node of the cluster once; a cluster has at most " +
                                  std::to_string(kMaxNodes) + " nodes");
        }
        require_host_name(host, at);
        out.emplace_back(host, static_cast<int>(slots));
    }
    return out;
}

std::string hostfile_slots_note(const std::vector<std::pair<std::string, int>>& hosts, std::int64_t ranks_per_node,
                                const std::string& where) {
    if (ranks_per_node <= 0) {
        return {};
    }
    std::vector<std::string> off;
    int slots = 0;
    for (const auto& [host, s] : hosts) {
        if (s > 0 && s != ranks_per_node) {
            off.push_back(host);
            slots = off.size() == 1 ? s : slots;
        }
    }
    if (off.empty()) {
        return {};
    }
    const std::string which = off.size() == 1 ? off.front() : off.front() + " and " + std::to_string(off.size() - 1) + " more";
    return where + " gives " + which + " slots=" + std::to_string(slots) + ", but the plan puts " + std::to_string(ranks_per_node) +
           " ranks on each node (one per GPU of the node template): a launcher that reads the slots starts " +
           std::to_string(slots) + " there; give slots=" + std::to_string(ranks_per_node) + ", or a node template of " +
           std::to_string(slots) + " GPUs";
}

}  // namespace planlayout
