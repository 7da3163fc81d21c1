#pragma once
// `--event-log F`: every arrival, start, resize and migration (with its nodes), preemption (with its cause),
// finish, rejection, rate change and change of a queued job's wait reason as JSON lines, for debugging a
// schedule (the format: sim/app/README.md, "The event log").
//
// A preemption's cause is settled only once the policy call's actions are all applied (which job took the
// GPUs), so from a preemption to the end of its call the lines are held in memory and written, in order,
// when on_stop_causes gives the causes.
#include "models/cluster.hpp"
#include "sim/observer.hpp"
#include "traces/job_record.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace dlsim {

class EventLog final : public Observer {
public:
    EventLog(const std::string& path, const Trace& trace, const Cluster& cluster);
    ~EventLog() override;
    EventLog(const EventLog&) = delete;
    EventLog& operator=(const EventLog&) = delete;

    void on_arrival(Time t, JobIdx j, const JobInfo& job) override {
        line(t, "arrive", j, fmt::format(",\"gpus\":{}", job.num_gpus));
    }
    void on_reject(Time t, JobIdx j, const JobInfo&) override { line(t, "reject", j, ""); }
    void on_start(Time t, JobIdx j, const JobInfo& job, const Allocation& a) override {
        line(t, "start", j, where(a) + batch(job));
    }
    void on_preempt(Time t, JobIdx j, const JobInfo&, const Allocation&) override;
    void on_finish(Time t, JobIdx j, const JobInfo&, const Allocation&) override { line(t, "finish", j, ""); }
    void on_resize(Time t, JobIdx j, const JobInfo& job, const Allocation&, Time, const Allocation& to,
                   Transition why) override {
        line(t, why == Transition::Migrate ? "migrate" : "resize", j,
             where(to) + batch(job) + (why == Transition::Migrate ? ",\"cause\":\"moved\"" : ",\"cause\":\"resized\""));
    }
    void on_rate_change(Time t, JobIdx j, const JobInfo& job) override;
    void on_stop_causes(Time t, std::span<const StopNote> causes) override;
    void on_wait(Time t, JobIdx j, const JobInfo&, WaitReason from, WaitReason to, JobIdx named, bool rest) override;
    void on_wait_rest(Time t, WaitReason from, WaitReason to, JobIdx named, std::uint64_t jobs) override;

private:
    void line(Time t, const char* what, JobIdx j, const std::string& extra);
    /// Where lines go: the file, or the held text while a call's preemption causes are not settled.
    void put(const std::string& text);
    /// ,"reason":..(,"behind":..|,"vc":..)
    std::string reason(JobIdx j, WaitReason r, JobIdx named) const;
    /// ,"batch_size":M for a job the elastic model runs at batch M (empty otherwise).
    static std::string batch(const JobInfo& job);
    /// ,"gpu_type":..,"gpus":n,"nodes":[[node,gpus],...]
    std::string where(const Allocation& a) const;
    std::FILE* file_;
    std::string held_;                // lines after an unsettled preemption
    std::vector<std::size_t> holes_;  // where in held_ each held preemption's cause goes

    const Trace& trace_;
    const Cluster& cluster_;
};

}  // namespace dlsim
