// The metrics observer (sim/metrics.hpp): numpy's percentile, the time series' bucket means and the run's
// summary, on runs driven by hand whose values are worked out exactly.
#include "models/cluster.hpp"
#include "policies/cluster_view.hpp"
#include "sim/metrics.hpp"
#include "tests/support/engine_support.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <vector>

using namespace dlsim;

namespace dlsim::test::metrics_tests {

TEST_CASE("percentile: numpy linear interpolation", "[unit]") {
    const std::vector<double> v{1, 2, 3, 4};
    // position = q/100 * (n - 1): p50 -> 1.5, p95 -> 2.85, p99 -> 2.97.
    CHECK(percentile(v, 50) == Approx(2.5).margin(1e-12));
    CHECK(percentile(v, 95) == Approx(3.85).margin(1e-12));
    CHECK(percentile(v, 99) == Approx(3.97).margin(1e-12));
    CHECK(percentile(v, 0) == 1.0);
    CHECK(percentile(v, 100) == 4.0);
    CHECK(percentile(v, 25) == Approx(1.75).margin(1e-12));  // position 0.75

    const std::vector<double> one{7};
    CHECK(percentile(one, 0) == 7.0);
    CHECK(percentile(one, 50) == 7.0);
    CHECK(percentile(one, 99) == 7.0);
    CHECK(percentile(one, 100) == 7.0);

    // numpy.percentile([10, 20, 40, 80, 160], [50, 90]) = [40, 128]: positions 2 and 3.6.
    const std::vector<double> five{10, 20, 40, 80, 160};
    CHECK(percentile(five, 50) == Approx(40).margin(1e-12));
    CHECK(percentile(five, 90) == Approx(128).margin(1e-12));
}

namespace {
/// Two types: "a" on node 0 (4 GPUs), "b" on node 1 (4 GPUs).
const char* kTwoTypes =
    R"({"gpu_types": {"a": {}, "b": {}},
        "node_types": {"na": {"gpu_type": "a", "gpus": 4}, "nb": {"gpu_type": "b", "gpus": 4}},
        "racks": [{"node_type": "na", "nodes": 1}, {"node_type": "nb", "nodes": 1}]})";

Time sec(double s) { return to_time(s); }

/// Drives a Metrics observer the way the engine does, keeping the JobInfo records up to date.
struct MetricsDriver {
    MetricsDriver(const Cluster& c, std::size_t num_jobs, Time origin, std::size_t points)
        : m(c, num_jobs, origin, points), jobs(num_jobs), held(num_jobs) {}

    void arrive(Time t, JobIdx j) {
        this->jobs[j].submit = t;
        this->jobs[j].state = JobState::Queued;
        m.on_arrival(t, j, this->jobs[j]);
    }
    void start(Time t, JobIdx j, GpuTypeIdx type, int gpus) {
        JobInfo& x = this->jobs[j];
        if (x.first_start == kNever) x.first_start = t;
        x.state = JobState::Running;
        x.stint_start = t;
        x.gpu_type = type;
        x.alloc_gpus = gpus;
        held[j] = Allocation{type, {{0, gpus}}};
        m.on_start(t, j, x, held[j]);
    }
    void preempt(Time t, JobIdx j) {
        m.on_preempt(t, j, this->jobs[j], held[j]);
        this->jobs[j].attained += t - this->jobs[j].stint_start;
        this->jobs[j].state = JobState::Queued;
        this->jobs[j].alloc_gpus = 0;
        ++this->jobs[j].preemptions;
    }
    void finish(Time t, JobIdx j) {
        m.on_finish(t, j, this->jobs[j], held[j]);
        this->jobs[j].attained += t - this->jobs[j].stint_start;
        this->jobs[j].state = JobState::Finished;
        this->jobs[j].finish = t;
        this->jobs[j].alloc_gpus = 0;
    }

    Metrics m;
    std::vector<JobInfo> jobs;
    std::vector<Allocation> held;  // what each job holds (the engine's allocations)
};

