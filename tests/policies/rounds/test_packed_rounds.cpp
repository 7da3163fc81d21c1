// Gavel's space-sharing policies (policies/rounds/packed_share.hpp, policies/rounds/packed_rounds.hpp):
// gavel-las and fifo-het with space_sharing=true (Gavel's max_min_fairness_packed and fifo_packed).
// Hand-worked on one type "g"; models A, B, C run 1 iteration/s alone, so iterations = duration.
#include "models/base/input_error.hpp"
#include "models/base/random.hpp"
#include "models/cluster.hpp"
#include "models/profile.hpp"
#include "models/rate_model.hpp"
#include "policies/rounds/fifo_share.hpp"
#include "policies/rounds/max_min_share.hpp"
#include "policies/rounds/packed_share.hpp"
#include "tests/support/engine_support.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <chrono>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::packed_rounds_tests {

namespace {

/// A, B, C at 1 it/s alone on g; A next to B: A `ab`, B `ba` it/s; C pairs with nobody.
std::string pair_profile(double ab, double ba) {
    return fmt::format(R"({{"models": {{
        "A": {{"throughput": {{"g": 1}}, "pairs": {{"g": {{"B": [{}, {}]}}}}}},
        "B": {{"throughput": {{"g": 1}}}},
        "C": {{"throughput": {{"g": 1}}}}}}}})",
                       ab, ba);
}

/// Two single-GPU jobs on one type with `gpus` GPUs, alone rates 1, the pair (0, 1) at (pa, pb).
PackedShareInput two_jobs(double gpus, double pa, double pb) {
    PackedShareInput in;
    in.singles.capacities = {gpus};
    in.singles.jobs = {{0, 1, 1.0, 100, 0}, {1, 1, 1.0, 100, 0}};
    in.singles.throughputs = {1.0, 1.0};
    in.pairs = {{0, 1}};
    in.pair_rates = {pa, pb};
    return in;
}

RunOutcome run_with(const RunInputs& in, const std::string& policy, std::initializer_list<std::string> params) {
    RunConfig c;
    c.policy = policy;
    for (const std::string& p : params) add_param(c, p);
    c.out.clear();
    return simulate(in, c);
}

}  // namespace

TEST_CASE("packed max-min LP: packing beats time-sharing (pair rates 0.7 / 0.6 of alone)", "[unit][gavel]") {
    // 1 GPU. Units a, b, P. θ_a = x_a + 0.7·x_P, θ_b = x_b + 0.6·x_P; x_a + x_b + x_P <= 1 (the GPU).
    // x_P = 1 gives min(0.7, 0.6) = 0.6, but b (the slower in the pair) can take time alone: with x_a = 0,
    // x_b = 1 − x_P: θ_a = 0.7·x_P, θ_b = 1 − 0.4·x_P, equal at x_P = 10/11: z* = 7/11 (> 0.6 and > the 1/2
    // of time-sharing). Unique: any x_a > 0 lowers x_P or x_b.
    PackedMaxMinShare lp(0);
    const auto in = two_jobs(1, 0.7, 0.6);
    const PackedShare& x = lp.allocate(in, {});
    CHECK(x.objective == Approx(7.0 / 11).margin(1e-6));
    CHECK(x.x_pair[0] == Approx(10.0 / 11).margin(1e-6));
    CHECK(x.x_single[0] == Approx(0).margin(1e-6));
    CHECK(x.x_single[1] == Approx(1.0 / 11).margin(1e-6));
    CHECK(x.pairs_used == 1);
    // Symmetric 0.75 / 0.75: θ_a = 0.75·x_P, θ_b = 1 − 0.25·x_P meet at x_P = 1: the pair the whole time.
    const PackedShare& y = lp.allocate(two_jobs(1, 0.75, 0.75), {});
    CHECK(y.objective == Approx(0.75).margin(1e-6));
    CHECK(y.x_pair[0] == Approx(1).margin(1e-6));
}

