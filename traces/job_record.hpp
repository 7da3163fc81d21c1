#pragma once
// The canonical job record every trace reader produces (DESIGN.md "Inputs", canonical CSV).
// Repeated strings (model, GPU type, user, VC, status) are interned: the engine never touches strings.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

/// Index into a Trace's string table; 0 is the empty string ("not given").
using StrId = std::uint32_t;

/// Interns strings so a million records share one copy of each model, user and VC name.
class StringTable {
public:
    StringTable() { strings_.emplace_back(); }
    StrId intern(std::string_view s);
    const std::string& operator[](StrId id) const { return strings_[id]; }

private:
    std::vector<std::string> strings_;
    std::map<std::string, StrId, std::less<>> index_;
};

struct JobRecord {
    std::string id;              ///< kept as given
    double submit_time = 0;      ///< s from the trace start
    int num_gpus = 1;
    double duration = 0;         ///< s it ran in the original cluster
    double work = 0;             ///< iterations; 0 = derive from duration
    double gpu_fraction = 1;     ///< (0, 1]
    double priority = 0;
    StrId model = 0, gpu_type = 0, allowed_gpu_types = 0;  ///< allowed: '|'-separated names
    StrId user = 0, vc = 0, status = 0;
    std::uint32_t line = 0;      ///< line in the source file, for messages
};

/// What a reader did: rows read, kept, dropped and repaired, by reason.
struct ReadReport {
    std::uint64_t rows_read = 0;
    std::uint64_t kept = 0;
    std::map<std::string, std::uint64_t> dropped;   ///< reason -> rows
    std::map<std::string, std::uint64_t> repaired;  ///< reason -> rows
    std::vector<std::string> first_errors;          ///< the first few skipped rows' messages
};

struct Trace {
    std::string path;    ///< the file it came from (or a description of a generated trace)
    std::string format;  ///< reader name, e.g. "csv"
    std::vector<JobRecord> jobs;
    StringTable strings;
    ReadReport report;
};

}  // namespace dlsim