/// The time unit of the hand-made run: 2^20 µs, so that the power-of-two bucket widths of
/// Metrics fall on whole units (5 points over 10 U -> width 2 U; 3 or 4 points -> width 4 U).
constexpr Time U = Time{1} << 20;

/// Three jobs over [0, 10 U] on kTwoTypes (a = type 0, b = type 1):
///   A: submit 0, runs on 2 a from 0 to 10.                                   JCT 10
///   B: submit 2, starts 4 on 3 b, finishes 8.                                 JCT 6
///   C: submit 3, 1 a from 5, preempted 6, restarts 7 on 1 b, finishes 9.      JCT 6
/// Piecewise values (busy a, busy b, queued, running):
///   [0,2) 2 0 0 1 | [2,3) 2 0 1 1 | [3,4) 2 0 2 1 | [4,5) 2 3 1 2 | [5,6) 3 3 0 3
///   [6,7) 2 3 1 2 | [7,8) 2 4 0 3 | [8,9) 2 1 0 2 | [9,10) 2 0 0 1
MetricsDriver three_job_run(const Cluster& c, std::size_t points) {
    MetricsDriver d(c, 3, 0, points);
    d.arrive(0, 0);
    d.start(0, 0, 0, 2);
    d.arrive(2 * U, 1);
    d.arrive(3 * U, 2);
    d.start(4 * U, 1, 1, 3);
    d.start(5 * U, 2, 0, 1);
    d.preempt(6 * U, 2);
    d.start(7 * U, 2, 1, 1);
    d.finish(8 * U, 1);
    d.finish(9 * U, 2);
    d.finish(10 * U, 0);
    return d;
}

/// ∫ (queued + running) dt over the series, in µs: the sum of JCTs by Little's identity.
double jobs_in_system_integral(const Timeseries& ts, Time last) {
    double sum = 0;
    for (std::size_t i = 0; i < ts.time.size(); ++i) {
        const double end = i + 1 < ts.time.size() ? ts.time[i + 1] : to_seconds(last);
        sum += (ts.queued[i] + ts.running[i]) * (end - ts.time[i]) * kMicrosPerSecond;
    }
    return sum;
}
}  // namespace

TEST_CASE("Metrics: one job busy 2 GPUs over [0, 10) s in 5 buckets", "[unit]") {
    const Cluster c = parse_cluster(kTwoTypes, "c.json");
    MetricsDriver d(c, 1, 0, 5);
    d.arrive(0, 0);
    d.start(0, 0, 0, 2);
    d.finish(sec(10), 0);

    // Bucket width: the smallest power of two (µs) w with 5·w >= 10^7, i.e. 2^21 µs = 2.097152 s;
    // ceil(10 / 2.097152) = 5 buckets, the last one [8.388608, 10) s.
    const Timeseries ts = d.m.timeseries();
    REQUIRE(ts.time.size() == 5u);
    REQUIRE(ts.busy.size() == 2u);
    for (std::size_t i = 0; i < 5; ++i) {
        INFO("bucket " << i);
        CHECK(ts.time[i] == Approx(2.097152 * static_cast<double>(i)).margin(1e-12));
        CHECK(ts.busy[0][i] == Approx(2.0).margin(1e-12));
        CHECK(ts.busy[1][i] == Approx(0.0).margin(1e-12));
        CHECK(ts.running[i] == Approx(1.0).margin(1e-12));
        CHECK(ts.queued[i] == Approx(0.0).margin(1e-12));
    }
    const Summary s = d.m.summarize(d.jobs, 3);
    CHECK(s.makespan == 10.0);
    CHECK(s.gpu_utilization == Approx(20.0 / 80.0).margin(1e-12));
    REQUIRE(s.gpu_utilization_by_type.size() == 2u);
    CHECK(s.gpu_utilization_by_type[0].first == "a");
    CHECK(s.gpu_utilization_by_type[0].second == Approx(0.5).margin(1e-12));
    CHECK(s.gpu_utilization_by_type[1].second == 0.0);
    CHECK(s.events == 3u);
}

