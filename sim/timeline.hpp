#pragma once
// `--timeline F.json`: the schedule in the Chrome trace-event format (the "Trace Event Format" that
// Perfetto's UI and chrome://tracing open). One process per node, one thread per GPU; an `X` slice per
// stretch of time a job holds that GPU, split where its restart ends; `C` counters of queued jobs and
// busy GPUs by type; `i` instants for arrivals, rejections, preemptions, resizes and migrations; `s`/`f`
// flows from a preemption to the job's next start. Events go to the file as they happen (slices when
// they end); per job only its open slice is kept.
#include "models/cluster.hpp"
#include "sim/gpu_slots.hpp"
#include "sim/observer.hpp"
#include "traces/job_record.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace dlsim {

class Timeline final : public Observer {
public:
    /// Only what happens in [from, to] (µs) is written; slices are clipped to it.
    Timeline(const std::string& path, const Trace& trace, const Cluster& cluster, std::string policy, Time from = 0,
             Time to = kNever);
    ~Timeline() override;
    Timeline(const Timeline&) = delete;
    Timeline& operator=(const Timeline&) = delete;

    void on_arrival(Time t, JobIdx j, const JobInfo& job) override;
    void on_reject(Time t, JobIdx j, const JobInfo& job) override;
    void on_start(Time t, JobIdx j, const JobInfo& job, const Allocation& a) override;
    void on_preempt(Time t, JobIdx j, const JobInfo& job, const Allocation& released) override;
    void on_finish(Time t, JobIdx j, const JobInfo& job, const Allocation& released) override;
    void on_resize(Time t, JobIdx j, const JobInfo& job, const Allocation& from, Time from_since, const Allocation& to,
                   Transition why) override;
    /// Ends the slices still open at `now` (the end of the run) and closes the file.
    void finish(Time now);

private:
    struct Open {
        Time start = 0, restart_end = 0;
        GpuTypeIdx type = 0;
        int gpus = 0;
    };
    void event(const std::string& body);
    void open(Time t, JobIdx j, const JobInfo& job, const Allocation& a);
    /// Writes job j's slices up to t and frees its GPUs.
    void close(Time t, JobIdx j);
    void slice(Time a, Time b, JobIdx j, const GpuSlots::Held& h, const char* state);
    void instant(Time t, const char* what, JobIdx j, const GpuSlots::Held* where);
    void track_name(const GpuSlots::Held& h);
    /// Counters: written once per instant at which they changed, when time moves on.
    void touch(Time t);
    void flush_counters();
    bool in_window(Time t) const { return t >= from_ && t <= to_; }

    std::FILE* file_;
    const Trace& trace_;
    const Cluster& cluster_;
    std::string policy_;
    Time from_, to_;
    GpuSlots slots_;
    std::vector<Open> open_;
    std::vector<std::uint64_t> flow_;  ///< per job: the flow id of its last preemption, 0 = none
    std::uint64_t next_flow_ = 1;
    std::vector<char> packed_named_;  ///< per GPU: its second (packed) layer's track is named
    int queued_ = 0;
    std::vector<int> busy_;
    Time counter_time_ = 0;
    bool dirty_ = false, first_ = true, done_ = false;
};

}  // namespace dlsim