TEST_CASE("packed max-min LP: a pair below time-sharing (0.4 / 0.4) is not used", "[unit][gavel]") {
    // Normalised sum 0.8 <= 1: no column; X is the unpacked one: x = 1/2 each, z* = 1/2.
    PackedMaxMinShare lp(0);
    const PackedShare& x = lp.allocate(two_jobs(1, 0.4, 0.4), {});
    CHECK(x.pairs_used == 0);
    CHECK(x.objective == Approx(0.5).margin(1e-6));
    CHECK(x.x_single[0] == Approx(0.5).margin(1e-6));
    CHECK(x.x_single[1] == Approx(0.5).margin(1e-6));
    CHECK(x.x_pair[0] == 0);
}

TEST_CASE("packed max-min LP: the centre tie-break spreads the jobs that do not pin z*, pairs included",
          "[unit][gavel]") {
    // Types V, K with room for everyone (10^6 GPUs each). A: rates (1, 1), T^prop 1, at most level 1: it pins
    // z* = 1 and must run full time, on either type (alone; no pair of A is a column). B and C: rates (3, 1),
    // T^prop 2, level 3/2 alone on V; their pair runs on V only, at (2.4, 2.4): normalised sum 1.6, a column.
    PackedShareInput in;
    in.singles.capacities = {1e6, 1e6};
    in.singles.jobs = {{0, 1, 1.0, 100, 0}, {1, 1, 1.0, 100, 0}, {2, 1, 1.0, 100, 0}};
    in.singles.throughputs = {1, 1, 3, 1, 3, 1};
    in.pairs = {{1, 2}};
    in.pair_rates = {2.4, 2.4, 0, 0};
    // Vertex (phase 2 maximises the sum of levels): B and C alone on V, the pair unused.
    PackedMaxMinShare vertex(0, true, false);
    const PackedShare& v = vertex.allocate(in, {});
    CHECK(v.objective == Approx(1).margin(1e-9));
    CHECK(v.x_single[2] == Approx(1).margin(1e-9));
    CHECK(v.x_single[4] == Approx(1).margin(1e-9));
    CHECK(v.x_pair[0] == 0);
    // Centre: A splits its full time evenly (its two columns are symmetric); B and C are symmetric, spread over
    // V, K and the pair; every level stays at least z*·(1 − 1e-6).
    PackedMaxMinShare centre(0, true, true);
    const PackedShare& c = centre.allocate(in, {});
    CHECK(c.objective == Approx(1).margin(1e-9));
    CHECK(c.x_single[0] == Approx(0.5).margin(1e-5));
    CHECK(c.x_single[1] == Approx(0.5).margin(1e-5));
    CHECK(c.x_single[2] == Approx(c.x_single[4]).margin(1e-9));
    CHECK(c.x_single[3] == Approx(c.x_single[5]).margin(1e-9));
    CHECK(c.x_pair[0] > 0.01);
    CHECK(c.x_pair[1] == 0);  // the pair cannot run on K
    const double level_b = (3 * c.x_single[2] + c.x_single[3] + 2.4 * c.x_pair[0]) / 2;
    CHECK(level_b >= 1 - 1e-6);
    CHECK(level_b < 1.5 - 0.01);  // strictly inside: below its vertex level
    CHECK(c.x_single[2] + c.x_single[3] + c.x_pair[0] < 1);
    // B's stationarity on the face (the pair's terms are B's and C's, equal by symmetry): with u = 1 − Σ x and
    // v = 3·x_V + x_K + 2.4·x_P − 2·(1 − 1e-6): 1/x_V − 1/u + 3/v = 0 and 1/x_K − 1/u + 1/v = 0 (capacity terms
    // are 10^-6 of these).
    const double u = 1 - c.x_single[2] - c.x_single[3] - c.x_pair[0];
    const double w = 3 * c.x_single[2] + c.x_single[3] + 2.4 * c.x_pair[0] - 2 * (1 - 1e-6);
    CHECK(1 / c.x_single[2] - 1 / u + 3 / w == Approx(0).margin(1e-3));
    CHECK(1 / c.x_single[3] - 1 / u + 1 / w == Approx(0).margin(1e-3));
}