TEST_CASE("Metrics: time-weighted bucket means of a hand-made run, Little's law", "[unit]") {
    const Cluster c = parse_cluster(kTwoTypes, "c.json");
    const MetricsDriver d = three_job_run(c, 5);
    const Timeseries ts = d.m.timeseries();
    REQUIRE(ts.time.size() == 5u);  // width 2 U
    const std::vector<double> busy_a{2, 2, 2.5, 2, 2}, busy_b{0, 0, 3, 3.5, 0.5};
    const std::vector<double> queued{0, 1.5, 0.5, 0.5, 0}, running{1, 1, 2.5, 2.5, 1.5};
    for (std::size_t i = 0; i < 5; ++i) {
        INFO("bucket " << i);
        CHECK(ts.time[i] == Approx(to_seconds(2 * U) * static_cast<double>(i)).margin(1e-12));
        CHECK(ts.busy[0][i] == Approx(busy_a[i]).margin(1e-9));
        CHECK(ts.busy[1][i] == Approx(busy_b[i]).margin(1e-9));
        CHECK(ts.queued[i] == Approx(queued[i]).margin(1e-9));
        CHECK(ts.running[i] == Approx(running[i]).margin(1e-9));
    }

    // Little's law: mean of (queued + running) over the window = λ·W = (3 / 10 U) · (22 U / 3) = 2.2.
    double mean_n = 0;
    for (std::size_t i = 0; i < 5; ++i) mean_n += (ts.queued[i] + ts.running[i]) / 5.0;
    const Summary s = d.m.summarize(d.jobs, 0);
    CHECK(mean_n == Approx(2.2).margin(1e-9));
    CHECK(s.avg_jct == Approx(to_seconds(22 * U) / 3.0).margin(1e-9));
    CHECK(mean_n == Approx(static_cast<double>(s.finished) / s.makespan * s.avg_jct).margin(1e-9));
    CHECK(jobs_in_system_integral(ts, 10 * U) == Approx(static_cast<double>(22 * U)).margin(1.0));
}

TEST_CASE("Metrics: fewer points widen the buckets by powers of two", "[unit]") {
    const Cluster c = parse_cluster(kTwoTypes, "c.json");
    // 3 points over 10 U: width 4 U (2 U · 3 < 10 U), so 3 buckets [0,4) [4,8) [8,10).
    // 4 points: 2 U · 4 = 8 U < 10 U too, so the same 4 U buckets (between points/2 and points of them).
    for (std::size_t points : {std::size_t{3}, std::size_t{4}}) {
        INFO("points " << points);
        const MetricsDriver d = three_job_run(c, points);
        const Timeseries ts = d.m.timeseries();
        REQUIRE(ts.time.size() == 3u);
        CHECK(ts.time[1] == Approx(to_seconds(4 * U)).margin(1e-12));
        CHECK(ts.time[2] == Approx(to_seconds(8 * U)).margin(1e-12));
        // Bucket 0: queued 1 on [2,3), 2 on [3,4) -> 3/4.   Bucket 1 [4,8): a 2,3,2,2; b 3,3,3,4;
        // queued 1,0,1,0; running 2,3,2,3.                  Bucket 2 [8,10): b 1,0; running 2,1.
        const std::vector<double> busy_a{2, 2.25, 2}, busy_b{0, 3.25, 0.5};
        const std::vector<double> queued{0.75, 0.5, 0}, running{1, 2.5, 1.5};
        for (std::size_t i = 0; i < 3; ++i) {
            INFO("bucket " << i);
            CHECK(ts.busy[0][i] == Approx(busy_a[i]).margin(1e-9));
            CHECK(ts.busy[1][i] == Approx(busy_b[i]).margin(1e-9));
            CHECK(ts.queued[i] == Approx(queued[i]).margin(1e-9));
            CHECK(ts.running[i] == Approx(running[i]).margin(1e-9));
        }
        // Whatever the bucketing, ∫ (queued + running) is the sum of the JCTs, 22 U.
        CHECK(jobs_in_system_integral(ts, 10 * U) == Approx(static_cast<double>(22 * U)).margin(1.0));
    }
}

