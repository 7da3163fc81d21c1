// The engine's one transition, worked by hand: a toy performance model defined here (jobs that share a
// node run at half speed while they share it), explicit placements, resizes with a restart cost,
// declined starts, requeued moves, migrations, stale completions, and the desired-state helper.
#include "models/base/input_error.hpp"
#include "policies/desired_state.hpp"
#include "sim/metrics.hpp"
#include "tests/support/engine_support.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <map>
#include <set>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::engine_transitions_tests {

namespace {

/// Jobs without a model run at 1 iteration/s per GPU, halved while another job holds GPUs on any of
/// their nodes. It knows only allocations, never the engine.
class SharedNodeHalfSpeed final : public PerformanceModel {
public:
    void allocated(Time, JobIdx j, ModelIdx, const Allocation& a, std::vector<RateChange>& changed) override {
        std::set<NodeIdx> nodes;
        for (const NodeShare& share : a.shares) nodes.insert(share.node);
        held_[j] = {nodes, a.num_gpus()};
        changed.push_back({j, rate(j)});
        report_neighbours(j, changed);
    }
    void released(Time, JobIdx j, const Allocation&, std::vector<RateChange>& changed) override {
        const auto was = held_.extract(j);
        held_neighbours(was.mapped().nodes, j, changed);
    }
    double predicted_rate(ModelIdx, const Allocation& a) const override { return a.num_gpus(); }

private:
    struct Held {
        std::set<NodeIdx> nodes;
        int gpus;
    };
    bool shares_node(JobIdx j, const std::set<NodeIdx>& nodes, JobIdx other) const {
        if (other == j) return false;
        for (NodeIdx n : held_.at(other).nodes)
            if (nodes.count(n)) return true;
        return false;
    }
    double rate(JobIdx j) const {
        for (const auto& [k, h] : held_)
            if (shares_node(j, held_.at(j).nodes, k)) return 0.5 * held_.at(j).gpus;
        return held_.at(j).gpus;
    }
    void report_neighbours(JobIdx j, std::vector<RateChange>& changed) {
        held_neighbours(held_.at(j).nodes, j, changed);
    }
    /// Every job on `nodes` other than j gets its (possibly new) rate.
    void held_neighbours(const std::set<NodeIdx>& nodes, JobIdx j, std::vector<RateChange>& changed) {
        for (const auto& [k, h] : held_)
            if (shares_node(j, nodes, k)) changed.push_back({k, rate(k)});
    }
    std::map<JobIdx, Held> held_;
};

/// Records every observer signal as text, for exact comparisons.
class Recorder final : public Observer {
public:
    void on_start(Time t, JobIdx j, const JobInfo& job, const Allocation& a) override {
        log.push_back(fmt::format("{} start {} {}", to_seconds(t), j, where(a)));
        rates[j].push_back(job.rate);
    }
    void on_preempt(Time t, JobIdx j, const JobInfo&, const Allocation& a) override {
        log.push_back(fmt::format("{} preempt {} {}", to_seconds(t), j, where(a)));
    }
    void on_finish(Time t, JobIdx j, const JobInfo&, const Allocation&) override {
        log.push_back(fmt::format("{} finish {}", to_seconds(t), j));
    }
    void on_resize(Time t, JobIdx j, const JobInfo&, const Allocation& from, Time since, const Allocation& to,
                   Transition why) override {
        log.push_back(fmt::format("{} {} {} {} (since {}) -> {}", to_seconds(t),
                                  why == Transition::Migrate ? "migrate" : "resize", j, where(from), to_seconds(since),
                                  where(to)));
    }
    void on_rate_change(Time t, JobIdx j, const JobInfo& job) override {
        log.push_back(fmt::format("{} rate {} {}", to_seconds(t), j, job.rate));
    }
    static std::string where(const Allocation& a) {
        std::string out = fmt::format("t{}:", a.gpu_type);
        for (const NodeShare& s : a.shares) out += fmt::format("[{}x{}]", s.node, s.gpus);
        return out;
    }
    std::vector<std::string> log;
    std::map<JobIdx, std::vector<double>> rates;
};

/// Places on the lowest-numbered single node with room; declines what no single node holds (strict
/// locality), or everything while `refuse` is set.
class SingleNodePlacer final : public Placer {
public:
    bool refuse = false;
    bool place(const ClusterView& view, GpuTypeIdx t, int n, std::vector<NodeShare>& out) override {
        out.clear();
        if (refuse) return false;
        for (NodeIdx node = 0; node < view.cluster().nodes.size(); ++node)
            if (view.cluster().nodes[node].gpu_type == t && view.free_gpus_on(node) >= n) {
                out.push_back({node, n});
                return true;
            }
        return false;
    }
};

const NodeShare on0[] = {{0, 1}}, on1[] = {{1, 1}};

/// Progress-driven rates: a job's "epoch" advances when 4 and 8 units of its work are done; per GPU it
/// runs at 2, 1, then 0.5 units/s in epochs 0, 1, 2, halved while another job holds GPUs on its node.
/// It reads progress only through the ProgressSource and asks for each epoch boundary (rerate_when).
class EpochHalving final : public PerformanceModel {
public:
    explicit EpochHalving(std::vector<double> work) : work_(std::move(work)) {}
    void bind(const ProgressSource& p) override { progress_ = &p; }
    void allocated(Time, JobIdx j, ModelIdx, const Allocation& a, std::vector<RateChange>& changed) override {
        node_[j] = a.shares.front().node;
        changed.push_back({j, rate(j)});
        for (const auto& [k, n] : node_)
            if (k != j && n == node_[j]) changed.push_back({k, rate(k)});
    }
    void released(Time, JobIdx j, const Allocation&, std::vector<RateChange>& changed) override {
        const NodeIdx was = node_.at(j);
        node_.erase(j);
        for (const auto& [k, n] : node_)
            if (n == was) changed.push_back({k, rate(k)});
    }
    double predicted_rate(ModelIdx, const Allocation& a) const override { return a.num_gpus(); }
    RerateWhen rerate_when(JobIdx j) const override {
        const double left = progress_->remaining_work(j);
        for (double done : {4.0, 8.0})
            if (work_[j] - done > 0 && work_[j] - done < left) return {work_[j] - done, kNever};
        return {};
    }
    void progressed(Time, JobIdx j, std::vector<RateChange>& changed) override { changed.push_back({j, rate(j)}); }
    std::vector<int> epochs_seen;

private:
    double rate(JobIdx j) {
        const double done = work_[j] - progress_->remaining_work(j);
        const int epoch = (done >= 4.0) + (done >= 8.0);
        epochs_seen.push_back(epoch);
        bool shared = false;
        for (const auto& [k, n] : node_) shared = shared || (k != j && n == node_.at(j));
        return (epoch == 0 ? 2.0 : epoch == 1 ? 1.0 : 0.5) * (shared ? 0.5 : 1.0);
    }
    std::vector<double> work_;
    const ProgressSource* progress_ = nullptr;
    std::map<JobIdx, NodeIdx> node_;
};

}  // namespace

