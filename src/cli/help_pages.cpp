// CLI: the main --help text and the man page plan-layout.1, both from the command definitions.
#include <CLI/CLI.hpp>

#include <sstream>

#include "commands.hpp"
#include "planlayout/version.hpp"

namespace planlayout::cli {
namespace {

constexpr const char* kWhat = "rank layout and communication-group topology analyzer for distributed training";
constexpr const char* kExitCodes =
    "Exit codes: 0 success; 1 a check found problems (lint, verify); 2 bad input or usage\n"
    "(nothing written); 3 a file could not be read or written; 4 internal error.";
constexpr const char* kExample = "plan-layout groups --nodes 2 --gpus-per-node 8 --ep 16      # the seed's layout A";

// Text for groff: backslashes and '-' escaped, a leading '.' or '\'' guarded, non-ASCII as \[uXXXX].
std::string roff(const std::string& text) {
    std::string out;
    bool line_start = true;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (line_start && (c == '.' || c == '\'')) {
            out += "\\&";
        }
        line_start = c == '\n';
        if (c == '\\') {
            out += "\\e";
        } else if (c == '-') {
            out += "\\-";
        } else if (c < 0x80) {
            out += static_cast<char>(c);
        } else {  // UTF-8: decode one code point
            const int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
            unsigned cp = c & (0x3FU >> extra);
            for (int k = 0; k < extra && i + 1 < text.size(); ++k) {
                cp = (cp << 6U) | (static_cast<unsigned char>(text[++i]) & 0x3FU);
            }
            char buf[16];
            std::snprintf(buf, sizeof buf, "\\[u%04X]", cp);
            out += buf;
        }
    }
    return out;
}

// A paragraph whose line breaks were only for an 80-column terminal: one filled paragraph.
std::string filled(std::string text) {
    for (auto& c : text) {
        c = c == '\n' ? ' ' : c;
    }
    return roff(text);
}

void man_command(std::ostream& out, const CommandSpec& spec) {
    out << ".SS " << roff(spec.name) << "\n" << roff(spec.summary) << "\n.PP\n.nf\n" << roff(spec.usage) << "\n.fi\n.PP\n"
        << filled(spec.description) << "\n";
    for (const auto& row : spec.options) {
        std::string names = row.names;
        for (auto& c : names) {
            c = c == ',' ? '\x01' : c;
        }
        std::string shown = roff(names);
        for (std::size_t at = shown.find('\x01'); at != std::string::npos; at = shown.find('\x01')) {
            shown.replace(at, 1, ", ");
        }
        const std::string metavar = row.option->get_type_name();
        out << ".TP\n.B " << shown << (metavar.empty() ? "" : " \\fI" + roff(metavar) + "\\fR") << "\n"
            << roff(row.option->get_description()) << "\n";
    }
    if (!spec.examples.empty()) {
        out << ".PP\nExamples:\n.RS\n.nf\n";
        for (const auto& e : spec.examples) {
            out << roff(e) << "\n";
        }
        out << ".fi\n.RE\n";
    }
}

}  // namespace

std::string main_help(const std::vector<CommandSpec>& specs) {
    std::ostringstream out;
    out << "plan-layout " << kVersion << " — " << kWhat
        << "\n\n"
           "Usage: plan-layout COMMAND [options]\n"
           "       plan-layout COMMAND --help     (every command explains its options)\n\n"
           "Commands:\n";
    for (const auto& c : specs) {
        std::string name = c.name;
        name.resize(12, ' ');
        out << "  " << name << c.summary << "\n";
    }
    out << "\n" << kExitCodes << "\n\nExample:\n  " << kExample << "\n";
    return out.str();
}

std::string man_page(const std::vector<CommandSpec>& specs) {
    std::ostringstream out;
    out << ".TH PLAN-LAYOUT 1 \"\" \"plan-layout " << kVersion << "\" \"User Commands\"\n"
        << ".SH NAME\nplan-layout \\- " << roff(kWhat) << "\n"
        << ".SH SYNOPSIS\n.B plan-layout\n.I COMMAND\n[options]\n.br\n.B plan-layout\n.I COMMAND\n.B \\-\\-help\n"
        << ".SH DESCRIPTION\n"
        << "plan-layout places the ranks of a Megatron-style parallel spec on a cluster, builds every\n"
           "communication group, classifies the links each group's collectives use and predicts what\n"
           "they cost. Each command below explains its options with\n.BR \"plan-layout COMMAND \\-\\-help\" .\n"
        << ".SH COMMANDS\n";
    for (const auto& spec : specs) {
        man_command(out, spec);
    }
    out << ".SH EXIT STATUS\n" << filled(kExitCodes) << "\n.SH EXAMPLE\n.nf\n" << roff(kExample) << "\n.fi\n";
    return out.str();
}

}  // namespace planlayout::cli
