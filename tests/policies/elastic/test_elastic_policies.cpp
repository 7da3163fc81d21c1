// The elastic policies on a fake view with hand-made step times and goodputs: optimus's marginal-gain order
// and placements, and afs's tournament, each worked out by hand in the comments.
#include "policies/elastic/afs.hpp"
#include "policies/elastic/optimus.hpp"
#include "policies/registry.hpp"
#include "tests/support/hand_view.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <vector>

using namespace dlsim;

namespace dlsim::test::elastic_policies_tests {

namespace {

/// 2 nodes x 4 GPUs of type g: GPUs 0-3 on node 0, 4-7 on node 1.
const char* kTwoNodes = R"({"gpu_types": {"g": {}}, "node_types": {"n": {"gpu_type": "g", "gpus": 4}},
                            "racks": [{"node_type": "n", "nodes": 2}]})";

/// Hand-made predictions: step seconds and goodput per job and GPU count (index k - 1).
class FakeElastic final : public ElasticView {
public:
    const GoodputProfile* goodput(JobIdx j) const override { return profiles.count(j) ? &profiles.at(j) : nullptr; }
    int epoch(JobIdx j) const override { return epochs.count(j) ? epochs.at(j) : 0; }
    bool adapts_batch() const override { return false; }
    GoodputPoint predict(JobIdx j, GpuTypeIdx, int nodes, int gpus) const override {
        calls.push_back({j, nodes, gpus});
        GoodputPoint p;
        const auto& s = steps.at(j);
        const auto& g = goodputs.at(j);
        if (gpus < 1 || gpus > static_cast<int>(s.size())) return p;
        p.step_seconds = s[static_cast<std::size_t>(gpus - 1)];
        p.goodput = g[static_cast<std::size_t>(gpus - 1)];
        return p;
    }
    double true_step_seconds(JobIdx j, GpuTypeIdx, std::span<const int> per_node, BatchConfig) const override {
        int gpus = 0;
        for (const int g : per_node) gpus += g;
        return steps.at(j).at(static_cast<std::size_t>(gpus - 1));
    }
    double slowdown(JobIdx) const override { return 1; }
    struct Call {
        JobIdx job;
        int nodes, gpus;
    };
    std::map<JobIdx, GoodputProfile> profiles;
    std::map<JobIdx, int> epochs;
    std::map<JobIdx, std::vector<double>> steps, goodputs;
    mutable std::vector<Call> calls;
};

/// 2 nodes x 1 GPU.
const char* kTwoGpus = R"({"gpu_types": {"g": {}}, "node_types": {"n": {"gpu_type": "g", "gpus": 1}},
                           "racks": [{"node_type": "n", "nodes": 2}]})";

/// A view over hand-kept jobs and allocations on a cluster of one type g (kTwoNodes by default).
class FakeView final : public HandView {
public:
    explicit FakeView(const char* cluster_json = kTwoNodes)
        : HandView(cluster_json, R"({"models": {"m": {"throughput": {"g": 1}}}})") {}
    const ElasticView* elastic() const override { return &ev; }

    /// A queued job submitted at `submit_s`: elastic on 1..8 GPUs when it has predictions, else rigid.
    JobIdx add(double submit_s, int num_gpus, double remaining, bool elastic) {
        JobInfo j;
        j.submit = to_time(submit_s);
        j.num_gpus = num_gpus;
        j.min_gpus = elastic ? 1 : num_gpus;
        j.max_gpus = elastic ? 8 : num_gpus;
        j.runnable = 1;
        j.model = 0;
        j.state = JobState::Queued;
        j.work = j.remaining = remaining;
        j.batch_size = 64;
        jobs.push_back(j);
        allocs.emplace_back();
        return static_cast<JobIdx>(jobs.size() - 1);
    }
    /// Job j runs on these shares.
    void run(JobIdx j, std::vector<NodeShare> shares) { HandView::run(j, 0, std::move(shares)); }

    FakeElastic ev;
};

/// One validated batch size (the jobs' 64) over 3 epochs: iterations_at(64, e) is the table's value, so the
/// completion epoch 2 leaves 300 − iterations[e] iterations (1 once there).
GoodputProfile three_epochs() {
    GoodputProfile g;
    g.init_batch_size = 64;
    g.max_batch_size = 64;
    g.max_epochs = 3;
    g.batch_sizes = {64};
    g.iterations = {{100, 200, 300}};
    g.progress = {{1, 2, 3}};
    return g;
}

