#include "sim/app/cli.hpp"

int main(int argc, char** argv) { return dlsim::cli_main(argc, argv); }
