// Replays a fuzz corpus without libFuzzer: every file under CORPUS/<target>/ through that target, so the
// sanitizer build (ASan+UBSan, GCC) checks each input the fuzzers kept. Exit 0 when all ran; a crash or a
// sanitizer report ends the process, an exception other than InputError is reported and fails.
#include "tests/fuzz/fuzz_targets.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_replay CORPUS_DIR (with one folder per target)\n");
        return 2;
    }
    const fs::path root = argv[1];
    std::size_t inputs = 0, failures = 0;
    for (const std::string_view name : dlsim::fuzz::target_names()) {
        const fs::path dir = root / std::string(name);
        if (!fs::is_directory(dir)) {
            std::fprintf(stderr, "%s: no corpus for target %s\n", dir.c_str(), std::string(name).c_str());
            ++failures;
            continue;
        }
        std::vector<fs::path> files;
        for (const auto& e : fs::directory_iterator(dir))
            if (e.is_regular_file()) files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (const fs::path& f : files) {
            std::ifstream in(f, std::ios::binary);
            const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            ++inputs;
            try {
                dlsim::fuzz::run_target(name, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
            } catch (const std::exception& e) {
                std::fprintf(stderr, "%s: %s\n", f.c_str(), e.what());
                ++failures;
            }
        }
    }
    std::printf("replayed %zu inputs of %zu targets, %zu failures\n", inputs, dlsim::fuzz::target_names().size(),
                failures);
    return failures == 0 ? 0 : 1;
}
