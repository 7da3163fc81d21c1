#pragma once
// What `dlsim report` reads for one run: the result file's job records, summary and time series, and,
// when given, the run's event log replayed onto numbered GPUs. Everything is kept as columns (one vector
// per field), so a million-job run costs tens of bytes per job, and the page gets them as typed arrays.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace dlsim::report {

using Json = nlohmann::ordered_json;

/// The job records, one entry per job in the result's order. Times in seconds; NaN stands for null.
struct JobColumns {
    std::vector<std::string> ids;
    std::vector<double> submit, start, finish, pending;
    std::vector<std::uint32_t> gpus, preemptions, migrations, resizes;
    std::vector<std::uint8_t> type;   ///< index into ReportData::types; kNoType when it never ran
    std::vector<std::uint8_t> state;  ///< index into kStates
    /// Per job its pending_reasons (CSR: job j owns entries reason_offsets[j] .. reason_offsets[j+1]).
    std::vector<std::uint32_t> reason_offsets{0};
    std::vector<std::uint8_t> reason_name;  ///< index into ReportData::reasons
    std::vector<double> reason_seconds;
    std::size_t size() const { return ids.size(); }
};

inline constexpr std::uint8_t kNoType = 255;
/// A null time or duration in the columns.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr const char* kStates[] = {"pending", "queued", "running", "finished", "rejected"};

/// One Gantt lane: a GPU (node, index within the node, layer 1 for a job packed onto a partner's GPU),
/// or, without an event log, one of the rows a GPU type's job lifetimes are packed into.
struct Lane {
    std::string label;
    std::string type;
};

/// The Gantt's slices, lane by lane, each lane's in time order (CSR by lane); times in seconds from t0.
struct Gantt {
    bool from_event_log = false;
    double t0 = 0;
    std::vector<Lane> lanes;
    std::vector<std::uint32_t> offsets{0};
    std::vector<double> start, end;
    std::vector<std::uint32_t> job;
};

/// What an event-log line says about a job, in the order of the log (CSR by job).
enum class EventKind : std::uint8_t { Arrive, Wait, Start, Preempt, Finish, Migrate, Resize, Rate, Reject, Other };

struct JobEvents {
    std::vector<std::uint32_t> offsets{0};
    std::vector<double> time;
    std::vector<std::uint8_t> kind;
    std::vector<double> number;       ///< rate, or GPUs of a start, move or resize (NaN otherwise)
    std::vector<std::int32_t> ref;    ///< the job it names ("by", "behind", "packed_with"), or -1
    std::vector<std::uint32_t> text;  ///< index into ReportData::strings: where, cause, reason
};

/// `wait_rest` lines: the queue's common reason over time.
struct WaitRest {
    std::vector<double> time;
    std::vector<std::int32_t> ref;
    std::vector<std::uint32_t> text;
};

struct ReportData {
    std::string result_path, event_log_path;
    Json run_id, config, summary, timeseries, run;
    std::vector<std::string> types;    ///< GPU types: the cluster's, in cluster order, then any others met
    std::vector<std::string> reasons;  ///< pending-reason names met, in order of first appearance
    std::vector<std::string> strings;  ///< texts the event columns index
    JobColumns jobs;
    Gantt gantt;
    JobEvents events;
    WaitRest wait_rest;
    std::uint64_t event_lines = 0;
};

/// Reads a result file (checksum, schema, records) without holding its records as JSON: each record
/// becomes columns as it is parsed. Bad input is an InputError naming the file and field.
ReportData read_result(const std::string& path);

/// Replays an event log of the same run onto GPUs (the lowest free GPUs of each node, as the timeline
/// numbers them) and collects each job's lines. Bad input is an InputError naming the file and line.
void read_event_log(const std::string& path, ReportData& data);

/// Without an event log: each job's first start .. finish packed into rows per GPU type (its
/// preemptions are not visible in the records).
void lifetime_gantt(ReportData& data);

}  // namespace dlsim::report
