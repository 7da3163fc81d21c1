#include "sim/event_log.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_out.hpp"

namespace dlsim {

EventLog::EventLog(const std::string& path, const Trace& trace, const Cluster& cluster)
    : file_(std::fopen(path.c_str(), "w")), trace_(trace), cluster_(cluster) {
    if (file_ == nullptr) throw InputError(path + ": cannot write the event log");
}

EventLog::~EventLog() { std::fclose(file_); }

void EventLog::line(Time t, const char* what, JobIdx j, const std::string& extra) {
    fmt::print(file_, "{{\"time\":{},\"event\":\"{}\",\"job_id\":{}{}}}\n", json_out::number(to_seconds(t)), what,
               json_out::quote(trace_.jobs[j].id), extra);
}

std::string EventLog::where(const Allocation& a) const {
    std::string extra = fmt::format(",\"gpu_type\":{},\"gpus\":{},\"nodes\":[",
                                    json_out::quote(cluster_.gpu_types[a.gpu_type].name), a.num_gpus());
    for (std::size_t i = 0; i < a.shares.size(); ++i)
        extra += fmt::format("{}[{},{}]", i ? "," : "", a.shares[i].node, a.shares[i].gpus);
    extra += "]";
    // Space sharing: the job it shares these GPUs with (its trace id).
    if (a.packed()) extra += ",\"packed_with\":" + json_out::quote(trace_.jobs[a.partner].id);
    return extra;
}

std::string EventLog::batch(const JobInfo& job) {
    return job.run_batch_size > 0 ? fmt::format(",\"batch_size\":{}", job.run_batch_size) : std::string();
}

void EventLog::on_rate_change(Time t, JobIdx j, const JobInfo& job) {
    line(t, "rate", j, fmt::format(",\"rate\":{}", json_out::number(job.rate)) + batch(job));
}

}  // namespace dlsim