TEST_CASE("engine: a contention model re-rates jobs that share a node; stale completions are dropped", "[engine]") {
    // 2 nodes x 2 GPUs; 1-GPU jobs without a model (work = duration). Placed by hand:
    //   A (0, work 10) on node 0 at 0: alone, rate 1.
    //   B (2, work 4) on node 0 at 2: A and B share -> both 0.5. A has 8 left; B finishes at 2 + 4/0.5 = 10.
    //   C (4, work 3) on node 1 at 4: alone, finishes at 7.
    //   At 10 B finishes: A alone again with 8 - 0.5*8 = 4 left -> rate 1, would finish at 14.
    //   D (12, work 1) on node 0 at 12: A has 2 left; both 0.5 -> D finishes 14, A has 1 left at 14.
    //   At 14 A is alone with 1 left -> finishes at 15.
    // A's completion was scheduled at 18 (t=2), 14 (t=10), 16 (t=12) and 15 (t=14): three are stale.
    EngineFixture w(2, 2, "job_id,submit_time,num_gpus,duration\nA,0,1,10\nB,2,1,4\nC,4,1,3\nD,12,1,1\n");
    ScriptedPolicy policy([](const ClusterView&, const Changes& c, Decisions& out) {
        for (JobIdx j : c.arrived) out.start(j, 0, 1, j == 2 ? on1 : on0);
    });
    ConsolidatedPlacer placer;
    SharedNodeHalfSpeed model;
    Recorder rec;
    SimOptions options;
    options.performance = &model;
    Simulator sim(w.in.cluster, w.rates, w.jobs, policy, placer, options);
    sim.add_observer(rec);
    const SimStats st = sim.run();
    const auto& jobs = sim.jobs();
    CHECK(jobs[0].finish == s(15));
    CHECK(jobs[1].finish == s(10));
    CHECK(jobs[2].finish == s(7));
    CHECK(jobs[3].finish == s(14));
    CHECK(st.events == 8);  // 4 arrivals, 4 completions: the 3 stale completions are not counted
    CHECK(rec.log == std::vector<std::string>{
                         "0 start 0 t0:[0x1]",
                         "2 start 1 t0:[0x1]",
                         "2 rate 0 0.5",
                         "4 start 2 t0:[1x1]",
                         "7 finish 2",
                         "10 finish 1",
                         "10 rate 0 1",
                         "12 start 3 t0:[0x1]",
                         "12 rate 0 0.5",
                         "14 finish 3",
                         "14 rate 0 1",
                         "15 finish 0",
                     });
    CHECK(rec.rates[1] == std::vector<double>{0.5});  // B started at half speed: it shares with A
}

