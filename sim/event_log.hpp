#pragma once
// `--event-log F`: every start (with its nodes), preemption, finish and rejection as JSON lines,
// for debugging a schedule.
#include "models/cluster.hpp"
#include "sim/observer.hpp"
#include "traces/job_record.hpp"

#include <cstdio>
#include <string>

namespace dlsim {

class EventLog final : public Observer {
public:
    EventLog(const std::string& path, const Trace& trace, const Cluster& cluster);
    ~EventLog() override;
    EventLog(const EventLog&) = delete;
    EventLog& operator=(const EventLog&) = delete;

    void on_reject(Time t, JobIdx j, const JobInfo&) override { line(t, "reject", j, ""); }
    void on_start(Time t, JobIdx j, const JobInfo& job, std::span<const NodeShare> shares) override;
    void on_preempt(Time t, JobIdx j, const JobInfo&) override { line(t, "preempt", j, ""); }
    void on_finish(Time t, JobIdx j, const JobInfo&) override { line(t, "finish", j, ""); }

private:
    void line(Time t, const char* what, JobIdx j, const std::string& extra);
    std::FILE* file_;
    const Trace& trace_;
    const Cluster& cluster_;
};

}  // namespace dlsim
