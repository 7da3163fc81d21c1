#include "sim/simulator.hpp"

#include "models/base/input_error.hpp"
#include "policies/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

namespace dlsim {

namespace {
constexpr std::uint32_t kNotRunning = UINT32_MAX;
const Allocation kNoAllocation{};
}  // namespace

Simulator::Simulator(const Cluster& cluster, const RateModel& rates, const ResolvedJobs& resolved, Policy& policy,
                     Placer& placer, SimOptions options)
    : cluster_(cluster),
      rates_(rates),
      policy_(policy),
      placer_(placer),
      action_placer_(&placer),
      own_performance_(options.performance ? nullptr : std::make_unique<IsolatedPerformance>(rates)),
      own_restart_(options.restart ? nullptr : std::make_unique<FixedRestart>(options.restart_cost)),
      performance_(options.performance ? *options.performance : *own_performance_, rates, resolved.jobs.size()),
      restart_(options.restart ? *options.restart : *own_restart_),
      elastic_(options.elastic),
      state_(cluster),
      waits_(resolved.jobs.size(), observers_) {
    const std::size_t n = resolved.jobs.size();
    jobs_.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
        const JobSpec& s = resolved.jobs[j];
        JobInfo& job = jobs_[j];
        job.submit = s.submit;
        job.work = job.remaining = s.work;
        job.model = s.model;
        job.num_gpus = s.num_gpus;
        job.min_gpus = s.min_gpus;
        job.max_gpus = s.max_gpus;
        job.runnable = s.runnable;
        job.user = s.user;
        job.vc = s.vc;
        job.weight = s.weight;
        job.batch_size = s.batch_size;
    }
    generation_.assign(n, 0);
    rerate_below_.assign(n, -1);
    performance_.bind(*this);
    gpus_of_.assign(n, ClusterState::kNoGpu);
    packed_since_.assign(n, 0);
    running_pos_.assign(n, kNotRunning);
    arrival_order_.resize(n);
    std::iota(arrival_order_.begin(), arrival_order_.end(), JobIdx{0});
    auto by_submit = [&](JobIdx a, JobIdx b) { return jobs_[a].submit < jobs_[b].submit; };
    if (!std::is_sorted(arrival_order_.begin(), arrival_order_.end(), by_submit))  // most traces are
        std::stable_sort(arrival_order_.begin(), arrival_order_.end(), by_submit);
    running_.reserve(cluster.num_gpus());
    queue_.reserve(cluster.num_gpus() + 16);
}

const Allocation& Simulator::allocation(JobIdx j) const {
    return running_pos_[j] == kNotRunning ? kNoAllocation : allocs_[running_pos_[j]];
}

void Simulator::push_next_arrival() {
    // Arrivals enter the heap one at a time, in (submit, trace order): the heap stays as small as the
    // number of running jobs, and seq still orders simultaneous arrivals by trace order.
    if (next_arrival_ < arrival_order_.size()) {
        const JobIdx j = arrival_order_[next_arrival_++];
        queue_.push(jobs_[j].submit, Phase::Arrival, j, 0);
    }
}

void Simulator::stop_when_finished(std::vector<char> wait_for) {
    if (wait_for.size() != jobs_.size())
        throw InternalError(fmt::format("stop_when_finished: {} flags for {} jobs", wait_for.size(), jobs_.size()));
    waiting_for_ = static_cast<std::uint64_t>(std::count(wait_for.begin(), wait_for.end(), 1));
    wait_for_ = waiting_for_ ? std::move(wait_for) : std::vector<char>();
}

