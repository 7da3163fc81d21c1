#include "sim/simulator.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

namespace dlsim {

namespace {
constexpr std::uint32_t kNotRunning = UINT32_MAX;
}

Simulator::Simulator(const Cluster& cluster, const RateModel& rates, const ResolvedJobs& resolved, Policy& policy,
                     Placer& placer, SimOptions options)
    : cluster_(cluster), rates_(rates), policy_(policy), placer_(placer), options_(options), state_(cluster) {
    const std::size_t n = resolved.jobs.size();
    jobs_.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
        const JobSpec& s = resolved.jobs[j];
        JobInfo& job = jobs_[j];
        job.submit = s.submit;
        job.work = job.remaining = s.work;
        job.model = s.model;
        job.num_gpus = s.num_gpus;
        job.runnable = s.runnable;
    }
    generation_.assign(n, 0);
    gpus_of_.assign(n, ClusterState::kNoGpu);
    running_pos_.assign(n, kNotRunning);
    arrival_order_.resize(n);
    std::iota(arrival_order_.begin(), arrival_order_.end(), JobIdx{0});
    auto by_submit = [&](JobIdx a, JobIdx b) { return jobs_[a].submit < jobs_[b].submit; };
    if (!std::is_sorted(arrival_order_.begin(), arrival_order_.end(), by_submit))  // most traces are
        std::stable_sort(arrival_order_.begin(), arrival_order_.end(), by_submit);
    running_.reserve(cluster.num_gpus());
    queue_.reserve(cluster.num_gpus() + 16);
}

void Simulator::push_next_arrival() {
    // Arrivals enter the heap one at a time, in (submit, trace order): the heap stays as small as the
    // number of running jobs, and seq still orders simultaneous arrivals by trace order.
    if (next_arrival_ < arrival_order_.size()) {
        const JobIdx j = arrival_order_[next_arrival_++];
        queue_.push(jobs_[j].submit, Phase::Arrival, j, 0);
    }
}

SimStats Simulator::run() {
    const auto started = std::chrono::steady_clock::now();
    push_next_arrival();
    while (!queue_.empty()) {
        const Time t = queue_.top().time;
        if (t < now_)
            throw InternalError(fmt::format("time went back from {} us to {} us", now_, t));
        now_ = t;
        if (progress_ && stats_.events >= next_progress_) {
            progress_(now_, finished_count_);
            next_progress_ = stats_.events + 4096;
        }
        arrived_.clear();
        finished_.clear();
        bool timer = false;
        while (!queue_.empty() && queue_.top().time == t) {
            const Event e = queue_.pop();
            switch (e.phase) {
                case Phase::Completion:
                    if (e.generation != generation_[e.job]) continue;  // lazily cancelled
                    complete(e.job);
                    break;
                case Phase::Arrival:
                    arrive(e.job);
                    push_next_arrival();
                    break;
                case Phase::Timer:
                    if (e.generation != timer_generation_) continue;
                    timer = true;
                    break;
                case Phase::Failure:
                    break;
            }
            ++stats_.events;
        }
        if (!arrived_.empty() || !finished_.empty() || timer) {
            decisions_.clear();
            const auto t0 = std::chrono::steady_clock::now();
            policy_.decide(*this, Changes{arrived_, finished_, timer}, decisions_);
            stats_.policy_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            ++stats_.policy_calls;
            for (const Action& a : decisions_.actions) apply(a);
            ++timer_generation_;  // any earlier timer request is superseded by this call's answer
            if (decisions_.next_call != kNever) {
                if (decisions_.next_call <= now_)
                    throw InternalError(fmt::format("policy asked to be called at {} us, not after now ({} us)",
                                                    decisions_.next_call, now_));
                queue_.push(decisions_.next_call, Phase::Timer, 0, timer_generation_);
            }
        }
    }
    audit();
    stats_.engine_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return stats_;
}

void Simulator::arrive(JobIdx j) {
    JobInfo& job = jobs_[j];
    if (job.runnable == 0) {
        job.state = JobState::Rejected;
        for (Observer* o : observers_) o->on_reject(now_, j, job);
        return;
    }
    job.state = JobState::Queued;
    arrived_.push_back(j);
    for (Observer* o : observers_) o->on_arrival(now_, j, job);
}

void Simulator::complete(JobIdx j) {
    JobInfo& job = jobs_[j];
    if (job.state != JobState::Running)
        throw InternalError(fmt::format("completion of job {} which is not running at {} us", j, now_));
    for (Observer* o : observers_) o->on_finish(now_, j, job);
    ++finished_count_;
    release(j);
    job.remaining = 0;
    job.finish = now_;
    job.state = JobState::Finished;
    ++generation_[j];
    finished_.push_back(j);
}