TEST_CASE("engine: an explicit placement is honoured; one on busy GPUs is an invalid decision", "[engine]") {
    EngineFixture w(2, 2, "job_id,submit_time,num_gpus,duration\na,0,1,5\nb,0,1,5\nc,1,1,5\n");
    ConsolidatedPlacer placer;
    SECTION("honoured, where the placer would have chosen otherwise") {
        // Best fit would put b next to a on node 0; the policy puts it on node 1.
        ScriptedPolicy policy([](const ClusterView& v, const Changes& c, Decisions& out) {
            for (JobIdx j : c.arrived) {
                if (j == 1) {
                    out.start(j, 0, 1, on1);
                    continue;
                }
                out.start(j, 0, 1);
            }
            if (v.now() == s(1)) {
                CHECK(Recorder::where(v.allocation(0)) == "t0:[0x1]");
                CHECK(Recorder::where(v.allocation(1)) == "t0:[1x1]");
                CHECK(v.allocation(2).empty());
            }
        });
        Recorder rec;
        Simulator sim(w.in.cluster, w.rates, w.jobs, policy, placer, {});
        sim.add_observer(rec);
        sim.run();
        CHECK(rec.log[0] == "0 start 0 t0:[0x1]");
        CHECK(rec.log[1] == "0 start 1 t0:[1x1]");
        CHECK(rec.log[2] == "1 start 2 t0:[0x1]");  // best fit: node 0 has 1 free, node 1 has 1 free -> lowest id
    }
    SECTION("on busy GPUs: rejected, although the type has a free GPU") {
        ScriptedPolicy policy([](const ClusterView&, const Changes& c, Decisions& out) {
            for (JobIdx j : c.arrived) out.start(j, 0, 1, on0);
        });
        Simulator sim(w.in.cluster, w.rates, w.jobs, policy, placer, {});
        // a and b fill node 0; c asks for node 0 again while node 1 is free.
        CHECK_THROWS_WITH(sim.run(), Catch::Contains("policy started job 2 on 1 GPUs of node 0, which has 0 free"));
    }
    SECTION("on the wrong type's node, or on a fractional share") {
        const NodeShare nowhere[] = {{7, 1}}, half[] = {{0, 1, 500}};
        ScriptedPolicy policy(
            [&](const ClusterView&, const Changes& c, Decisions& out) { out.start(c.arrived[0], 0, 1, nowhere); });
        Simulator sim(w.in.cluster, w.rates, w.jobs, policy, placer, {});
        CHECK_THROWS_WITH(sim.run(), Catch::Contains("started job 0 on node 7, which has no g GPUs"));
        ScriptedPolicy fractional(
            [&](const ClusterView&, const Changes& c, Decisions& out) { out.start(c.arrived[0], 0, 1, half); });
        Simulator sim2(w.in.cluster, w.rates, w.jobs, fractional, placer, {});
        CHECK_THROWS_WITH(sim2.run(), Catch::Contains("500/1000 share"));
    }
}