SimStats Simulator::run() {
    const auto started = std::chrono::steady_clock::now();
    push_next_arrival();
    const bool stop_armed = !wait_for_.empty();
    while (!queue_.empty()) {
        const Time t = queue_.top().time;
        if (t < now_) throw InternalError(fmt::format("time went back from {} us to {} us", now_, t));
        now_ = t;
        stopped_now_.clear();
        if (progress_ && stats_.events >= next_progress_) {
            progress_(now_, finished_count_);
            next_progress_ = stats_.events + 4096;
        }
        bool timer = false;
        while (!queue_.empty() && queue_.top().time == t) {
            const Event e = queue_.pop();
            switch (e.phase) {
                case Phase::Completion:
                    if (e.generation != generation_[e.job]) continue;  // lazily cancelled
                    complete(e.job);
                    break;
                case Phase::Rerate:
                    if (e.generation != generation_[e.job]) continue;  // lazily cancelled
                    progressed(e.job);
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
        if (stop_armed && waiting_for_ == 0) {
            // Every job waited for has finished: the run ends here, the others left as they are.
            stats_.stopped_early = std::any_of(jobs_.begin(), jobs_.end(), [](const JobInfo& j) {
                return j.state != JobState::Finished && j.state != JobState::Rejected;
            });
            break;
        }
        if (!arrived_.empty() || !finished_.empty() || timer || !requeued_.empty() || !declined_.empty()) {
            // At most one more call at the same instant, for what it asked that was declined or requeued;
            // what is declined again then waits for the next call.
            if (call_policy(timer)) call_policy(false);
        }
    }
    if (!stats_.stopped_early) audit();
    stats_.engine_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return stats_;
}

bool Simulator::call_policy(bool timer) {
    decisions_.clear();
    const auto t0 = std::chrono::steady_clock::now();
    policy_.decide(*this, Changes{arrived_, finished_, timer, requeued_, declined_}, decisions_);
    const double call_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    stats_.policy_seconds += call_seconds;
    stats_.policy_call_time.add(call_seconds);
    ++stats_.policy_calls;
    arrived_.clear();
    finished_.clear();
    requeued_.clear();
    declined_.clear();
    for (const Action& a : decisions_.actions) apply(a, decisions_.placement(a));
    if (!stops_.empty()) settle_stops();
    const JobIdx unqueued = waits_.settle(*this, decisions_, declined_);
    if (unqueued != kNobody) {
        acting_job_ = unqueued;
        invalid(
            fmt::format("gave a wait reason for job {}, which is neither queued nor started by this answer, or "
                        "named a reason or a job that does not exist",
                        unqueued));
    }
    ++timer_generation_;  // any earlier timer request is superseded by this call's answer
    if (decisions_.next_call != kNever) {
        if (decisions_.next_call <= now_)
            invalid_answer(fmt::format("asked to be called at {} us, not after now", decisions_.next_call));
        queue_.push(decisions_.next_call, Phase::Timer, 0, timer_generation_);
    }
    return !requeued_.empty() || !declined_.empty();
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
    waits_.queued(j);
    for (Observer* o : observers_) o->on_arrival(now_, j, job);
}

void Simulator::complete(JobIdx j) {
    JobInfo& job = jobs_[j];
    if (job.state != JobState::Running)
        throw InternalError(fmt::format("completion of job {} which is not running at {} us", j, now_));
    ++finished_count_;
    if (!wait_for_.empty() && wait_for_[j]) --waiting_for_;
    reallocate(j, nullptr, Transition::Finish);
    finished_.push_back(j);
}

void Simulator::invalid(const std::string& what) const {
    throw InvalidDecision(fmt::format("invalid decision: policy {} at {} us", what, now_), acting_job_);
}

void Simulator::invalid_answer(const std::string& what) const {
    throw InvalidDecision(fmt::format("invalid decision: policy {} at {} us", what, now_), InvalidDecision::kNoJob);
}

Placer& Simulator::placer_for(PlacerChoice choice) {
    const auto i = static_cast<std::size_t>(choice);
    if (choice == PlacerChoice::Run || i >= std::size(kPlacerChoiceNames)) return placer_;
    if (!preferred_[i]) {
        const auto& entry = builtin_placers().find(kPlacerChoiceNames[i]);
        preferred_[i] = entry.make(resolve_params(kPlacerChoiceNames[i], entry.params, {}), {});
    }
    return *preferred_[i];
}

void Simulator::apply(const Action& a, std::span<const NodeShare> placement) {
    acting_job_ = a.job;
    if (a.job >= jobs_.size()) invalid(fmt::format("named job {} which does not exist", a.job));
    action_placer_ = &placer_for(a.placer);
    switch (a.kind) {
        case Action::Kind::Start:
            start(a.job, a.gpu_type, a.num_gpus, placement);
            break;
        case Action::Kind::Preempt:
            if (jobs_[a.job].state != JobState::Running)
                invalid(fmt::format("preempted job {} which is not running", a.job));
            // The engine's own facts (a move, a move with no place) are not the policy's to state.
            if (a.cause == StopCause::Moved || a.cause == StopCause::NoPlace || a.cause > StopCause::Policy)
                invalid(fmt::format("preempted job {} for cause {}, which only the engine gives", a.job,
                                    a.cause > StopCause::Policy ? std::to_string(static_cast<int>(a.cause))
                                                                : std::string(stop_cause_name(a.cause))));
            if ((a.cause == StopCause::Displaced || a.cause == StopCause::Quota) && a.partner >= jobs_.size())
                invalid(fmt::format("preempted job {} for cause {} naming job {}, which does not exist", a.job,
                                    stop_cause_name(a.cause), a.partner));
            note_stop(a.job, a.cause, a.partner);
            reallocate(a.job, nullptr, Transition::Preempt);
            break;
        case Action::Kind::Resize:
            resize(a.job, a.num_gpus, placement);
            break;
        case Action::Kind::Migrate:
            migrate(a.job, a.gpu_type, placement);
            break;
        case Action::Kind::Pack:
            pack(a.job, a.partner);
            break;
    }
}

void Simulator::note_stop(JobIdx j, StopCause cause, JobIdx by) {
    stops_.push_back({j, cause, by});
    stop_gpus_at_.push_back(static_cast<std::uint32_t>(stop_gpus_.size()));
    if (cause == StopCause::Unstated) state_.append_chain(gpus_of_[j], j, stop_gpus_);
}

void Simulator::settle_stops() {
    stop_gpus_at_.push_back(static_cast<std::uint32_t>(stop_gpus_.size()));
    for (std::size_t i = 0; i < stops_.size(); ++i) {
        StopNote& s = stops_[i];
        if (jobs_[s.job].state == JobState::Running) {  // a fact: it runs again, whatever the policy said
            s.cause = StopCause::Moved;
            s.by = kNobody;
            continue;
        }
        if (s.cause != StopCause::Unstated) continue;
        // Displaced: by a job that got some of these GPUs at this instant (not a partner that kept them).
        s.cause = StopCause::Policy;
        for (std::uint32_t k = stop_gpus_at_[i]; k < stop_gpus_at_[i + 1]; ++k) {
            const JobIdx taker = state_.owner(stop_gpus_[k]);
            if (taker != ClusterState::kFree && taker != s.job && jobs_[taker].stint_start == now_) {
                s.cause = StopCause::Displaced;
                s.by = taker;
                break;
            }
        }
    }
    for (Observer* o : observers_) o->on_stop_causes(now_, stops_);
    stops_.clear();
    stop_gpus_at_.clear();
    stop_gpus_.clear();
}

bool Simulator::place(JobIdx j, GpuTypeIdx t, int n, std::span<const NodeShare> placement, const char* action) {
    const JobInfo& job = jobs_[j];
    if (t >= cluster_.gpu_types.size() || !((job.runnable >> t) & 1))
        invalid(fmt::format("{} job {} on GPU type {} where it cannot run", action, j, t));
    if (state_.free_gpus(t) < n)
        invalid(fmt::format("{} job {} on {} {} GPUs but only {} are free", action, j, n, cluster_.gpu_types[t].name,
                            state_.free_gpus(t)));
    scratch_.clear();
    scratch_.gpu_type = t;
    if (placement.empty()) {
        if (!action_placer_->place_job(*this, j, t, n, scratch_.shares)) return false;
    } else {
        scratch_.shares.assign(placement.begin(), placement.end());
    }
    // A policy's explicit placement is checked share by share; the placer's answer by node type and
    // total (ClusterState::allocate refuses GPUs that are not free).
    const bool explicit_placement = !placement.empty();
    int placed = 0;
    for (std::size_t i = 0; i < scratch_.shares.size(); ++i) {
        const NodeShare& s = scratch_.shares[i];
        if (s.node >= cluster_.nodes.size() || cluster_.nodes[s.node].gpu_type != t)
            invalid(fmt::format("{} job {} on node {}, which has no {} GPUs", action, j, s.node,
                                cluster_.gpu_types[t].name));
        if (s.milli != kWholeGpu)
            invalid(
                fmt::format("{} job {} on a {}/1000 share of GPUs: only whole GPUs are supported", action, j, s.milli));
        placed += s.gpus;
        if (!explicit_placement) continue;
        if (s.gpus < 1 || s.gpus > state_.free_on(s.node))
            invalid(fmt::format("{} job {} on {} GPUs of node {}, which has {} free", action, j, s.gpus, s.node,
                                state_.free_on(s.node)));
        for (std::size_t k = 0; k < i; ++k)
            if (scratch_.shares[k].node == s.node)
                invalid(fmt::format("{} job {} on node {} twice", action, j, s.node));
    }
    if (placed != n) invalid(fmt::format("{} job {} on a placement of {} GPUs instead of {}", action, j, placed, n));
    return true;
}

void Simulator::start(JobIdx j, GpuTypeIdx t, int n, std::span<const NodeShare> placement) {
    const JobInfo& job = jobs_[j];
    if (job.state != JobState::Queued) invalid(fmt::format("started job {} which is not queued", j));
    if (n < job.min_gpus || n > job.max_gpus)
        invalid(job.min_gpus == job.max_gpus
                    ? fmt::format("started job {} on {} GPUs; its gang is {}", j, n, job.num_gpus)
                    : fmt::format("started job {} on {} GPUs; it runs on {} to {}", j, n, job.min_gpus, job.max_gpus));
    if (!place(j, t, n, placement, "started")) {
        declined_.push_back(j);  // fragmentation: the job stays queued, the policy hears of it
        return;
    }
    reallocate(j, &scratch_, Transition::Start);
}

void Simulator::pack(JobIdx j, JobIdx p) {
    const JobInfo& job = jobs_[j];
    if (job.state != JobState::Queued) invalid(fmt::format("packed job {} which is not queued", j));
    if (p >= jobs_.size() || jobs_[p].state != JobState::Running)
        invalid(fmt::format("packed job {} with job {}, which is not running", j, p));
    const JobInfo& host = jobs_[p];
    const Allocation& held = allocs_[running_pos_[p]];
    if (held.packed())
        invalid(fmt::format("packed job {} with job {}, which is packed with job {} already", j, p, held.partner));
    if (job.min_gpus != job.max_gpus || host.min_gpus != host.max_gpus)
        invalid(fmt::format("packed job {} with job {}: only rigid jobs are packed", j, p));
    if (job.num_gpus != host.alloc_gpus)
        invalid(
            fmt::format("packed job {} ({} GPUs) with job {}, which holds {}", j, job.num_gpus, p, host.alloc_gpus));
    const GpuTypeIdx t = host.gpu_type;
    if (!((job.runnable >> t) & 1))
        invalid(
            fmt::format("packed job {} with job {} on {} GPUs, where it cannot run", j, p, cluster_.gpu_types[t].name));
    if (!PackedPerformance::factors(rates_, job.model, host.model, t))
        invalid(
            fmt::format("packed job {} with job {} on {}: the profile has no pair throughput for their models "
                        "there",
                        j, p, cluster_.gpu_types[t].name));
    // Both hold the same GPUs at half share, each naming the other.
    scratch_.clear();
    scratch_.gpu_type = t;
    scratch_.shares.assign(held.shares.begin(), held.shares.end());
    for (NodeShare& s : scratch_.shares) s.milli = kHalfGpu;
    scratch_.partner = p;
    Allocation& host_alloc = allocs_[running_pos_[p]];
    for (NodeShare& s : host_alloc.shares) s.milli = kHalfGpu;
    host_alloc.partner = j;
    packed_since_[j] = packed_since_[p] = now_;
    reallocate(j, &scratch_, Transition::Start);
}

void Simulator::unpack(JobIdx j, JobIdx p) {
    const Time together = now_ - packed_since_[j];
    jobs_[j].packed_time += together;
    jobs_[p].packed_time += together;
    Allocation& other = allocs_[running_pos_[p]];
    if (other.partner != j)
        throw InternalError(
            fmt::format("job {} leaves job {}, which is not packed with it (partner {})", j, p, other.partner));
    for (NodeShare& s : other.shares) s.milli = kWholeGpu;
    other.partner = kNoPartner;
}

int Simulator::return_gpus(JobIdx j) {
    const int freed = state_.release(gpus_of_[j], j);
    gpus_of_[j] = ClusterState::kNoGpu;
    return freed;
}

void Simulator::take_gpus(JobIdx j, const Allocation& a) {
    GpuIdx head = ClusterState::kNoGpu;
    if (a.packed())
        state_.share(gpus_of_[a.partner], a.partner, j, head);
    else
        for (const NodeShare& s : a.shares) state_.allocate(s.node, s.gpus, j, head);
    gpus_of_[j] = head;
}

void Simulator::resize(JobIdx j, int n, std::span<const NodeShare> placement) {
    const JobInfo& job = jobs_[j];
    if (job.state != JobState::Running) invalid(fmt::format("resized job {} which is not running", j));
    if (job.min_gpus == job.max_gpus)
        invalid(fmt::format("resized job {}, which is rigid (no min_num_gpus/max_num_gpus)", j));
    if (n < job.min_gpus || n > job.max_gpus)
        invalid(fmt::format("resized job {} to {} GPUs; it runs on {} to {}", j, n, job.min_gpus, job.max_gpus));
    if (n == job.alloc_gpus) return;  // nothing to change
    // Its own GPUs count as free while the new place is found; they are taken back before the transition.
    return_gpus(j);
    const bool fits = place(j, job.gpu_type, n, placement, "resized");
    take_gpus(j, allocs_[running_pos_[j]]);
    if (!fits) {
        declined_.push_back(j);  // it keeps running as it was
        return;
    }
    reallocate(j, &scratch_, Transition::Resize);
}

void Simulator::migrate(JobIdx j, GpuTypeIdx t, std::span<const NodeShare> placement) {
    const JobInfo& job = jobs_[j];
    if (job.state != JobState::Running) invalid(fmt::format("migrated job {} which is not running", j));
    if (!placement.empty() && allocation(j).same_place(t, placement)) return;  // already there
    return_gpus(j);
    const bool fits = place(j, t, job.alloc_gpus, placement, "migrated");
    take_gpus(j, allocs_[running_pos_[j]]);
    if (!fits) {  // nowhere to go: it goes back to the queue
        note_stop(j, StopCause::NoPlace, kNobody);
        reallocate(j, nullptr, Transition::Preempt);
        requeued_.push_back(j);
        return;
    }
    reallocate(j, &scratch_, Transition::Migrate);
}

void Simulator::reallocate(JobIdx j, Allocation* to, Transition why) {
    JobInfo& job = jobs_[j];
    const bool was_running = job.state == JobState::Running;
    const Time from_since = job.stint_start;
    // allocs_[p] belongs to running_[p]. `to` is the scratch allocation: the two swap, so the job's
    // slot gets the new shares, the scratch keeps what it held (`from`, for the models and observers),
    // and no storage is allocated once the slots have grown to the peak number of running jobs.
    Allocation* from = nullptr;

    // Progress up to date, then the old GPUs back to the pool.
    if (was_running) {
        job.remaining = job.remaining_at(now_);
        const int freed = return_gpus(j);
        if (freed != job.alloc_gpus)
            throw InternalError(fmt::format("job {} held {} GPUs, expected {}", j, freed, job.alloc_gpus));
        job.attained += now_ - job.stint_start;
        if (now_ < job.progress_from) {  // a restart cut short: only the part spent is lost
            const Time unspent = job.progress_from - now_;
            job.restart_time -= unspent;
            job.restart_gpu_seconds -= to_seconds(unspent) * job.alloc_gpus;
        }
        const Allocation& before = allocs_[running_pos_[j]];
        if (before.packed()) unpack(j, before.partner);  // (its own allocation says packed until the observers)
        performance_.released(now_, j, before, rate_changes_);
    }
    ++generation_[j];  // its pending completion, if any, is stale from here on

    if (to != nullptr) {
        if (!was_running) {
            waits_.started(now_, j, job);
            running_pos_[j] = static_cast<std::uint32_t>(running_.size());
            running_.push_back(j);
            if (allocs_.size() < running_.size()) allocs_.emplace_back();
        }
        Allocation& a = allocs_[running_pos_[j]];
        std::swap(a, *to);
        if (was_running) from = to;
        take_gpus(j, a);
        // It lost its GPUs earlier at this same instant: a move.
        const bool restarted_now =
            !was_running && std::find(stopped_now_.begin(), stopped_now_.end(), j) != stopped_now_.end();
        const Time delay = restart_.cost(
            {j, job.model, from, a, job.first_start != kNever, restarted_now || why == Transition::Migrate});
        if (delay > 0) {
            ++job.restarts;
            job.restart_time += delay;
            job.restart_gpu_seconds += to_seconds(delay) * a.num_gpus();
            if (why == Transition::Resize) job.resize_gpu_seconds += to_seconds(delay) * a.num_gpus();
        }
        if (restarted_now) ++job.migrations;
        if (why == Transition::Migrate) {
            ++job.preemptions;
            ++job.migrations;
        }
        if (why == Transition::Resize) ++job.resizes;
        job.state = JobState::Running;
        job.gpu_type = a.gpu_type;
        job.alloc_gpus = a.num_gpus();
        job.stint_start = now_;
        job.progress_from = now_ + delay;
        job.rate = 0;
        if (job.first_start == kNever) job.first_start = now_;
        performance_.allocated(now_, j, job.model, a, rate_changes_);
    } else {
        // Swap-remove from the running list (and its allocation with it, into the scratch).
        const std::uint32_t pos = running_pos_[j];
        const std::uint32_t last = static_cast<std::uint32_t>(running_.size() - 1);
        std::swap(scratch_, allocs_[pos]);
        from = &scratch_;
        if (pos != last) {
            std::swap(allocs_[pos], allocs_[last]);
            running_[pos] = running_[last];
            running_pos_[running_[pos]] = pos;
        }
        running_.pop_back();
        running_pos_[j] = kNotRunning;
        job.alloc_gpus = 0;
        job.rate = 0;
        job.run_batch_size = 0;
        if (why == Transition::Finish) {
            job.remaining = 0;
            job.finish = now_;
            job.state = JobState::Finished;
        } else {
            job.finish = kNever;
            job.state = JobState::Queued;
            ++job.preemptions;
            stopped_now_.push_back(j);
            waits_.queued(j);
        }
    }

    for (const RateChange& c : rate_changes_) rerate(c.job, c.rate, c.batch_size);

    const Allocation& held = allocation(j);
    for (Observer* o : observers_) {
        switch (why) {
            case Transition::Start:
                o->on_start(now_, j, job, held);
                break;
            case Transition::Preempt:
                o->on_preempt(now_, j, job, *from);
                break;
            case Transition::Finish:
                o->on_finish(now_, j, job, *from);
                break;
            case Transition::Resize:
            case Transition::Migrate:
                o->on_resize(now_, j, job, *from, from_since, held, why);
                break;
        }
        if (rate_changes_.size() > 1 || (rate_changes_.size() == 1 && rate_changes_[0].job != j))
            for (const RateChange& c : rate_changes_)
                if (c.job != j) o->on_rate_change(now_, c.job, jobs_[c.job]);
    }
    rate_changes_.clear();
}

void Simulator::progressed(JobIdx j) {
    JobInfo& job = jobs_[j];
    if (job.state != JobState::Running)
        throw InternalError(fmt::format("progress re-rate of job {} which is not running at {} us", j, now_));
    if (now_ > job.progress_from) {
        // At a threshold, exactly the threshold (the event's time is rounded up to the next microsecond),
        // so that the model sees the boundary crossed.
        job.remaining = rerate_below_[j] > 0 ? rerate_below_[j] : job.remaining_at(now_);
        job.progress_from = now_;
    }
    performance_.progressed(now_, j, rate_changes_);
    apply_rate_changes(kNoPartner);
}

void Simulator::apply_rate_changes(JobIdx except) {
    for (const RateChange& c : rate_changes_) rerate(c.job, c.rate, c.batch_size);
    for (Observer* o : observers_)
        for (const RateChange& c : rate_changes_)
            if (c.job != except) o->on_rate_change(now_, c.job, jobs_[c.job]);
    rate_changes_.clear();
}

void Simulator::rerate(JobIdx j, double rate, int batch_size) {
    JobInfo& job = jobs_[j];
    if (job.state != JobState::Running)
        throw InternalError(fmt::format("performance model re-rated job {}, which is not running", j));
    if (!(rate >= 0) || !std::isfinite(rate))
        throw InternalError(fmt::format("performance model gave job {} the rate {}", j, rate));
    if (now_ > job.progress_from) {  // (a job still paying its restart makes no progress before it ends)
        job.remaining = job.remaining_at(now_);
        job.progress_from = now_;
    }
    job.rate = rate;
    job.run_batch_size = batch_size;
    ++generation_[j];
    rerate_below_[j] = -1;
    if (rate == 0) {
        job.finish = kNever;
        return;
    }
    // Engine time ends at 2^63 µs (about 292,000 years); a schedule that runs past it is bad input
    // (absurd durations, work or throughputs), not a reason to wrap around.
    const double run_us = std::round(job.remaining / job.rate * kMicrosPerSecond);
    if (!(run_us < static_cast<double>(kNever / 2 - job.progress_from)))
        throw TimeOverflow{j, to_seconds(job.progress_from) + run_us / kMicrosPerSecond};
    job.finish = job.progress_from + static_cast<Time>(run_us);
    queue_.push(job.finish, Phase::Completion, j, generation_[j]);

    // A progress-driven re-rate before the finish: at the first microsecond the threshold is reached.
    const RerateWhen when = performance_.rerate_when(j);
    Time at = when.at > now_ ? when.at : kNever;
    if (when.remaining > 0 && when.remaining < job.remaining) {
        const double to_threshold = std::ceil((job.remaining - when.remaining) / job.rate * kMicrosPerSecond);
        if (to_threshold < static_cast<double>(job.finish - job.progress_from) &&
            job.progress_from + static_cast<Time>(to_threshold) <= at) {
            at = job.progress_from + static_cast<Time>(to_threshold);
            rerate_below_[j] = when.remaining;
        }
    }
    if (at < job.finish) queue_.push(at, Phase::Rerate, j, generation_[j]);
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
    // Named by its example job, so that a policy written outside dlsim hears of it as its own error (exit 2).
    if (stuck != 0)
        throw InvalidDecision(
            fmt::format("end of run at {} us with {} jobs neither finished nor rejected (e.g. job {}): "
                        "the policy left work queued with nothing left to happen",
                        now_, stuck, example),
            example);
    if (state_.held() != 0 || !running_.empty())
        throw InternalError(fmt::format("end of run with {} GPUs still held", state_.held()));
}

}  // namespace dlsim
