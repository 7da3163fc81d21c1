#pragma once
// An output file written through a large in-memory buffer to `<path>.tmp` and renamed over `path`
// only when complete, so a crash or a full disk never leaves a truncated result behind.
#include <fmt/format.h>

#include <cstdio>
#include <string>

namespace dlsim {

class AtomicFile {
public:
    /// Creates the parent folder; an unwritable path is an InputError.
    explicit AtomicFile(std::string path);
    ~AtomicFile();  ///< without commit(), removes the temporary file
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    template <class... Args>
    void print(fmt::format_string<Args...> format, Args&&... args) {
        fmt::format_to(std::back_inserter(buffer_), format, std::forward<Args>(args)...);
        if (buffer_.size() > (1u << 20)) flush();
    }
    void put(char c) { buffer_.push_back(c); }

    /// Flushes, closes and renames into place; failures are InputErrors naming the path.
    void commit();

private:
    void flush();
    std::string path_, tmp_;
    std::FILE* file_ = nullptr;
    fmt::memory_buffer buffer_;
    bool failed_ = false;
};

}  // namespace dlsim
