#pragma once
// The raw writer of result records: numbers, seconds and strings formatted straight into an output buffer,
// without a per-record string or a bounds check per character, so a million-job result is written in about a
// second. The result schema (sim/app/result_fields) decides what is written; this decides how.
#include "models/base/csv_out.hpp"
#include "models/base/json_out.hpp"
#include "models/base/sim_time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace dlsim::record_out {

using Buffer = fmt::memory_buffer;

/// Writes through a raw pointer into a Buffer grown ahead of the writes: a job record is formatted
/// without a bounds check or a call per character. Every write asks for room first (`need`).
class RecordWriter {
    static constexpr char kPairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";

public:
    explicit RecordWriter(Buffer& b) : b_(b), p_(b.data() + b.size()) {}
    ~RecordWriter() { b_.resize(static_cast<std::size_t>(p_ - b_.data())); }
    RecordWriter(const RecordWriter&) = delete;
    RecordWriter& operator=(const RecordWriter&) = delete;

    void need(std::size_t n) {
        if (static_cast<std::size_t>(b_.data() + b_.size() - p_) >= n) return;
        const auto at = static_cast<std::size_t>(p_ - b_.data());
        b_.resize(std::max(b_.size() + n, at + n + 4096));
        p_ = b_.data() + at;
    }
    void put(char c) { *p_++ = c; }  ///< after need()
    void put(std::string_view s) {   ///< after need()
        if (s.empty()) return;       // an empty view may have no data pointer at all
        std::memcpy(p_, s.data(), s.size());
        p_ += s.size();
    }
    void text(std::string_view s) {
        need(s.size());
        put(s);
    }
    void integer(std::int64_t v) {
        need(21);
        std::uint64_t u = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
        if (v < 0) put('-');
        unsigned_digits(u);
    }
    /// Microseconds as seconds (see append_seconds).
    void seconds(std::int64_t us) {
        constexpr std::int64_t kMaxExact = 1'000'000'000'000'000;  // 10^15 µs: at most 15 digits
        if (us < 100 || us >= kMaxExact) {
            if (us == 0) return text("0");
            // fmt's shortest round trip, exponent notation below 1e-4 s; rare
            const std::string general = json_out::number(to_seconds(us));
            return text(general);
        }
        need(32);
        unsigned_digits(static_cast<std::uint64_t>(us / 1'000'000));
        const auto frac = static_cast<std::uint32_t>(us % 1'000'000);
        if (frac == 0) return;
        // Six digits by pairs, then drop the trailing zeros.
        p_[0] = '.';
        std::memcpy(p_ + 1, kPairs + 2 * (frac / 10'000), 2);
        std::memcpy(p_ + 3, kPairs + 2 * (frac / 100 % 100), 2);
        std::memcpy(p_ + 5, kPairs + 2 * (frac % 100), 2);
        int len = 7;
        while (p_[len - 1] == '0') --len;
        p_ += len;
    }
    void json_string(std::string_view s) {
        std::size_t clean = 0;  // most strings need no escape: copy them whole
        while (clean < s.size() && s[clean] != '"' && s[clean] != '\\' && static_cast<unsigned char>(s[clean]) >= 0x20)
            ++clean;
        if (clean < s.size()) return through_buffer([&] { json_out::append_quoted(b_, s); });
        need(s.size() + 2);
        put('"');
        put(s);
        put('"');
    }
    void csv_string(std::string_view s) {
        through_buffer([&] { csv_out::append_field(b_, s); });
    }

private:
    void unsigned_digits(std::uint64_t u) {  ///< after need(20)
        char tmp[20];
        char* e = tmp + sizeof tmp;
        char* q = e;
        while (u >= 100) {
            const auto pair = static_cast<std::size_t>(u % 100) * 2;
            u /= 100;
            *--q = kPairs[pair + 1];
            *--q = kPairs[pair];
        }
        if (u >= 10) {
            *--q = kPairs[u * 2 + 1];
            *--q = kPairs[u * 2];
        } else {
            *--q = static_cast<char>('0' + u);
        }
        put(std::string_view(q, static_cast<std::size_t>(e - q)));
    }

    /// Lets `write` append to the buffer itself (the rare escaped strings), then writes on after it.
    template <class F>
    void through_buffer(F write) {
        b_.resize(static_cast<std::size_t>(p_ - b_.data()));
        write();
        p_ = b_.data() + b_.size();
    }

    Buffer& b_;
    char* p_;
};

/// Microseconds as seconds, byte-identical to json_out::number(to_seconds(us)) but with integer arithmetic on
/// the common path: fmt's shortest form of us / 1e6 is the exact decimal whenever that decimal has at most 15
/// significant digits (every such decimal round-trips through a double, and no shorter one maps to the same
/// double) and fmt writes it in fixed notation (values from 1e-4 up to 1e16). Elsewhere, ask fmt.
inline void append_seconds(Buffer& out, std::int64_t us) { RecordWriter(out).seconds(us); }
/// A JSON string literal with escapes (as json_out::quote).
inline void append_json_string(Buffer& out, std::string_view s) { RecordWriter(out).json_string(s); }
/// One CSV cell per RFC 4180: quoted when it holds a comma, quote, CR or LF; quotes doubled.
inline void append_csv_text(Buffer& out, std::string_view s) { RecordWriter(out).csv_string(s); }
inline std::string csv_text(std::string_view s) {
    Buffer b;
    append_csv_text(b, s);
    return fmt::to_string(b);
}
inline void append(Buffer& out, std::string_view s) { out.append(s.data(), s.data() + s.size()); }
inline void append_int(Buffer& out, std::int64_t v) { RecordWriter(out).integer(v); }
inline void append_double(Buffer& out, double x) { append(out, json_out::number(x)); }

}  // namespace dlsim::record_out