TEST_CASE("engine: resizing an elastic job charges the restart cost; a rigid job cannot be resized", "[engine]") {
    // 1 node x 4 GPUs, restart cost 2 s. E asks for 2 GPUs (work 2 x 10 = 20) and may run on 1..4.
    // 0: starts on 2 GPUs (first start: no restart cost), rate 2.  4: resized to 4: 20 - 8 = 12 left;
    // no progress until 6, then rate 4 -> finishes at 6 + 3 = 9. Busy GPU-s: 2*4 + 4*5 = 28 of 4*9.
    EngineFixture w(1, 4, "job_id,submit_time,num_gpus,duration\nE,0,2,10\nR,0,1,1\n");
    w.jobs.jobs[0].min_gpus = 1;
    w.jobs.jobs[0].max_gpus = 4;
    SECTION("elastic") {
        ScriptedPolicy policy([](const ClusterView& v, const Changes& c, Decisions& out) {
            if (v.now() == 0) {
                out.start(0, 0, 2);
                out.next_call = s(4);
            }
            if (c.timer) out.resize(0, 4);
            if (v.now() == s(4)) CHECK(v.job(0).alloc_gpus == 2);
        });
        ConsolidatedPlacer placer;
        Recorder rec;
        SimOptions options;
        options.restart_cost = s(2);
        w.jobs.jobs.pop_back();  // E alone
        Simulator sim(w.in.cluster, w.rates, w.jobs, policy, placer, options);
        Metrics metrics(w.in.cluster, 1, 0, 16);
        sim.add_observer(rec);
        sim.add_observer(metrics);
        const SimStats st = sim.run();
        const JobInfo& e = sim.jobs()[0];
        CHECK(e.finish == s(9));
        CHECK(e.preemptions == 0);
        CHECK(e.migrations == 0);
        CHECK(e.attained == s(9));
        CHECK(rec.log == std::vector<std::string>{"0 start 0 t0:[0x2]", "4 resize 0 t0:[0x2] (since 0) -> t0:[0x4]",
                                                  "9 finish 0"});
        const Summary sum = metrics.summarize(sim.jobs(), st.events);
        CHECK(sum.gpu_utilization == Approx(28.0 / 36.0).epsilon(1e-12));
    }
    SECTION("rigid") {
        ScriptedPolicy policy([](const ClusterView&, const Changes& c, Decisions& out) {
            for (JobIdx j : c.arrived) out.start(j, 0, j == 0 ? 2 : 1);
            out.resize(1, 2);
        });
        ConsolidatedPlacer placer;
        Simulator sim(w.in.cluster, w.rates, w.jobs, policy, placer, {});
        CHECK_THROWS_WITH(sim.run(), Catch::Contains("resized job 1, which is rigid"));
    }
}

