#pragma once
// Every GPU each job ever held (cluster-wide indices, GpuSlots' numbering), for the Batsim job table's
// allocated_resources. On only when that table is asked for: it keeps a set of GPUs per job.
#include "sim/gpu_slots.hpp"
#include "sim/observer.hpp"

#include <vector>

namespace dlsim {

class HeldGpus final : public Observer {
public:
    HeldGpus(const Cluster& cluster, std::size_t num_jobs) : slots_(cluster, num_jobs), ever_(num_jobs) {}

    void on_start(Time, JobIdx j, const JobInfo&, const Allocation& a) override { take(j, a); }
    void on_preempt(Time, JobIdx j, const JobInfo&, const Allocation&) override { slots_.release(j); }
    void on_finish(Time, JobIdx j, const JobInfo&, const Allocation&) override { slots_.release(j); }
    void on_resize(Time, JobIdx j, const JobInfo&, const Allocation&, Time, const Allocation& to, Transition) override {
        take(j, to);
    }
    /// Per job, ascending, each GPU once.
    std::vector<std::vector<GpuIdx>> take_sets() { return std::move(ever_); }

private:
    void take(JobIdx j, const Allocation& a);
    GpuSlots slots_;
    std::vector<std::vector<GpuIdx>> ever_;
};

/// Batsim's interval-set text: ascending ranges separated by spaces, "0-3 8 10-11" ("" for none).
std::string interval_set(const std::vector<GpuIdx>& sorted);

}  // namespace dlsim