void Simulator::apply(const Action& a) {
    if (a.job >= jobs_.size()) throw InternalError(fmt::format("policy named job {} which does not exist", a.job));
    if (a.kind == Action::Kind::Preempt) preempt(a.job);
    else start(a.job, a.gpu_type, a.num_gpus);
}

void Simulator::start(JobIdx j, GpuTypeIdx t, int n) {
    JobInfo& job = jobs_[j];
    if (job.state != JobState::Queued)
        throw InternalError(fmt::format("policy started job {} which is not queued at {} us", j, now_));
    if (t >= cluster_.gpu_types.size() || !((job.runnable >> t) & 1))
        throw InternalError(fmt::format("policy started job {} on GPU type {} where it cannot run", j, t));
    if (n != job.num_gpus)
        throw InternalError(fmt::format("policy started job {} on {} GPUs; its gang is {}", j, n, job.num_gpus));
    if (state_.free_gpus(t) < n)
        throw InternalError(fmt::format("policy started job {} on {} {} GPUs but only {} are free at {} us", j, n,
                                        cluster_.gpu_types[t].name, state_.free_gpus(t), now_));
    if (!placer_.place(*this, t, n, shares_))
        throw InternalError(fmt::format("placer could not place job {} ({} x {}) with {} free", j, n,
                                        cluster_.gpu_types[t].name, state_.free_gpus(t)));
    int placed = 0;
    GpuIdx head = ClusterState::kNoGpu;
    for (const NodeShare& s : shares_) {
        if (s.node >= cluster_.nodes.size() || cluster_.nodes[s.node].gpu_type != t)
            throw InternalError(fmt::format("placer put job {} on node {} of the wrong type", j, s.node));
        state_.allocate(s.node, s.gpus, j, head);
        placed += s.gpus;
    }
    if (placed != n) throw InternalError(fmt::format("placer gave job {} {} GPUs instead of {}", j, placed, n));
    gpus_of_[j] = head;

    const Time delay = job.preemptions > 0 ? options_.restart_cost : 0;
    job.state = JobState::Running;
    job.gpu_type = t;
    job.alloc_gpus = n;
    job.rate = rates_.rate(job.model, t, n);
    job.stint_start = now_;
    job.progress_from = now_ + delay;
    if (job.first_start == kNever) job.first_start = now_;
    // Engine time ends at 2^63 µs (about 292,000 years); a schedule that runs past it is bad input
    // (absurd durations, work or throughputs), not a reason to wrap around.
    const double run_us = std::round(job.remaining / job.rate * kMicrosPerSecond);
    if (!(run_us < static_cast<double>(kNever / 2 - job.progress_from)))
        throw TimeOverflow{j, to_seconds(job.progress_from) + run_us / kMicrosPerSecond};
    job.finish = job.progress_from + static_cast<Time>(run_us);
    queue_.push(job.finish, Phase::Completion, j, ++generation_[j]);
    running_pos_[j] = static_cast<std::uint32_t>(running_.size());
    running_.push_back(j);
    for (Observer* o : observers_) o->on_start(now_, j, job, shares_);
}

void Simulator::preempt(JobIdx j) {
    JobInfo& job = jobs_[j];
    if (job.state != JobState::Running)
        throw InternalError(fmt::format("policy preempted job {} which is not running at {} us", j, now_));
    for (Observer* o : observers_) o->on_preempt(now_, j, job);
    job.remaining = job.remaining_at(now_);
    release(j);
    job.state = JobState::Queued;
    job.finish = kNever;
    ++job.preemptions;
    ++generation_[j];
}

void Simulator::release(JobIdx j) {
    JobInfo& job = jobs_[j];
    const int freed = state_.release(gpus_of_[j], j);
    if (freed != job.alloc_gpus)
        throw InternalError(fmt::format("job {} held {} GPUs, expected {}", j, freed, job.alloc_gpus));
    gpus_of_[j] = ClusterState::kNoGpu;
    job.attained += now_ - job.stint_start;
    job.alloc_gpus = 0;
    job.rate = 0;
    // Swap-remove from the running list.
    const std::uint32_t pos = running_pos_[j];
    running_[pos] = running_.back();
    running_pos_[running_[pos]] = pos;
    running_.pop_back();
    running_pos_[j] = kNotRunning;
}

void Simulator::audit() const {
    std::size_t stuck = 0;
    JobIdx example = 0;
    for (JobIdx j = 0; j < jobs_.size(); ++j) {
        const auto s = jobs_[j].state;
        if (s != JobState::Finished && s != JobState::Rejected) {
            if (stuck++ == 0) example = j;
        }
    }
    if (stuck != 0)
        throw InternalError(fmt::format("end of run at {} us with {} jobs neither finished nor rejected (e.g. job {}): "
                                        "the policy left work queued with nothing left to happen",
                                        now_, stuck, example));
    if (state_.held() != 0 || !running_.empty())
        throw InternalError(fmt::format("end of run with {} GPUs still held", state_.held()));
}

}  // namespace dlsim
