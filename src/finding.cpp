// Findings: severity names and the JSON form shared by lint and verify.
#include "planlayout/finding.hpp"

namespace planlayout {

std::string_view to_string(Severity s) {
    switch (s) {
        case Severity::Error:
            return "error";
        case Severity::Warning:
            return "warning";
        case Severity::Info:
            break;
    }
    return "info";
}

nlohmann::json to_json(const Finding& f) {
    nlohmann::json j{{"severity", std::string(to_string(f.severity))}, {"code", f.code}, {"message", f.message}, {"fix", f.fix}};
    if (f.rank >= 0) {
        j["rank"] = f.rank;
    }
    if (f.channel >= 0) {
        j["channel"] = f.channel;
    }
    return j;
}

}  // namespace planlayout
