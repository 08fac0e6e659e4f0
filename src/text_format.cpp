// Text formatting shared by messages and emitters.
#include "planlayout/text_format.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "planlayout/error.hpp"

namespace planlayout {

void require_finite(double v) {
    if (!std::isfinite(v)) {
        throw Error(ExitCode::Internal, "output", "a computed number is " + std::string(std::isnan(v) ? "not a number" : "infinite"),
                    "an input is out of its range without being refused; please report this with the input");
    }
}

std::string fixed_text(double v, int decimals) {
    require_finite(v);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string percent_text(double fraction, int decimals) { return fixed_text(100.0 * fraction, decimals) + "%"; }

std::string signed_percent_text(double fraction) {
    require_finite(fraction);
    if (std::fabs(fraction) < 5e-5) {
        fraction = 0.0;  // no "-0.00%"
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.2f%%", fraction * 100.0);
    return buf;
}

std::string seconds_text(double v) {
    int digits = 3;
    for (double x = std::fabs(v); x > 0 && x < 1.0 && digits < 9; x *= 10) {
        ++digits;
    }
    return fixed_text(v, std::max(3, digits));
}

std::string human_bytes(double b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024.0 && u < 4) {
        b /= 1024.0;
        ++u;
    }
    return fixed_text(b, u == 0 ? 0 : 1) + " " + units[u];
}

std::string padded(const std::string& s, std::size_t width) {
    return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

std::string left_aligned(const std::string& s, std::size_t width) {
    return s.size() < width ? s + std::string(width - s.size(), ' ') : s;
}

std::string right_aligned(const std::string& s, std::size_t width) {
    return s.size() < width ? std::string(width - s.size(), ' ') + s : s;
}

std::string ascii_lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

double round_to(double v, int decimals) {
    const double scale = std::pow(10.0, decimals);
    return std::round(v * scale) / scale;
}

std::string wrapped_text(const std::vector<std::string>& items, std::string_view prefix, std::string_view indent,
                         std::string_view sep, std::size_t width) {
    std::string out(prefix);
    std::size_t column = prefix.size();
    const std::string_view sep_at_break = sep.substr(0, sep.find_last_not_of(' ') + 1);
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string& item = items[i];
        if (i == 0) {
            out += item;
            column += item.size();
        } else if (column + sep.size() + item.size() > width) {
            out.append(sep_at_break).append("\n").append(indent).append(item);
            column = indent.size() + item.size();
        } else {
            out.append(sep).append(item);
            column += sep.size() + item.size();
        }
    }
    return out;
}

}  // namespace planlayout