TEST_CASE("engine: a start the placer declines stays queued, is reported at once, and succeeds later", "[engine]") {
    // 2 nodes x 2 GPUs, single-node placer. a (5 s) on node 0 and b (10 s) on node 1, by hand: 2 GPUs free
    // by count but on two nodes, so c (2 GPUs, at 1) is declined at 1, declined again in the extra call
    // at 1, and starts when a frees node 0 at 5: it runs 5 -> 8.
    EngineFixture w(2, 2, "job_id,submit_time,num_gpus,duration\na,0,1,5\nb,0,1,10\nc,1,2,3\n");
    ScriptedPolicy policy([](const ClusterView&, const Changes& c, Decisions& out) {
        for (JobIdx j : c.arrived) {
            if (j == 0)
                out.start(j, 0, 1, on0);
            else if (j == 1)
                out.start(j, 0, 1, on1);
            else
                out.start(j, 0, 2);
        }
        for (JobIdx j : c.declined) out.start(j, 0, 2);
    });
    SingleNodePlacer placer;
    Simulator sim(w.in.cluster, w.rates, w.jobs, policy, placer, {});
    const SimStats st = sim.run();
    REQUIRE(policy.calls.size() == 6);
    CHECK(policy.calls[1].now == s(1));
    CHECK(policy.calls[1].arrived == std::vector<JobIdx>{2});
    CHECK(policy.calls[2].now == s(1));  // the one extra call at the same instant
    CHECK(policy.calls[2].arrived.empty());
    CHECK(policy.calls[2].declined == std::vector<JobIdx>{2});
    CHECK(policy.calls[3].now == s(5));  // declined again at 1: reported at the next call
    CHECK(policy.calls[3].finished == std::vector<JobIdx>{0});
    CHECK(policy.calls[3].declined == std::vector<JobIdx>{2});
    CHECK(policy.calls[4].now == s(8));   // c finishes
    CHECK(policy.calls[5].now == s(10));  // b finishes
    CHECK(st.policy_calls == 6);
    CHECK(sim.jobs()[2].first_start == s(5));
    CHECK(sim.jobs()[2].finish == s(8));
    CHECK(sim.jobs()[2].preemptions == 0);
}

TEST_CASE("engine: moves: a migration with a restart cost, and a move the placer declines is requeued", "[engine]") {
    // 2 nodes x 2 GPUs, restart cost 1 s. a (work 10) on node 0 at 0.
    EngineFixture w(2, 2, "job_id,submit_time,num_gpus,duration\na,0,1,10\n");
    SimOptions options;
    options.restart_cost = s(1);
    SECTION("explicit migration: 4 s done at 4, no progress until 5, 6 left -> finishes at 11") {
        ScriptedPolicy policy([](const ClusterView&, const Changes& c, Decisions& out) {
            if (!c.arrived.empty()) {
                out.start(0, 0, 1, on0);
                out.next_call = s(4);
            }
            if (c.timer) out.migrate(0, 0, on1);
        });
        ConsolidatedPlacer placer;
        Recorder rec;
        Simulator sim(w.in.cluster, w.rates, w.jobs, policy, placer, options);
        sim.add_observer(rec);
        sim.run();
        CHECK(rec.log[1] == "4 migrate 0 t0:[0x1] (since 0) -> t0:[1x1]");
        CHECK(sim.jobs()[0].finish == s(11));
        CHECK(sim.jobs()[0].migrations == 1);
        CHECK(sim.jobs()[0].preemptions == 1);
    }
    SECTION("the placer declines the move: a goes back to the queue, and the policy restarts it at once") {
        SingleNodePlacer placer;
        ScriptedPolicy policy([&](const ClusterView&, const Changes& c, Decisions& out) {
            if (!c.arrived.empty()) {
                out.start(0, 0, 1, on0);
                out.next_call = s(4);
            }
            if (c.timer) {
                placer.refuse = true;
                out.migrate(0, 0);
            }
            for (JobIdx j : c.requeued) out.start(j, 0, 1, on1);
        });
        Simulator sim(w.in.cluster, w.rates, w.jobs, policy, placer, options);
        sim.run();
        REQUIRE(policy.calls.size() == 4);  // 0, the timer at 4, the extra call at 4, a's finish
        CHECK(policy.calls[2].now == s(4));
        CHECK(policy.calls[2].requeued == std::vector<JobIdx>{0});
        // Stopped at 4 with 6 left, restarted at 4 elsewhere: a move, charged 1 s -> 4 + 1 + 6 = 11.
        CHECK(sim.jobs()[0].finish == s(11));
        CHECK(sim.jobs()[0].preemptions == 1);
        CHECK(sim.jobs()[0].migrations == 1);
    }
}