TEST_CASE("packed max-min LP: the centre leaves out a type without GPUs and centres the rest", "[unit][gavel]") {
    // The instance above (V, K) and the same with a third type Z that has no GPUs, where every job and the pair
    // could run. Z's columns are held at 0 by its capacity row, so the face has no interior over them: the
    // centre must leave them out and land where it lands without Z, not fall back to the vertex.
    const auto instance = [](bool with_z) {
        PackedShareInput in;
        in.singles.capacities = with_z ? std::vector<double>{1e6, 1e6, 0} : std::vector<double>{1e6, 1e6};
        in.singles.jobs = {{0, 1, 1.0, 100, 0}, {1, 1, 1.0, 100, 0}, {2, 1, 1.0, 100, 0}};
        in.singles.throughputs =
            with_z ? std::vector<double>{1, 1, 5, 3, 1, 5, 3, 1, 5} : std::vector<double>{1, 1, 3, 1, 3, 1};
        in.pairs = {{1, 2}};
        in.pair_rates = with_z ? std::vector<double>{2.4, 2.4, 0, 0, 4, 4} : std::vector<double>{2.4, 2.4, 0, 0};
        return in;
    };
    PackedMaxMinShare two(0, true, true), three(0, true, true);
    const PackedShare& a = two.allocate(instance(false), {});
    const PackedShare& b = three.allocate(instance(true), {});
    CHECK(b.objective == Approx(a.objective).margin(1e-12));
    REQUIRE(a.x_pair[0] > 0.01);  // the centre of the two-type instance (previous test)
    for (std::size_t m = 0; m < 3; ++m) {
        CHECK(b.x_single[m * 3 + 2] == 0);
        for (std::size_t t = 0; t < 2; ++t) CHECK(b.x_single[m * 3 + t] == Approx(a.x_single[m * 2 + t]).margin(1e-9));
    }
    CHECK(b.x_pair[0] == Approx(a.x_pair[0]).margin(1e-9));
    CHECK(b.x_pair[2] == 0);
}

TEST_CASE("packed max-min LP: X is feasible and never fairer without pairs (seeded random instances)",
          "[unit][gavel]") {
    Rng rng(7, "packed-lp-test");
    for (int instance = 0; instance < 30; ++instance) {
        INFO("instance " << instance);
        const std::size_t types = 3, jobs = 4 + rng.below(20);
        PackedShareInput in;
        in.singles.capacities = {double(1 + rng.below(4)), double(1 + rng.below(4)), double(rng.below(3))};
        std::vector<MaxMinJob> plain;
        for (std::uint32_t m = 0; m < jobs; ++m) {
            const int gang = rng.below(4) == 0 ? 2 : 1;
            in.singles.jobs.push_back({m, gang, 1.0, 100, 0});
            MaxMinJob pj{gang, 1.0, {}};
            for (std::size_t t = 0; t < types; ++t) {
                const double thr = rng.below(5) == 0 ? 0.0 : 0.5 + rng.uniform() * 3;
                in.singles.throughputs.push_back(thr);
                pj.throughputs.push_back(thr);
            }
            plain.push_back(pj);
        }
        for (std::uint32_t a = 0; a < jobs; ++a)
            for (std::uint32_t b = a + 1; b < jobs; ++b) {
                if (in.singles.jobs[a].gang != 1 || in.singles.jobs[b].gang != 1 || rng.below(2) == 0) continue;
                in.pairs.emplace_back(a, b);
                for (std::size_t t = 0; t < types; ++t) {
                    in.pair_rates.push_back(in.singles.throughput(a, t) * (0.3 + 0.6 * rng.uniform()));
                    in.pair_rates.push_back(in.singles.throughput(b, t) * (0.3 + 0.6 * rng.uniform()));
                }
            }
        const double unpacked = solve_max_min_share(plain, in.singles.capacities, ThroughputMode::Measured).z;
        for (const std::size_t k : {std::size_t{0}, std::size_t{2}}) {
            INFO("max_partners " << k);
            PackedMaxMinShare lp(k);
            const PackedShare& x = lp.allocate(in, {});
            CHECK(x.objective >= unpacked - 1e-7);
            std::vector<double> share(jobs, 0.0), used(types, 0.0);
            for (std::size_t m = 0; m < jobs; ++m)
                for (std::size_t t = 0; t < types; ++t) {
                    const double v = x.x_single[m * types + t];
                    CHECK(v >= 0);
                    share[m] += v;
                    used[t] += v * in.singles.jobs[m].gang;
                }
            for (std::size_t p = 0; p < in.pairs.size(); ++p)
                for (std::size_t t = 0; t < types; ++t) {
                    const double v = x.x_pair[p * types + t];
                    CHECK(v >= 0);
                    if (v > 0) CHECK(in.normalised_sum(p, t) > 0);
                    share[in.pairs[p].first] += v;
                    share[in.pairs[p].second] += v;
                    used[t] += v;
                }
            for (std::size_t m = 0; m < jobs; ++m) CHECK(share[m] <= 1 + 1e-7);
            for (std::size_t t = 0; t < types; ++t) CHECK(used[t] <= in.singles.capacities[t] + 1e-7);
        }
    }
}