TEST_CASE("Metrics: summary of the hand-made run", "[unit]") {
    const Cluster c = parse_cluster(kTwoTypes, "c.json");
    const MetricsDriver d = three_job_run(c, 5);
    const Summary s = d.m.summarize(d.jobs, 42);
    const double u = to_seconds(U);
    CHECK(s.jobs == 3u);
    CHECK(s.finished == 3u);
    CHECK(s.rejected == 0u);
    CHECK(s.unfinished == 0u);
    CHECK(s.events == 42u);
    CHECK(s.preemptions == 1u);
    CHECK(s.makespan == to_seconds(10 * U));
    CHECK(s.p50_jct == Approx(6 * u).margin(1e-12));              // sorted JCTs 6, 6, 10 U
    CHECK(s.p95_jct == Approx((6 + 0.9 * 4) * u).margin(1e-9));   // position 1.9
    CHECK(s.p99_jct == Approx((6 + 0.98 * 4) * u).margin(1e-9));  // position 1.98
    CHECK(s.avg_queueing_delay == Approx(4.0 / 3.0 * u).margin(1e-12));
    // Busy GPU-time: a = 2·10 + 1·1 = 21 U, b = 3·4 + 1·2 = 14 U; 8 GPUs over 10 U.
    CHECK(s.gpu_utilization == Approx(35.0 / 80.0).margin(1e-12));
    REQUIRE(s.gpu_utilization_by_type.size() == 2u);
    CHECK(s.gpu_utilization_by_type[0].second == Approx(21.0 / 40.0).margin(1e-12));
    CHECK(s.gpu_utilization_by_type[1].first == "b");
    CHECK(s.gpu_utilization_by_type[1].second == Approx(14.0 / 40.0).margin(1e-12));
    // C ran 1 U on a, then 2 U on b: its longest allocation is on b.
    CHECK(d.m.longest_type(0) == 0u);
    CHECK(d.m.longest_type(1) == 1u);
    CHECK(d.m.longest_type(2) == 1u);
}

TEST_CASE("Metrics: never more buckets than microseconds, none when points = 0", "[unit]") {
    const Cluster c = parse_cluster(kTwoTypes, "c.json");
    MetricsDriver d(c, 1, 100, 100);
    d.arrive(100, 0);
    d.start(100, 0, 1, 3);
    d.finish(105, 0);
    const Timeseries ts = d.m.timeseries();
    REQUIRE(ts.time.size() == 5u);  // [100, 105) µs in 1 µs buckets
    CHECK(ts.time[0] == Approx(100e-6).margin(1e-15));
    CHECK(ts.time[4] == Approx(104e-6).margin(1e-15));
    for (std::size_t i = 0; i < 5; ++i) {
        CHECK(ts.busy[1][i] == 3.0);
        CHECK(ts.busy[0][i] == 0.0);
    }
    CHECK(d.m.summarize(d.jobs, 0).makespan == Approx(5e-6).margin(1e-15));

    MetricsDriver none(c, 1, 0, 0);
    none.arrive(0, 0);
    none.start(0, 0, 0, 4);
    none.finish(sec(1), 0);
    CHECK(none.m.timeseries().time.empty());
    CHECK(none.m.summarize(none.jobs, 0).gpu_utilization == Approx(0.5).margin(1e-12));  // still integrated
}

namespace {

/// One 1-GPU job without a model (work 10 s) submitted at 2 on a 1-GPU cluster, kept waiting until 5,
/// run 5-8, preempted, started again at 12, preempted at 15 and started again at 20 (policy timers), with
/// `restart` seconds charged on each restart after a preemption. Returns the job and the summary.
std::pair<JobInfo, Summary> preempted_twice(double restart) {
    EngineFixture w(1, 1, "job_id,submit_time,num_gpus,duration\nA,2,1,10\n");
    ScriptedPolicy policy([](const ClusterView& v, const Changes&, Decisions& out) {
        const Time now = v.now();
        if (now == s(2)) out.next_call = s(5);
        if (now == s(5) || now == s(12) || now == s(20)) out.start(0, 0, 1);
        if (now == s(8) || now == s(15)) out.preempt(0);
        if (now == s(5)) out.next_call = s(8);
        if (now == s(8)) out.next_call = s(12);
        if (now == s(12)) out.next_call = s(15);
        if (now == s(15)) out.next_call = s(20);
    });
    SimOptions options;
    options.restart_cost = s(restart);
    Simulator sim(w.in.cluster, w.rates, w.jobs, policy, w.placer, options);
    Metrics m(w.in.cluster, 1, s(2), 0);
    sim.add_observer(m);
    sim.run();
    return {sim.jobs()[0], m.summarize(sim.jobs(), 0)};
}

}  // namespace

