// The event queue (sim/event_queue.hpp): the order events pop in, against orders worked by hand and an
// ordered-set reference.
#include "models/base/random.hpp"
#include "sim/event_queue.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

using namespace dlsim;

namespace dlsim::test::event_queue_tests {

TEST_CASE("EventQueue: same instant pops Completion, Failure, Arrival, Timer", "[unit]") {
    EventQueue q;
    q.push(5, Phase::Timer, 0, 0);
    q.push(5, Phase::Arrival, 1, 0);
    q.push(5, Phase::Completion, 2, 0);
    q.push(5, Phase::Failure, 3, 0);
    q.push(3, Phase::Timer, 4, 0);  // earlier time beats every phase
    q.push(5, Phase::Arrival, 5, 0);
    q.push(5, Phase::Completion, 6, 0);
    REQUIRE(q.size() == 7u);

    std::vector<std::uint32_t> jobs;
    std::vector<Time> times;
    while (!q.empty()) {
        const Event e = q.pop();
        jobs.push_back(e.job);
        times.push_back(e.time);
    }
    // t=3 first; then at t=5: completions (2, 6 by insertion), failure 3, arrivals (1, 5), timer 0.
    CHECK(jobs == std::vector<std::uint32_t>{4, 2, 6, 3, 1, 5, 0});
    CHECK(times == std::vector<Time>{3, 5, 5, 5, 5, 5, 5});
}

TEST_CASE("EventQueue: same time and phase pop in insertion order, seq is a global counter", "[unit]") {
    EventQueue q;
    for (std::uint32_t j = 0; j < 20; ++j) q.push(100, Phase::Arrival, j, j * 7);
    for (std::uint32_t j = 0; j < 20; ++j) {
        REQUIRE(q.top().job == j);
        const Event e = q.pop();
        CHECK(e.job == j);
        CHECK(e.seq == j);
        CHECK(e.generation == j * 7);
        CHECK(e.phase == Phase::Arrival);
    }
    CHECK(q.empty());
    q.push(1, Phase::Timer, 99, 0);
    CHECK(q.pop().seq == 20u);  // the counter keeps going after the queue empties
}

TEST_CASE("EventQueue: interleaved pushes and pops", "[unit]") {
    EventQueue q;
    q.push(10, Phase::Arrival, 1, 0);
    q.push(20, Phase::Completion, 2, 0);
    CHECK(q.pop().job == 1u);  // (10, Arrival)
    q.push(20, Phase::Arrival, 3, 0);
    q.push(15, Phase::Timer, 4, 0);
    q.push(20, Phase::Completion, 5, 0);  // same key as job 2 but later seq
    CHECK(q.pop().job == 4u);             // (15, Timer)
    q.push(20, Phase::Completion, 6, 0);
    CHECK(q.pop().job == 2u);
    q.push(18, Phase::Arrival, 7, 0);  // earlier than everything left
    CHECK(q.pop().job == 7u);
    CHECK(q.pop().job == 5u);
    CHECK(q.pop().job == 6u);
    CHECK(q.pop().job == 3u);
    CHECK(q.empty());
}

TEST_CASE("EventQueue: random interleaved pushes and pops match an ordered-set reference", "[unit]") {
    // Reference: a std::set ordered by (time, phase, insertion number). Fixed seed.
    Rng rng(12345);
    EventQueue q;
    std::set<std::tuple<Time, int, std::uint64_t, std::uint32_t>> ref;
    std::uint64_t pushed = 0;
    Time now = 0;
    for (int round = 0; round < 300; ++round) {
        const int pushes = static_cast<int>(rng.below(6));
        for (int k = 0; k < pushes; ++k) {
            const Time t = now + static_cast<Time>(rng.below(4));  // never before the current instant
            const int ph = static_cast<int>(rng.below(4));
            const auto job = static_cast<std::uint32_t>(pushed);
            q.push(t, static_cast<Phase>(ph), job, 0);
            ref.emplace(t, ph, pushed++, job);
        }
        const int pops = static_cast<int>(rng.below(5));
        for (int k = 0; k < pops && !q.empty(); ++k) {
            const Event e = q.pop();
            const auto expect = *ref.begin();
            ref.erase(ref.begin());
            REQUIRE(e.time == std::get<0>(expect));
            REQUIRE(static_cast<int>(e.phase) == std::get<1>(expect));
            REQUIRE(e.seq == std::get<2>(expect));
            REQUIRE(e.job == std::get<3>(expect));
            now = e.time;
        }
        REQUIRE(q.size() == ref.size());
    }
    while (!q.empty()) {
        const Event e = q.pop();
        REQUIRE(e.job == std::get<3>(*ref.begin()));
        ref.erase(ref.begin());
    }
    CHECK(ref.empty());
    CHECK(pushed > 500u);
}

}  // namespace dlsim::test::event_queue_tests