TEST_CASE("gavel-las space_sharing: two jobs packed on one GPU for a round", "[schedule][gavel]") {
    // 2 GPUs. a (A, 300 it), b (B, 270 it), c (C, 360 it) at 0; A with B: 0.75 / 0.75.
    // X (capacity 2): the pair P at x_P, a and b alone at e each, c at x_c: θ_a = θ_b = 0.75·x_P + e with
    // x_P = 1 − e; 1 + e + x_c <= 2: z = min(0.75 + 0.25·e, 1 − e): e = 0.2, z* = 0.8, x_P = x_c = 0.8.
    // t=0: shares a, b, c seeded 180 (sum 540), P seeded 180 outside the sum: p_P = p_c = 0.8·3 = 2.4,
    // p_a = p_b = 0.6: P and c run. a and b packed at 0.75 it/s: micro-tasks ⌊270⌋/0.75 = 360 s; b
    // finishes at 360, a has 300 − 270 = 30 it left; c finishes at 360.
    // t=360: X recomputed (no reset at a time > 0 yet): a alone, x = 1, keeps its GPU: done at 390.
    // Without packing: x = 2/3 each; a and b run first (trace order), the round ends at 300 (a's 300 s);
    // c then runs 300-660.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), pair_profile(0.75, 0.75),
                                     "job_id,submit_time,num_gpus,duration,model\na,0,1,300,A\nb,0,1,270,B\n"
                                     "c,0,1,360,C\n");
    const auto packed = run_with(in, "gavel-las", {"gavel_compat=true", "space_sharing=true"});
    CHECK(start_s(packed, 0) == 0);
    CHECK(start_s(packed, 1) == 0);
    CHECK(start_s(packed, 2) == 0);
    CHECK(finish_s(packed, 1) == 360);
    CHECK(finish_s(packed, 2) == 360);
    CHECK(finish_s(packed, 0) == 390);
    CHECK(packed.jobs[0].preemptions == 0);
    // The event-driven mode, same X: at t=0 the four units (P included, created by the first X) are seeded
    // 180 s each (sum 720): p_P = p_c = 0.8·4 = 3.2 > p_a = p_b = 0.8: the same round, a started by the
    // placer and b packed onto it; at 360 (b, c finish, the boundary) a is alone with x = 1 and keeps its GPU.
    const auto events = run_with(in, "gavel-las", {"space_sharing=true"});
    CHECK(finish_s(events, 1) == 360);
    CHECK(finish_s(events, 2) == 360);
    CHECK(finish_s(events, 0) == 390);
    CHECK(events.jobs[0].preemptions == 0);
    const auto plain = run_with(in, "gavel-las", {"gavel_compat=true"});
    CHECK(finish_s(plain, 0) == 300);
    CHECK(finish_s(plain, 1) == 270);
    CHECK(start_s(plain, 2) == 300);
    CHECK(finish_s(plain, 2) == 660);
}