struct Act {
    Action::Kind kind;
    JobIdx job;
    int gpus;
    std::vector<std::pair<NodeIdx, int>> where;
    bool operator==(const Act&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Act& a) {
    os << "{kind " << static_cast<int>(a.kind) << ", job " << a.job << ", " << a.gpus << " GPUs at";
    for (auto [n, k] : a.where) os << " " << n << ":" << k;
    return os << "}";
}
std::vector<Act> acts(const Decisions& d) {
    std::vector<Act> out;
    for (const Action& a : d.actions) {
        Act x{a.kind, a.job, a.num_gpus, {}};
        for (const NodeShare& s : d.placement(a)) x.where.emplace_back(s.node, s.gpus);
        out.push_back(x);
    }
    return out;
}

Changes arrivals(const std::vector<JobIdx>& jobs) { return Changes{jobs, {}, false, {}, {}}; }

/// optimus's three jobs: A (epoch 0, 200 iterations left), B (epoch 1, 100 left), C (epoch 2: 1 left).
void optimus_jobs(FakeView& v) {
    const JobIdx a = v.add(0, 1, 0, true), b = v.add(5, 1, 0, true), c = v.add(10, 1, 0, true);
    for (JobIdx j : {a, b, c}) v.ev.profiles[j] = three_epochs();
    v.ev.epochs = {{a, 0}, {b, 1}, {c, 2}};
    // Dyadic step times, so every gain below is exact.
    v.ev.steps[a] = {1, 0.625, 0.5, 0.4375, 0.4375, 0.4375, 0.4375, 0.4375};
    v.ev.steps[b] = {2, 1, 0.75, 0.625, 0.625, 0.625, 0.625, 0.625};
    v.ev.steps[c] = {1, 0.5, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25};
    for (JobIdx j : {a, b, c}) v.ev.goodputs[j] = std::vector<double>(8, 1.0);
}

}  // namespace

TEST_CASE("optimus: marginal gains by hand, first maximum on ties, smallest jobs placed first", "[schedule][elastic]") {
    FakeView v;
    optimus_jobs(v);
    OptimusPolicy p(60'000'000);
    Decisions d;

    // Arrivals between ticks wait for the next multiple of the interval.
    v.now_s = 30;
    p.decide(v, arrivals({0, 1, 2}), d);
    CHECK(d.actions.empty());
    CHECK(d.next_call == 60'000'000);

    // At 60 s: 1 GPU each (5 left). Gains (step(k) − step(k+1)) × remaining: A 0.375×200 = 75, B 1×100 = 100,
    // C 0.5×1 = 0.5. B→2 (B's gain now 0.25×100 = 25); A→2 (A: 0.125×200 = 25); A and B tie at 25, A is first:
    // A→3 (A: 0.0625×200 = 12.5); B→3 (B: 0.125×100 = 12.5); tie again, A→4. Counts A 4, B 3, C 1.
    // Placement, smallest first: C on the node with the most free (both 4: node 0), B on node 1 (4 free),
    // A on node 0's 3 and node 1's last 1.
    v.now_s = 60;
    d.clear();
    v.ev.calls.clear();
    p.decide(v, Changes{{}, {}, true, {}, {}}, d);
    CHECK(d.next_call == 120'000'000);
    const std::vector<Act> want = {{Action::Kind::Start, 2, 1, {{0, 1}}},
                                   {Action::Kind::Start, 1, 3, {{1, 3}}},
                                   {Action::Kind::Start, 0, 4, {{0, 3}, {1, 1}}}};
    CHECK(acts(d) == want);
    // Only predictions on 1 node so far (no job was weighed beyond 4 GPUs).
    for (const auto& c : v.ev.calls) CHECK(c.nodes == 1);

    // At 120 s, C has finished: A 1, B 1, 6 left. B→2 (100), A→2 (75), A→3 (25, tie first), B→3 (25), A→4
    // (12.5, tie first), B→4 (12.5). A keeps its 4 and its place; B grows from 3 to 4.
    v.run(0, {{0, 3}, {1, 1}});
    v.run(1, {{1, 3}});
    v.jobs[2].state = JobState::Finished;
    v.now_s = 120;
    d.clear();
    v.ev.calls.clear();
    const std::vector<JobIdx> done = {2};
    p.decide(v, Changes{{}, done, true, {}, {}}, d);
    const std::vector<Act> grow = {{Action::Kind::Resize, 1, 4, {}}};
    CHECK(acts(d) == grow);
    // A's gain from 4 to 5 GPUs (weighed while 1 GPU was left) asked for 5 GPUs on 2 nodes, filled 4 per node.
    bool asked = false;
    for (const auto& c : v.ev.calls) asked = asked || (c.job == 0 && c.gpus == 5 && c.nodes == 2);
    CHECK(asked);
}

