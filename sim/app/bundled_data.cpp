#include "sim/app/bundled_data.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <fstream>

namespace dlsim {

namespace fs = std::filesystem;

namespace {

/// The file this function's code was loaded from: a shared object by the name it was loaded under, the main
/// executable through /proc/self/exe (the dynamic loader names it "").
fs::path this_binary() {
    Dl_info info{};
    std::error_code ec;
    if (dladdr(reinterpret_cast<void*>(&this_binary), &info) != 0 && info.dli_fname != nullptr &&
        std::string_view(info.dli_fname).find('/') != std::string_view::npos) {
        const fs::path p = fs::canonical(info.dli_fname, ec);
        if (!ec) return p;
    }
    const fs::path exe = fs::canonical("/proc/self/exe", ec);
    return ec ? fs::path() : exe;
}

std::string find_root() {
    const fs::path binary = this_binary();
    if (binary.empty()) return "";
    fs::path dir = binary.parent_path();
    for (int up = 0; up <= 3 && !dir.empty(); ++up, dir = dir.parent_path()) {
        std::error_code ec;
        if (fs::is_directory(dir / "share" / "dlsim", ec)) return (dir / "share" / "dlsim").string();
        std::ifstream marker(dir / "DLSIM_DATA");
        std::string relative;
        if (marker && std::getline(marker, relative) && !relative.empty()) {
            std::string root = (dir / relative).lexically_normal().string();
            while (root.size() > 1 && root.back() == '/') root.pop_back();
            return root;
        }
        if (dir == dir.parent_path()) break;
    }
    return "";
}

}  // namespace

const std::string& bundled_data_root() {
    static const std::string root = find_root();
    return root;
}

std::string bundled_file(const std::string& relative) {
    const std::string& root = bundled_data_root();
    return root.empty() ? relative : root + "/" + relative;
}

}  // namespace dlsim