TEST_CASE("fifo-het space_sharing packs the waiting job only when the normalised sum exceeds 1.5",
          "[schedule][gavel]") {
    // 1 GPU: a (A) takes it (FIFO); b (B) waits. With A/B at 0.8 / 0.8 (sum 1.6 > 1.5) b is packed onto a;
    // both do ⌊0.8·360⌋ = 288 it in 360 s: 288 it each finish together at 360. At 0.7 / 0.7 (1.4): no
    // packing, a runs 0-288 and b 288-576.
    const char* trace = "job_id,submit_time,num_gpus,duration,model\na,0,1,288,A\nb,0,1,288,B\n";
    const auto over = run_with(inputs_from_text(homogeneous_cluster_json(1, 1), pair_profile(0.8, 0.8), trace),
                               "fifo-het", {"gavel_compat=true", "space_sharing=true"});
    CHECK(start_s(over, 1) == 0);
    CHECK(finish_s(over, 0) == 360);
    CHECK(finish_s(over, 1) == 360);
    const auto under = run_with(inputs_from_text(homogeneous_cluster_json(1, 1), pair_profile(0.7, 0.7), trace),
                                "fifo-het", {"gavel_compat=true", "space_sharing=true"});
    CHECK(finish_s(under, 0) == 288);
    CHECK(start_s(under, 1) == 288);
    CHECK(finish_s(under, 1) == 576);

    // The allocation itself: the best partner above the threshold, FIFO order, the first without one stops.
    auto fifo = [] { return std::make_unique<FifoShare>(true, FifoPick::Intended, std::vector<std::uint32_t>{0}, 0); };
    FifoPackedShare alloc(fifo(), 1.5);
    PackedShareInput in = two_jobs(1, 0.8, 0.8);
    const std::vector<Time> submit = {0, 0};
    const PackedShare& x = alloc.allocate(in, submit);
    CHECK(x.x_single == std::vector<double>{0.0, 0.0});
    CHECK(x.x_pair == std::vector<double>{1.0});
    in.pair_rates = {0.75, 0.75};  // exactly 1.5: not above
    const PackedShare& y = alloc.allocate(in, submit);
    CHECK(y.x_single == std::vector<double>{1.0, 0.0});
    CHECK(y.x_pair == std::vector<double>{0.0});
}

TEST_CASE("gavel-las space_sharing: a negative max_partners names the policy and the parameter", "[bad-input][gavel]") {
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), pair_profile(0.8, 0.8),
                                     "job_id,submit_time,num_gpus,duration,model\na,0,1,10,A\n");
    CHECK_THROWS_WITH(run_with(in, "gavel-las", {"gavel_compat=true", "space_sharing=true", "max_partners=-1"}),
                      Catch::Contains("policy gavel-las: parameter max_partners"));
}

TEST_CASE("packed max-min LP at Gavel's load (150 single-GPU jobs x 3 types): z* grows with max_partners",
          "[slow][unit][gavel]") {
    // The candidate sets are nested (the k best partners by one order), so z* cannot fall as k grows, and
    // pairs never make z* lower than time-sharing alone (k = 0 there means no limit: the largest set).
    // Prints the cold-solve times (the report's figures).
    const Cluster cluster = load_cluster(std::string(DLSIM_SOURCE_DIR) + "/models/clusters/gavel_compat_108.json");
    const ProfileSet profiles = load_profiles(std::string(DLSIM_SOURCE_DIR) + "/models/profiles/gavel.json");
    const RateModel rates(cluster, profiles);
    const std::size_t types = cluster.gpu_types.size();
    Rng rng(1, "packed-timing");
    PackedShareInput in;
    for (std::size_t t = 0; t < types; ++t) in.singles.capacities.push_back(cluster.gpus_of_type(t));
    std::vector<ModelIdx> model;
    while (model.size() < 150) {
        const auto m = static_cast<ModelIdx>(rng.below(profiles.models.size()));
        if (!(rates.single(m, 0) > 0)) continue;
        in.singles.jobs.push_back({static_cast<std::uint32_t>(model.size()), 1, 1.0, 1e6, 0});
        for (std::size_t t = 0; t < types; ++t) in.singles.throughputs.push_back(rates.single(m, t));
        model.push_back(m);
    }
    for (std::uint32_t a = 0; a < model.size(); ++a)
        for (std::uint32_t b = a + 1; b < model.size(); ++b) {
            std::vector<double> r(2 * types, 0.0);
            double best = 0;
            for (std::size_t t = 0; t < types; ++t)
                if (const auto p = rates.pair(model[a], model[b], t); p && (*p)[0] > 0 && (*p)[1] > 0) {
                    r[2 * t] = (*p)[0];
                    r[2 * t + 1] = (*p)[1];
                    best = std::max(
                        best, r[2 * t] / in.singles.throughput(a, t) + r[2 * t + 1] / in.singles.throughput(b, t));
                }
            if (!(best > 1)) continue;
            in.pairs.emplace_back(a, b);
            in.pair_rates.insert(in.pair_rates.end(), r.begin(), r.end());
        }
    double previous = 1e300;
    for (const std::size_t k : {std::size_t{0}, std::size_t{32}, std::size_t{16}, std::size_t{8}, std::size_t{4}}) {
        PackedMaxMinShare lp(k);
        const auto t0 = std::chrono::steady_clock::now();
        const PackedShare& x = lp.allocate(in, {});
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::size_t used = 0;
        for (double v : x.x_pair) used += v > 1e-9;
        fmt::print("max_partners {}: {} candidate pairs, {} columns, z* {:.6f}, pair cells > 0: {}, {:.3f} s\n", k,
                   in.pairs.size(), x.pairs_used, x.objective, used, secs);
        CHECK(x.objective <= previous + 1e-7);
        previous = x.objective;
    }
    PackedShareInput alone = in;
    alone.pairs.clear();
    alone.pair_rates.clear();
    PackedMaxMinShare unpacked(0);
    CHECK(unpacked.allocate(alone, {}).objective <= previous + 1e-7);
}

