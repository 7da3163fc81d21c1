#pragma once
// An output file written through a large in-memory buffer to `<path>.tmp` and renamed over `path`
// only when complete, so a crash or a full disk never leaves a truncated result behind. A path that is a
// device or a pipe (/dev/null, a FIFO) is written directly.
#include "sim/app/file_hash.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
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
        flush_if_full();
    }
    void put(char c) { buffer_.push_back(c); }

    /// The in-memory buffer, for writers that format straight into it (call flush_if_full() after
    /// each record so the buffer stays bounded).
    fmt::memory_buffer& buffer() { return buffer_; }
    void flush_if_full() {
        if (buffer_.size() > kChunk) flush();
    }

    /// From now on, hashes every byte written (SHA-256), for a checksum the file carries.
    void start_hash();
    /// The hex SHA-256 of the bytes written since start_hash(); bytes written after it are not hashed.
    std::string finish_hash();

    /// Flushes, closes and renames into place; failures are InputErrors naming the path.
    void commit();

private:
    static constexpr std::size_t kChunk = 1u << 20;  ///< written to disk in chunks of about this size
    void flush();
    std::string path_, tmp_;  // tmp_ empty: writing `path_` itself
    std::FILE* file_ = nullptr;
    fmt::memory_buffer buffer_;
    std::unique_ptr<Sha256> hash_;
    bool failed_ = false;
};

}  // namespace dlsim
