#pragma once
// The canonical job record every trace reader produces: the canonical CSV's columns (traces/README.md).
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

/// A job's recorded end, normalised from each trace's own status words (the raw word stays in `status`).
enum class JobOutcome : std::uint8_t { Unknown, Completed, Failed, Killed };

struct JobRecord {
    std::string id;          ///< kept as given
    double submit_time = 0;  ///< s from the trace start
    int num_gpus = 1;
    /// Elastic range (canonical columns min_num_gpus, max_num_gpus): 1 <= min <= num_gpus <= max.
    /// 0 = the column was absent or empty for this job; a job with neither is rigid.
    int min_num_gpus = 0, max_num_gpus = 0;
    double duration = 0;      ///< s it ran in the original cluster
    double work = 0;          ///< iterations; 0 = derive from duration
    double gpu_fraction = 1;  ///< (0, 1]
    double priority = 0;
    int batch_size = 0;  ///< total batch size (Pollux/Sia workloads' batch_size column); 0 = not given
    StrId model = 0, gpu_type = 0, allowed_gpu_types = 0;  ///< allowed: '|'-separated names
    StrId user = 0, vc = 0, status = 0;
    JobOutcome outcome = JobOutcome::Unknown;
    std::uint32_t line = 0;  ///< line in the source file, for messages
};

/// What a reader did: rows read, kept, dropped and repaired, by reason.
struct ReadReport {
    std::uint64_t rows_read = 0;
    std::uint64_t kept = 0;
    std::map<std::string, std::uint64_t> dropped;   ///< reason -> rows
    std::map<std::string, std::uint64_t> repaired;  ///< reason -> rows
    std::vector<std::string> first_errors;          ///< the first few skipped rows' messages
    std::vector<std::string> assumptions;           ///< choices the reader made where the format is silent
};

struct Trace {
    std::string path;    ///< the file it came from (or a description of a generated trace)
    std::string format;  ///< reader name, e.g. "csv"
    /// What submit time 0 is in the source's own clock (s; Unix time for wall-clock traces).
    double time_origin = 0;
    /// True when time_origin is a real wall-clock instant (so hours of day mean something).
    bool wall_clock = false;
    std::vector<JobRecord> jobs;
    StringTable strings;
    ReadReport report;
};

}  // namespace dlsim