TEST_CASE("packed max-min LP: a start from the last call's basis reaches the cold optimum (arrivals, departures)",
          "[unit][gavel]") {
    // 15 calls; between calls two jobs leave and two arrive (new keys), so rows, single columns and pair
    // columns come and go (a pair and its rates are fixed by the two jobs, as a profile's pair table does).
    // Warm and cold must agree on z* (unique even where X is not); most warm calls must really start warm.
    Rng rng(11, "packed-warm-test");
    const std::size_t types = 3;
    struct Job {
        std::uint32_t key;
        std::vector<double> thr;
    };
    std::vector<Job> present;
    std::uint32_t next_key = 0;
    const auto arrive = [&] {
        Job j{next_key++, {}};
        for (std::size_t t = 0; t < types; ++t) j.thr.push_back(rng.below(6) == 0 ? 0.0 : 0.5 + 3 * rng.uniform());
        present.push_back(j);
    };
    for (int i = 0; i < 30; ++i) arrive();
    PackedMaxMinShare warm(4), cold(4, false);
    const int calls = 15;
    for (int call = 0; call < calls; ++call) {
        INFO("call " << call);
        if (call > 0) {
            for (int d = 0; d < 2; ++d)
                present.erase(present.begin() + static_cast<std::ptrdiff_t>(rng.below(present.size())));
            for (int a = 0; a < 2; ++a) arrive();
        }
        PackedShareInput in;
        in.singles.capacities = {4, 3, 2};
        for (const Job& j : present) {
            in.singles.jobs.push_back({j.key, 1, 1.0, 100, 0});
            in.singles.throughputs.insert(in.singles.throughputs.end(), j.thr.begin(), j.thr.end());
        }
        for (std::uint32_t a = 0; a < present.size(); ++a)
            for (std::uint32_t b = a + 1; b < present.size(); ++b) {
                Rng pair_rng(present[a].key * 1000 + present[b].key, "pair");
                if (pair_rng.below(3) != 0) continue;
                in.pairs.emplace_back(a, b);
                for (std::size_t t = 0; t < types; ++t) {
                    in.pair_rates.push_back(present[a].thr[t] * (0.4 + 0.5 * pair_rng.uniform()));
                    in.pair_rates.push_back(present[b].thr[t] * (0.4 + 0.5 * pair_rng.uniform()));
                }
            }
        const double z_cold = cold.allocate(in, {}).objective;
        const double z_warm = warm.allocate(in, {}).objective;
        CHECK(z_cold > 0);
        CHECK(z_warm == Approx(z_cold).epsilon(1e-9));
    }
    CHECK(cold.cold_starts() == static_cast<std::size_t>(calls));
    CHECK(warm.cold_starts() <= 3);  // the first call, and at most two lost bases
}

}  // namespace dlsim::test::packed_rounds_tests
