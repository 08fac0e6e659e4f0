// Ingest: calibration files named by a transport section.
#include "planlayout/ingest/calibration_file.hpp"

#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/read_file.hpp"

namespace planlayout {

std::vector<Calibration> read_calibration_files(const std::vector<std::string>& files, const std::string& base_dir) {
    std::vector<Calibration> out;
    out.reserve(files.size());
    for (const auto& rel : files) {
        const std::string path = join_path(base_dir, rel);
        out.push_back(calibration_from_json(parse_json_text(read_text_file(path), path), path));
    }
    return out;
}

}  // namespace planlayout