TEST_CASE("pending time: a job preempted twice, without and with a restart cost, by hand", "[unit]") {
    SECTION("no restart cost") {
        // Runs 5-8 (3 s of work), 12-15 (3 s), 20-24 (4 s): finishes at 24. It waited 2-5, 8-12 and
        // 15-20: pending 3 + 4 + 5 = 12 s; its queueing delay (first start - submit) is only 3 s.
        const auto [job, sum] = preempted_twice(0);
        REQUIRE(job.state == JobState::Finished);
        CHECK(job.finish == s(24));
        CHECK(job.preemptions == 2u);
        CHECK(pending_time(job) == s(12));
        CHECK(sum.avg_pending_time == 12.0);
        CHECK(sum.p95_pending_time == 12.0);
        CHECK(sum.avg_queueing_delay == 3.0);
        CHECK(sum.avg_jct == 22.0);
    }
    SECTION("restart cost 1 s: restarts are spent holding the GPU, not pending") {
        // 5-8: 3 s of work (7 left). 12: restarts until 13, works 13-15 (5 left). 20: restarts until 21,
        // works 21-26: finishes at 26. Pending is still 3 + 4 + 5 = 12 s; restart time 2 s; it held the GPU
        // 3 + 3 + 6 = 12 s. Blox's and Tiresias's queueing delay, JCT - execution time = 24 - 10 = 14 s,
        // is pending + restart time.
        const auto [job, sum] = preempted_twice(1);
        REQUIRE(job.state == JobState::Finished);
        CHECK(job.finish == s(26));
        CHECK(job.restarts == 2u);
        CHECK(job.restart_time == s(2));
        CHECK(job.attained == s(12));
        CHECK(pending_time(job) == s(12));
        CHECK(sum.avg_pending_time == 12.0);
        CHECK(sum.avg_jct == 24.0);
        const Time execution = job.attained - job.restart_time;
        CHECK((job.finish - job.submit) - execution == pending_time(job) + job.restart_time);
    }
}

TEST_CASE("Metrics: the figures over no jobs are kNoFigure, never 0", "[unit]") {
    // One job that never runs (it is rejected): nothing finished, so no JCT, queueing, pending, fairness,
    // makespan or utilisation; the counts are measured zeros.
    const Cluster c = parse_cluster(kTwoTypes, "c.json");
    MetricsDriver d(c, 1, 0, 10);
    d.jobs[0].state = JobState::Rejected;
    std::vector<double> rho{-1.0};
    SummaryOptions options;
    options.ftf_rho = rho;
    const Summary sum = d.m.summarize(d.jobs, 1, {}, options);
    for (double x :
         {sum.avg_jct, sum.p50_jct, sum.p95_jct, sum.p99_jct, sum.avg_queueing_delay, sum.avg_pending_time,
          sum.p95_pending_time, sum.makespan, sum.gpu_utilization, sum.ftf_rho_max, sum.ftf_rho_mean,
          sum.ftf_share_above_1, sum.gpu_utilization_by_type[0].second, sum.gpu_utilization_by_type[1].second})
        CHECK(std::isnan(x));
    CHECK_FALSE(has_figure(sum.avg_jct));
    CHECK(sum.finished == 0u);
    CHECK(sum.rejected == 1u);
    CHECK(sum.preemptions == 0u);
    CHECK(sum.jobs_waited_over_threshold == 0u);
    CHECK(percentile({}, 50) != percentile({}, 50));  // NaN: a percentile of nothing
}

}  // namespace dlsim::test::metrics_tests
