#include "sim/event_log.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_out.hpp"

namespace dlsim {

EventLog::EventLog(const std::string& path, const Trace& trace, const Cluster& cluster)
    : file_(std::fopen(path.c_str(), "w")), trace_(trace), cluster_(cluster) {
    if (file_ == nullptr) throw InputError(path + ": cannot write the event log");
}

EventLog::~EventLog() { std::fclose(file_); }

void EventLog::put(const std::string& text) {
    if (holes_.empty())
        std::fputs(text.c_str(), file_);
    else
        held_ += text;
}

void EventLog::line(Time t, const char* what, JobIdx j, const std::string& extra) {
    put(fmt::format("{{\"time\":{},\"event\":\"{}\",\"job_id\":{}{}}}\n", json_out::number(to_seconds(t)), what,
                    json_out::quote(trace_.jobs[j].id), extra));
}

void EventLog::on_preempt(Time t, JobIdx j, const JobInfo&, const Allocation&) {
    std::string text = fmt::format("{{\"time\":{},\"event\":\"preempt\",\"job_id\":{}", json_out::number(to_seconds(t)),
                                   json_out::quote(trace_.jobs[j].id));
    held_ += text;
    holes_.push_back(held_.size());
    held_ += "}\n";
}

void EventLog::on_stop_causes(Time, std::span<const StopNote> causes) {
    if (holes_.empty()) return;
    if (holes_.size() != causes.size())
        throw InternalError(fmt::format("event log: {} preemptions held, {} causes", holes_.size(), causes.size()));
    std::size_t from = 0;
    for (std::size_t i = 0; i < causes.size(); ++i) {
        std::fwrite(held_.data() + from, 1, holes_[i] - from, file_);
        const StopNote& c = causes[i];
        std::string cause = fmt::format(",\"cause\":\"{}\"", stop_cause_name(c.cause));
        if (c.by != kNobody) {
            cause += ",\"by\":" + json_out::quote(trace_.jobs[c.by].id);
            if (c.cause == StopCause::Quota)
                cause += ",\"vc\":" + json_out::quote(trace_.strings[trace_.jobs[c.by].vc]);
        }
        std::fputs(cause.c_str(), file_);
        from = holes_[i];
    }
    std::fwrite(held_.data() + from, 1, held_.size() - from, file_);
    held_.clear();
    holes_.clear();
}

std::string EventLog::reason(JobIdx j, WaitReason r, JobIdx named) const {
    std::string text = fmt::format(",\"reason\":\"{}\"", wait_reason_name(r));
    if (named != kNobody) text += ",\"behind\":" + json_out::quote(trace_.jobs[named].id);
    if (r == WaitReason::Quota && j != kNobody) text += ",\"vc\":" + json_out::quote(trace_.strings[trace_.jobs[j].vc]);
    return text;
}

void EventLog::on_wait(Time t, JobIdx j, const JobInfo&, WaitReason, WaitReason to, JobIdx named, bool rest) {
    if (to == WaitReason::None) return;  // it starts: the start line says so
    line(t, "wait", j, reason(j, to, named) + (rest ? ",\"rest\":true" : ""));
}

void EventLog::on_wait_rest(Time t, WaitReason, WaitReason to, JobIdx named, std::uint64_t) {
    put(fmt::format("{{\"time\":{},\"event\":\"wait_rest\"{}}}\n", json_out::number(to_seconds(t)),
                    reason(kNobody, to, named)));
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