TEST_CASE("optimus: a job without goodput data takes its trace gang first come, first served", "[schedule][elastic]") {
    FakeView v;
    const JobIdx r = v.add(0, 6, 600, false);  // rigid, 6 GPUs
    optimus_jobs(v);                           // jobs 1, 2, 3
    OptimusPolicy p(60'000'000);
    Decisions d;
    p.decide(v, arrivals({0, 1, 2, 3}), d);  // t = 0 is a tick
    // R 6 (2 left), A 1, B 1, C none. Both of its GPUs' gains are spent: no GPU left after the first round.
    const std::vector<Act> want = {{Action::Kind::Start, 1, 1, {{0, 1}}},
                                   {Action::Kind::Start, 2, 1, {{1, 1}}},
                                   {Action::Kind::Start, r, 6, {{0, 3}, {1, 3}}}};
    CHECK(acts(d) == want);
}

namespace {

/// afs's three jobs, list order A, B, C: remaining work 120, 60, 240 and goodputs per GPU count, so
/// r(k) = remaining / goodput: A 120, 60, 48, 40, 40 ...; B 60, 40, 34.29, 30 ...; C 240, 120, 80, 60, 48 ...
void afs_jobs(FakeView& v) {
    const JobIdx a = v.add(0, 1, 120, true), b = v.add(10, 1, 60, true), c = v.add(20, 1, 240, true);
    v.ev.goodputs[a] = {1, 2, 2.5, 3, 3, 3, 3, 3};
    v.ev.goodputs[b] = {1, 1.5, 1.75, 2, 2, 2, 2, 2};
    v.ev.goodputs[c] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (JobIdx j : {a, b, c}) {
        v.ev.profiles[j] = three_epochs();
        v.ev.steps[j] = std::vector<double>(8, 1.0);
    }
}

std::vector<int> counts(const Decisions& d, std::size_t jobs) {
    std::vector<int> n(jobs, 0);
    for (const Action& a : d.actions) n.at(a.job) = a.num_gpus;
    return n;
}

}  // namespace

TEST_CASE("afs: the tournament by hand, its strict > 2, list order by arrival", "[schedule][elastic]") {
    // concept, eps 0. 1: nobody holds GPUs, the larger s(1) wins: B (r 60 < 120 < 240). 2: A vs B: l = B,
    // 60/40 + 0 = 1.5 ≤ 2, A wins; A vs C (both at 0): A (120 < 240). 3: A vs B: 1.5 + 60/120 = 2, not > 2,
    // A; A vs C: 120/60 + 0 = 2, C. 4: A vs B: A (as in 3); A vs C: l = A, 2 + 120/240 = 2.5, A. 5: A vs B
    // (r 60 = 60, the candidate A is l): 60/48 + 40/60 = 1.92, B; B vs C: 1.5 + 0.5 = 2, C. 6: A vs B: B;
    // B vs C: 1.5 + 80/120 = 2.17, B. 7: A vs B: l = B, 40/34.29 + 48/60 = 1.97, A; A vs C: 1.25 + 80/120
    // = 1.92, C. 8: A; A vs C: 1.25 + 60/80 = 2, C. Counts A 2, B 2, C 4.
    FakeView v;
    afs_jobs(v);
    AfsPolicy p(AfsVariant::Concept, 0, 60'000'000);
    Decisions d;
    v.now_s = 7;  // afs decides at arrivals, not only on ticks
    p.decide(v, arrivals({0, 1, 2}), d);
    CHECK(counts(d, 3) == std::vector<int>{2, 2, 4});
    CHECK(d.next_call == 60'000'000);
    for (const Action& a : d.actions) {
        CHECK(a.kind == Action::Kind::Start);
        CHECK(a.placement_size == 0);  // the run's placer places them
    }
    // The default eps (1e-7 s on every r) changes no comparison here: the same counts.
    AfsPolicy q(AfsVariant::Concept, 1e-7, 60'000'000);
    d.clear();
    q.decide(v, arrivals({0, 1, 2}), d);
    CHECK(counts(d, 3) == std::vector<int>{2, 2, 4});

    // Running as decided, B finishes: A 2, C 4 running, 2 GPUs free. From 0 again: 1: A (r(1) 120 < 240).
    // 2: l = A, 120/60 = 2, not > 2: C. 3: l = A, 2 + 120/240 = 2.5: A. 4: l = A (60 < 240), 60/48 + 0.5 =
    // 1.75: C. 5: 1.25 + 80/120 = 1.92: C. 6: 1.25 + 60/80 = 2: C. 7: A (r 60) vs C (r 60), the candidate A
    // is l: 1.25 + 48/60 = 2.05: A. 8: l = A (48 < 60), 48/40 + 48/60 = 2: C. A 3, C 5: both grow.
    v.run(0, {{0, 2}});
    v.run(2, {{0, 2}, {1, 2}});
    v.jobs[1].state = JobState::Finished;
    d.clear();
    const std::vector<JobIdx> done = {1};
    p.decide(v, Changes{{}, done, false, {}, {}}, d);
    CHECK(counts(d, 3) == std::vector<int>{3, 0, 5});
    for (const Action& a : d.actions) CHECK(a.kind == Action::Kind::Resize);
}

