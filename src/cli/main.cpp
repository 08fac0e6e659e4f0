// CLI: the executable; all logic lives in run_cli. Standard output goes through an FdOStream, so
// that a failed write (a full disk, /dev/full, a closed pipe's EPIPE) is seen, with its reason.
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <string_view>

#include "planlayout/cli/run.hpp"
#include "planlayout/emit/output_file.hpp"

namespace {

void write_stderr(std::string_view text) noexcept {
    while (!text.empty()) {
        const ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
        if (n <= 0) {
            return;
        }
        text.remove_prefix(static_cast<std::size_t>(n));
    }
}

// An exception that meets a noexcept frame ends in std::terminate, where no destructor runs: a
// std::bad_alloc thrown while a destructor allocates (nlohmann::json frees a large document with
// a heap-allocated stack) would abort with exit 134 and leave `-o`'s temporary file behind. The
// handler removes the temporaries and ends as run_cli's catch does: exit 4 and the message.
[[noreturn]] void on_terminate() noexcept {
    planlayout::remove_output_temporaries();
    bool out_of_memory = false;
    if (const std::exception_ptr e = std::current_exception()) {
        try {
            std::rethrow_exception(e);
        } catch (const std::bad_alloc&) {
            out_of_memory = true;
        } catch (...) {  // NOLINT(bugprone-empty-catch): any other exception is a bug, below
        }
    }
    if (out_of_memory) {
        write_stderr(planlayout::kOutOfMemoryMessage);
        std::_Exit(4);
    }
    write_stderr("plan-layout: internal error: std::terminate; please report this with the command line that caused it\n");
    std::abort();
}

}  // namespace

int main(int argc, char** argv) {
    std::set_terminate(on_terminate);
    planlayout::FdOStream out(STDOUT_FILENO);
    return planlayout::run_cli({argv, argv + argc}, out, std::cerr, std::cin);
}
