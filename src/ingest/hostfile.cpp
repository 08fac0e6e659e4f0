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

std::vector<std::pair<std::string, int>> parse_hostfile(const std::string& text, const std::string& where) {
    require_text_size(text, where, kMaxHostfileBytes, "kMaxHostfileBytes",
                      "a hostfile has one short line per host: check that this is the right file");
    std::vector<std::pair<std::string, int>> out;
    std::istringstream in(text);
    std::string line;
    for (int lineno = 1; std::getline(in, line); ++lineno) {
        if (const auto hash = line.find('#'); hash != std::string::npos) {
            line.resize(hash);
        }
        std::istringstream words(line);
        std::string host;
        if (!(words >> host)) {
            continue;
        }
        int slots = 0;
        if (const auto colon = host.find(':'); colon != std::string::npos) {
            slots = std::atoi(host.c_str() + colon + 1);
            host.resize(colon);
        }
        for (std::string w; words >> w;) {
            if (w.rfind("slots=", 0) == 0) {
                char* end = nullptr;
                const long v = std::strtol(w.c_str() + 6, &end, 10);
                if (*end != '\0' || v < 1 || v > 4096) {
                    throw input_error(where + ":" + std::to_string(lineno), "bad slot count '" + w + "'",
                                      "write slots=N with N from 1 to 4096");
                }
                slots = static_cast<int>(v);
            }
        }
        if (static_cast<std::int64_t>(out.size()) >= kMaxHostfileHosts) {
            throw input_error(where + ":" + std::to_string(lineno),
                              "more than " + std::to_string(kMaxHostfileHosts) +
                                  " hosts in one hostfile, over the limit (kMaxHostfileHosts, the node limit)",
                              "list each node of the cluster once; a cluster has at most " +
                                  std::to_string(kMaxNodes) + " nodes");
        }
        require_host_name(host, where + ":" + std::to_string(lineno));
        out.emplace_back(host, slots);
    }
    return out;
}

}  // namespace planlayout