TEST_CASE("desired state: preemptions and moves first, then starts in priority order; kept jobs untouched",
          "[engine]") {
    // Two types a, b of 2 GPUs each (one node each). x runs on a, y on b, z on a; the wish swaps x and y,
    // keeps z, drops nothing else, and starts w on b.
    const std::string cluster = R"({"gpu_types": {"a": {}, "b": {}},
        "node_types": {"na": {"gpu_type": "a", "gpus": 2}, "nb": {"gpu_type": "b", "gpus": 2}},
        "racks": [{"node_type": "na", "nodes": 1}, {"node_type": "nb", "nodes": 1}]})";
    RunInputs in = inputs_from_text(cluster, R"({"models": {"unused": {"throughput": {"a": 1, "b": 1}}}})",
                                    "job_id,submit_time,num_gpus,duration\nx,0,1,10\ny,0,1,10\nz,0,1,10\n"
                                    "w,1,1,10\nv,0,1,10\n");
    const RateModel rates(in.cluster, in.profiles);
    const ResolvedJobs jobs = resolve_jobs(in.trace, in.cluster, in.profiles, rates, false);
    DesiredState desired;
    std::vector<Action> emitted;
    ScriptedPolicy policy([&](const ClusterView& v, const Changes&, Decisions& out) {
        if (v.now() == 0) {
            out.start(0, 0, 1);
            out.start(1, 1, 1);
            out.start(2, 0, 1);
            out.start(4, 1, 1);
            return;
        }
        if (v.now() > s(1) && v.job(4).state == JobState::Queued && v.free_gpus(1) > 0) out.start(4, 1, 1);
        if (v.now() != s(1)) return;
        desired.clear();
        desired.want(3, 1, 1);  // w: waiting -> start
        desired.want(2, 0, 1);  // z: keeps its place
        desired.want(1, 0, 1);  // y: b -> a (a move)
        desired.want(0, 1, 1);  // x: a -> b (a move); v (on b) is not wanted -> preempted
        desired.emit(v, out);
        emitted = out.actions;
    });
    ConsolidatedPlacer placer;
    Simulator sim(in.cluster, rates, jobs, policy, placer, {});
    sim.run();
    using K = Action::Kind;
    REQUIRE(emitted.size() == 6);
    CHECK((emitted[0].kind == K::Preempt && emitted[0].job == 4));
    CHECK((emitted[1].kind == K::Preempt && emitted[1].job == 1));
    CHECK((emitted[2].kind == K::Preempt && emitted[2].job == 0));
    CHECK((emitted[3].kind == K::Start && emitted[3].job == 3 && emitted[3].gpu_type == 1));
    CHECK((emitted[4].kind == K::Start && emitted[4].job == 1 && emitted[4].gpu_type == 0));
    CHECK((emitted[5].kind == K::Start && emitted[5].job == 0 && emitted[5].gpu_type == 1));
    const auto& j = sim.jobs();
    CHECK(j[0].migrations == 1);
    CHECK(j[1].migrations == 1);
    CHECK(j[2].preemptions == 0);
    CHECK(j[4].preemptions == 1);
    CHECK(j[4].migrations == 0);  // preempted at 1, restarted at 10 when x frees a b GPU
    CHECK(j[4].finish == s(19));
    CHECK(j[2].finish == s(10));  // z kept running undisturbed
}

