#include "sim/app/atomic_file.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>

namespace dlsim {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp") {
    const std::filesystem::path p(path_);
    // A device or pipe (`--out /dev/null`, a FIFO) is written as it is: renaming over it would replace
    // the device node with a regular file.
    std::error_code ec;
    const auto status = std::filesystem::status(p, ec);
    if (!ec && std::filesystem::is_directory(status))
        throw InputError(fmt::format("{}: is a directory, expected an output file name", path_));
    if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status) &&
        !std::filesystem::is_directory(status)) {
        tmp_.clear();
        file_ = std::fopen(path_.c_str(), "w");
        if (file_ == nullptr)
            throw InputError(fmt::format("{}: cannot write output file ({})", path_, std::strerror(errno)));
        return;
    }
    if (p.has_parent_path()) {
        std::filesystem::create_directories(p.parent_path(), ec);
        if (ec && !std::filesystem::is_directory(p.parent_path()))
            throw InputError(
                fmt::format("{}: cannot create the folder {} ({})", path_, p.parent_path().string(), ec.message()));
    }
    file_ = std::fopen(tmp_.c_str(), "w");
    // The temporary file sits beside the output: failing to create it means the folder is not writable.
    if (file_ == nullptr)
        throw InputError(fmt::format("{}: cannot write the output file in {} ({})", path_,
                                     p.has_parent_path() ? p.parent_path().string() : std::string("."),
                                     std::strerror(errno)));
}

AtomicFile::~AtomicFile() {
    if (file_ != nullptr) {
        std::fclose(file_);
        if (!tmp_.empty()) std::remove(tmp_.c_str());
    }
}

void AtomicFile::start_hash() {
    flush();
    hash_ = std::make_unique<Sha256>();
}

std::string AtomicFile::finish_hash() {
    flush();
    std::string hex = hash_ ? hash_->hex() : std::string();
    hash_.reset();
    return hex;
}

void AtomicFile::flush() {
    if (hash_) hash_->update(buffer_.data(), buffer_.size());
    if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) failed_ = true;
    buffer_.clear();
}

void AtomicFile::commit() {
    flush();
    if (tmp_.empty()) {  // a device or pipe: nothing to rename
        const bool ok = !failed_ && std::fflush(file_) == 0 && std::ferror(file_) == 0;
        std::fclose(file_);
        file_ = nullptr;
        if (!ok) throw InputError(fmt::format("{}: could not write the output", path_));
        return;
    }
    // On disk before the rename: a finished result survives a crash of the machine, not only of dlsim.
    const bool ok = !failed_ && std::fflush(file_) == 0 && std::ferror(file_) == 0 && ::fsync(::fileno(file_)) == 0;
    const int write_errno = errno;
    std::fclose(file_);
    file_ = nullptr;
    if (!ok) {
        std::remove(tmp_.c_str());
        throw InputError(fmt::format("{}: could not write the output ({})", path_, std::strerror(write_errno)));
    }
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
        const int rename_errno = errno;
        std::error_code dir_ec;
        std::remove(tmp_.c_str());
        if (std::filesystem::is_directory(path_, dir_ec))
            throw InputError(fmt::format("{}: is a directory, expected an output file name", path_));
        throw InputError(fmt::format("{}: could not replace the output file ({})", path_, std::strerror(rename_errno)));
    }
}

}  // namespace dlsim
