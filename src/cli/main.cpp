// CLI: the executable; all logic lives in run_cli. Standard output goes through an FdOStream, so
// that a failed write (a full disk, /dev/full, a closed pipe's EPIPE) is seen, with its reason.
#include <unistd.h>

#include <iostream>

#include "planlayout/cli/run.hpp"
#include "planlayout/emit/output_file.hpp"

int main(int argc, char** argv) {
    planlayout::FdOStream out(STDOUT_FILENO);
    return planlayout::run_cli({argv, argv + argc}, out, std::cerr, std::cin);
}