TEST_CASE("engine: a start may name a placer instead of the run's", "[engine]") {
    // 4 nodes of 2 GPUs, the run's placer consolidated: job a asks for `spread` and gets one GPU on each of
    // two nodes; job b, without a preference, gets one whole node.
    EngineFixture w(4, 2, "job_id,submit_time,num_gpus,duration\na,0,2,10\nb,0,2,10\n");
    struct Starts final : Observer {
        std::vector<Allocation> seen;
        void on_start(Time, JobIdx, const JobInfo&, const Allocation& a) override { seen.push_back(a); }
    } starts;
    ScriptedPolicy policy([&](const ClusterView&, const Changes& c, Decisions& out) {
        if (c.arrived.empty()) return;
        out.start(0, 0, 2, PlacerChoice::Spread);
        out.start(1, 0, 2);
    });
    Simulator sim(w.in.cluster, w.rates, w.jobs, policy, w.placer, SimOptions{});
    sim.add_observer(starts);
    sim.run();
    const auto& seen = starts.seen;
    REQUIRE(seen.size() == 2);
    REQUIRE(seen[0].shares.size() == 2);
    CHECK(seen[0].shares[0].gpus == 1);
    CHECK(seen[0].shares[1].gpus == 1);
    REQUIRE(seen[1].shares.size() == 1);
    CHECK(seen[1].shares[0].gpus == 2);
}

TEST_CASE("engine: progress-driven re-rates at epoch boundaries, moved by another job's arrival", "[engine]") {
    // 2 nodes x 2 GPUs. A (0, work 12) and B (3, work 1), both 1 GPU on node 0 (EpochHalving above).
    //   0:   A epoch 0 alone, rate 2. Boundary 1 (4 done) due at 2; completion booked at 6.
    //   2:   re-rate: A epoch 1, rate 1; boundary 2 (8 done) due at 2 + 4/1 = 6; completion at 10.
    //   3:   B arrives on node 0: A has done 5; both share -> A 0.5 (boundary now at 3 + 3/0.5 = 9), B
    //        epoch 0 at 2 x 0.5 = 1: B finishes at 4. The re-rate at 6 and the completion at 10 are stale.
    //   4:   B finishes; A alone with 5.5 done, rate 1: boundary 2 at 4 + 2.5 = 6.5 (the one at 9 stale).
    //   6.5: re-rate: A epoch 2, rate 0.5, 4 left -> finishes at 6.5 + 8 = 14.5.
    EngineFixture w(2, 2, "job_id,submit_time,num_gpus,duration\nA,0,1,12\nB,3,1,1\n");
    ScriptedPolicy policy([](const ClusterView&, const Changes& c, Decisions& out) {
        for (JobIdx j : c.arrived) out.start(j, 0, 1, on0);
    });
    ConsolidatedPlacer placer;
    EpochHalving model({12, 1});
    Recorder rec;
    SimOptions options;
    options.performance = &model;
    Simulator sim(w.in.cluster, w.rates, w.jobs, policy, placer, options);
    sim.add_observer(rec);
    const SimStats st = sim.run();
    CHECK(sim.jobs()[0].finish == s(14.5));
    CHECK(sim.jobs()[1].finish == s(4));
    // 2 arrivals, 2 completions, 2 re-rates: the stale re-rates (6, 9) and completions (6, 10, 10.5) not counted.
    CHECK(st.events == 6);
    CHECK(rec.log == std::vector<std::string>{
                         "0 start 0 t0:[0x1]",
                         "2 rate 0 1",
                         "3 start 1 t0:[0x1]",
                         "3 rate 0 0.5",
                         "4 finish 1",
                         "4 rate 0 1",
                         "6.5 rate 0 0.5",
                         "14.5 finish 0",
                     });
}

}  // namespace dlsim::test::engine_transitions_tests
