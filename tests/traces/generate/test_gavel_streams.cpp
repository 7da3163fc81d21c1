// Gavel's own job stream (`--gavel-paper --gavel-streams`): CPython's random.Random reproduced draw for draw, and
// the jobs of Gavel's seed-0 run that the authors' published means are taken over (traces/generate/gavel_paper.hpp).
#include "traces/generate/gavel_paper.hpp"
#include "traces/generate/python_random.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <string>

using namespace dlsim;

namespace dlsim::test::gavel_streams_tests {

TEST_CASE("gavel streams: CPython's random.Random, value for value", "[traces]") {
    // Reference values printed by CPython 3.11: random.Random(s) then the calls named.
    PythonRandom two(2);
    CHECK(two.random() == 0.9560342718892494);
    CHECK(two.random() == 0.9478274870593494);
    CHECK(two.getrandbits(5) == 1U);
    CHECK(two.getrandbits(32) == 393353683U);
    CHECK(PythonRandom(0).random() == 0.8444218515250481);
    CHECK(PythonRandom((std::uint64_t{1} << 40) + 7).random() == 0.6137037779936511);  // a two-word seed
    PythonRandom three(3);
    CHECK(three.uniform(1.5, 3) == 1.8569469406378372);
    CHECK(three.randbelow(26) == 17U);
}

namespace {

/// Gavel's 26 templates: every one at 1 GPU (rate 10), the 19 distributed ones (ResNet-18/50, Transformer, LM:
/// the first 19 of JobTable) also at 2, 4 and 8 GPUs (rates 20, 40, 80). Listed in reverse, so the stream must
/// follow JobTable's order, not the profile's.
GavelPaperOptions gavel_seed0(bool multi_gpu) {
    GavelPaperOptions o;
    o.num_jobs = 5000;
    o.jobs_per_hour = 0.2;
    o.seed = 0;
    o.multi_gpu = multi_gpu;
    o.gavel_streams = true;
    for (std::size_t p = kGavelJobTable.size(); p-- > 0;)
        o.models.push_back(
            {kGavelJobTable[p], p < 19 ? std::array<double, 4>{10, 20, 40, 80} : std::array<double, 4>{10, 0, 0, 0}});
    return o;
}

}  // namespace

TEST_CASE("gavel streams: the jobs and arrivals of Gavel's seed-0 run", "[traces]") {
    const Trace t = generate_gavel_paper(gavel_seed0(true));
    REQUIRE(t.jobs.size() == 5000);
    // The first jobs, as Gavel's utils.generate_job draws them from random.Random(2), and the arrivals at
    // 0.2 jobs/h from random.Random(3) (the first at t = 0).
    CHECK(t.jobs[0].num_gpus == 8);
    CHECK(t.strings[t.jobs[0].model] == "ResNet-18 (batch size 64)");
    CHECK(t.jobs[0].duration == 68344.350106);
    CHECK(t.jobs[0].work == 68344.350106 * 80);  // total_steps: duration x the V100 rate at its size
    CHECK(t.jobs[1].num_gpus == 1);
    CHECK(t.strings[t.jobs[1].model] == "Transformer (batch size 16)");
    CHECK(t.jobs[1].duration == 31016.609146);
    CHECK(t.strings[t.jobs[2].model] == "Recommendation (batch size 2048)");
    CHECK(t.jobs[2].duration == 2146.608837);
    CHECK(t.jobs[0].submit_time == 0);
    CHECK(t.jobs[1].submit_time == 4891.721458);
    CHECK(t.jobs[2].submit_time == 19035.496551);
    // The measured window, jobs 4000-4999: 17.68 h of V100 time on average (the law's mean is 16.77 h), and
    // its sizes.
    double sum = 0;
    std::map<int, int> sizes;
    for (std::size_t i = 4000; i < 5000; ++i) {
        sum += t.jobs[i].duration;
        ++sizes[t.jobs[i].num_gpus];
    }
    CHECK(sum / 1000 / 3600 == Approx(17.680709).epsilon(1e-7));
    CHECK(sizes == std::map<int, int>{{1, 709}, {2, 89}, {4, 152}, {8, 50}});
}

TEST_CASE("gavel streams: without multi-GPU jobs the sizes are still drawn, so durations stay in step", "[traces]") {
    const Trace single = generate_gavel_paper(gavel_seed0(false));
    const Trace multi = generate_gavel_paper(gavel_seed0(true));
    // Job 0 is the same draw (Gavel draws the scale factor, then resets it to 1); later jobs differ, since the
    // template rejection at sizes > 1 draws more.
    CHECK(single.jobs[0].num_gpus == 1);
    CHECK(single.jobs[0].duration == multi.jobs[0].duration);
    CHECK(single.jobs[0].work == 68344.350106 * 10);
    double sum = 0;
    for (std::size_t i = 4000; i < 5000; ++i) sum += single.jobs[i].duration;
    CHECK(sum / 1000 / 3600 == Approx(17.414646).epsilon(1e-7));
}

TEST_CASE("gavel streams: a profile without one of Gavel's templates is an input error naming it", "[bad-input]") {
    GavelPaperOptions o = gavel_seed0(true);
    o.models.erase(o.models.begin());  // CycleGAN
    CHECK_THROWS_WITH(generate_gavel_paper(o), Catch::Contains("'CycleGAN'"));
    // Gavel's templates measured at 1 GPU only, another model at 8: no template of Gavel's can be drawn at 8.
    o = gavel_seed0(true);
    for (GavelPaperModel& m : o.models) m.reference_rate[3] = 0;
    o.models.push_back({"other", {1, 1, 1, 1}});
    CHECK_THROWS_WITH(generate_gavel_paper(o), Catch::Contains("8 GPU(s)"));
}

}  // namespace dlsim::test::gavel_streams_tests