TEST_CASE("afs: one-each gives every job a GPU before the tournament; concept need not", "[schedule][elastic]") {
    // X: 10 s of work at 1 sample/s, 2.5 on 2 GPUs (r 10, 4); Y: 1000 at 1 on any count (r 1000). On 2 GPUs,
    // concept: 1: X (r(1) 10 < 1000); 2: l = X, 10/4 = 2.5 > 2: X again, Y waits. one-each: X and Y one each.
    for (auto [variant, want] : {std::pair{AfsVariant::Concept, std::vector<int>{2, 0}},
                                 std::pair{AfsVariant::OneEach, std::vector<int>{1, 1}}}) {
        FakeView v(kTwoGpus);
        const JobIdx x = v.add(0, 1, 10, true), y = v.add(1, 1, 1000, true);
        v.jobs[x].max_gpus = v.jobs[y].max_gpus = 2;
        v.ev.goodputs[x] = {1, 2.5};
        v.ev.goodputs[y] = {1, 1};
        for (JobIdx j : {x, y}) {
            v.ev.profiles[j] = three_epochs();
            v.ev.steps[j] = {1, 1};
        }
        AfsPolicy p(variant, 0, 60'000'000);
        Decisions d;
        p.decide(v, arrivals({x, y}), d);
        CHECK(counts(d, 2) == want);
    }
}

TEST_CASE("afs: a rigid job takes its whole gang or nothing", "[schedule][elastic]") {
    // R: rigid, 4 GPUs, 400 iterations at 1/s per GPU: r(4) = 100. B: elastic as in afs_jobs (r 60, 40, 34.29,
    // 30). 1: both at 0, B (r(1) 60 < r(4) 100). 2: l = B, 60/40 + 0 = 1.5: R takes 4. 3-5: R is at its gang,
    // B takes the rest. Counts R 4, B 4.
    FakeView v;
    const JobIdx r = v.add(0, 4, 400, false), b = v.add(10, 1, 60, true);
    v.ev.goodputs[b] = {1, 1.5, 1.75, 2, 2, 2, 2, 2};
    v.ev.steps[b] = std::vector<double>(8, 1.0);
    v.ev.profiles[b] = three_epochs();
    AfsPolicy p(AfsVariant::Concept, 0, 60'000'000);
    Decisions d;
    p.decide(v, arrivals({r, b}), d);
    CHECK(counts(d, 2) == std::vector<int>{4, 4});
}

TEST_CASE("elastic policies: registered with their parameters and defaults", "[schedule][elastic]") {
    const auto& optimus = builtin_policies().find("optimus");
    REQUIRE(optimus.params.size() == 1u);
    CHECK(optimus.params[0].name == "interval");
    CHECK(optimus.params[0].default_value == "60");
    const auto& afs = builtin_policies().find("afs");
    REQUIRE(afs.params.size() == 3u);
    CHECK(afs.params[0].name == "variant");
    CHECK(afs.params[0].default_value == "concept");
    CHECK(afs.params[1].name == "eps");
    CHECK(afs.params[1].default_value == "1e-7");
    CHECK(afs.params[2].name == "interval");
}

}  // namespace dlsim::test::elastic_policies_tests
