#pragma once
// `--event-log F`: every start, resize and migration (with its nodes), preemption, finish, rejection and
// rate change as JSON lines,
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
    void on_start(Time t, JobIdx j, const JobInfo& job, const Allocation& a) override {
        line(t, "start", j, where(a) + batch(job));
    }
    void on_preempt(Time t, JobIdx j, const JobInfo&, const Allocation&) override { line(t, "preempt", j, ""); }
    void on_finish(Time t, JobIdx j, const JobInfo&, const Allocation&) override { line(t, "finish", j, ""); }
    void on_resize(Time t, JobIdx j, const JobInfo& job, const Allocation&, Time, const Allocation& to,
                   Transition why) override {
        line(t, why == Transition::Migrate ? "migrate" : "resize", j, where(to) + batch(job));
    }
    void on_rate_change(Time t, JobIdx j, const JobInfo& job) override;

private:
    void line(Time t, const char* what, JobIdx j, const std::string& extra);
    /// ,"batch_size":M for a job the elastic model runs at batch M (empty otherwise).
    static std::string batch(const JobInfo& job);
    /// ,"gpu_type":..,"gpus":n,"nodes":[[node,gpus],...]
    std::string where(const Allocation& a) const;
    std::FILE* file_;
    const Trace& trace_;
    const Cluster& cluster_;
};

}  // namespace dlsim
