// The synthetic Gavel-mix trace (traces/generate/synthetic.hpp): deterministic in its options, and the
// published job-size and duration mix over 100,000 jobs.
#include "models/base/input_error.hpp"
#include "traces/generate/synthetic.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdlib>
#include <string>

using namespace dlsim;

namespace dlsim::test::synthetic_tests {

TEST_CASE("generate_gavel_mix: deterministic in its options", "[unit]") {
    GavelMixOptions o;
    o.num_jobs = 500;
    o.jobs_per_hour = 30;
    o.seed = 7;
    const Trace a = generate_gavel_mix(o), b = generate_gavel_mix(o);
    REQUIRE(a.jobs.size() == 500u);
    REQUIRE(b.jobs.size() == 500u);
    for (std::size_t i = 0; i < a.jobs.size(); ++i) {
        REQUIRE(a.jobs[i].id == b.jobs[i].id);
        REQUIRE(a.jobs[i].submit_time == b.jobs[i].submit_time);
        REQUIRE(a.jobs[i].num_gpus == b.jobs[i].num_gpus);
        REQUIRE(a.jobs[i].duration == b.jobs[i].duration);
    }
    CHECK(a.jobs[0].submit_time == 0.0);
    CHECK(a.jobs[0].id == "0");
    CHECK(a.jobs[499].id == "499");

    o.seed = 8;
    const Trace c = generate_gavel_mix(o);
    CHECK(c.jobs[1].submit_time != a.jobs[1].submit_time);

    // Adding models leaves arrivals, sizes and durations unchanged (separate streams).
    o.seed = 7;
    o.models = {"m1", "m2"};
    const Trace d = generate_gavel_mix(o);
    int m1 = 0;
    for (std::size_t i = 0; i < d.jobs.size(); ++i) {
        REQUIRE(d.jobs[i].submit_time == a.jobs[i].submit_time);
        REQUIRE(d.jobs[i].num_gpus == a.jobs[i].num_gpus);
        REQUIRE(d.jobs[i].duration == a.jobs[i].duration);
        const std::string& name = d.strings[d.jobs[i].model];
        REQUIRE((name == "m1" || name == "m2"));
        m1 += name == "m1";
    }
    CHECK(std::abs(m1 - 250) < 60);  // SE = 11
    CHECK(a.strings[a.jobs[0].model].empty());

    o.num_jobs = 0;
    CHECK_THROWS_AS(generate_gavel_mix(o), InputError);
    o.num_jobs = 1;
    o.jobs_per_hour = 0;
    CHECK_THROWS_AS(generate_gavel_mix(o), InputError);
}

TEST_CASE("generate_gavel_mix: published statistics over 100k jobs", "[unit]") {
    GavelMixOptions o;
    o.num_jobs = 100'000;
    o.jobs_per_hour = 240;  // one per 15 s
    o.seed = 1;
    const Trace t = generate_gavel_mix(o);
    REQUIRE(t.jobs.size() == o.num_jobs);
    std::array<int, 9> by_gpus{};
    int long_jobs = 0, bad_gpus = 0, bad_duration = 0, backwards = 0, not_whole_us = 0;
    double prev = 0;
    for (const auto& j : t.jobs) {
        const bool ok = j.num_gpus == 1 || j.num_gpus == 2 || j.num_gpus == 4 || j.num_gpus == 8;
        bad_gpus += !ok;
        if (ok) ++by_gpus[static_cast<std::size_t>(j.num_gpus)];
        // 60·10^1.5 = 1897.37 s .. 60·10^4 = 600000 s
        bad_duration += j.duration < 1897.36 || j.duration > 600000.0;
        long_jobs += j.duration > 60e3;
        backwards += j.submit_time < prev;
        not_whole_us += j.submit_time != std::round(j.submit_time * 1e6) / 1e6;
        prev = j.submit_time;
    }
    CHECK(bad_gpus == 0);
    CHECK(bad_duration == 0);
    CHECK(backwards == 0);
    CHECK(not_whole_us == 0);
    const double n = static_cast<double>(o.num_jobs);
    CHECK(by_gpus[1] / n == Approx(0.70).margin(0.01));
    CHECK(by_gpus[2] / n == Approx(0.10).margin(0.01));
    CHECK(by_gpus[4] / n == Approx(0.15).margin(0.01));
    CHECK(by_gpus[8] / n == Approx(0.05).margin(0.01));
    CHECK(long_jobs / n == Approx(0.2).margin(0.01));
    // n - 1 exponential gaps: rate estimate within 2 % (SE 0.32 %).
    const double rate_per_hour = (n - 1) / t.jobs.back().submit_time * 3600.0;
    CHECK(rate_per_hour == Approx(240.0).epsilon(0.02));
}

}  // namespace dlsim::test::synthetic_tests
