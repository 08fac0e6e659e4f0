// CLI: the executable; all logic lives in run_cli.
#include <iostream>

#include "planlayout/cli/run.hpp"

int main(int argc, char** argv) {
    return planlayout::run_cli({argv, argv + argc}, std::cout, std::cerr, std::cin);
}
