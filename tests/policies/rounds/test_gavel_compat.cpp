// The Gavel-compatible mode's run-level side (Gavel: Narayanan et al., OSDI 2020,
// github.com/stanford-futuredata/gavel; policies/rounds/README.md): measured multi-GPU rates (a job on n
// GPUs runs at the profile's throughput_n, as Gavel's thr[(model, sf)]), the `compat` key and what it selects,
// Gavel's paper-mode generator (`trace generate --gavel-paper`), and `stop_after_measured` (Gavel's continuous
// runs end when the measured window is done). Numbers are worked out by hand from models/profiles/gavel.json.
#include "models/base/input_error.hpp"
#include "policies/registry.hpp"
#include "sim/app/result_fields.hpp"
#include "sim/app/run_config.hpp"
#include "tests/support/test_support.hpp"
#include "traces/generate/gavel_paper.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <set>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::gavel_compat_tests {

using Json = nlohmann::ordered_json;

namespace {

const std::string kSource = DLSIM_SOURCE_DIR;
const std::string kGavelProfile = kSource + "/models/profiles/gavel.json";
const std::string kCompatCluster = kSource + "/models/clusters/gavel_compat_108.json";

// Gavel's measured ResNet-50 (batch size 64) throughputs, iterations/s (models/profiles/gavel.json).
constexpr double kR50V100x1 = 4.394774823323071, kR50V100x4 = 9.451949566394442;
constexpr double kR50K80x1 = 0.6190282202246573, kR50K80x4 = 2.4122290974193286;

RunInputs gavel_inputs(const std::string& trace_csv) {
    RunInputs in;
    in.cluster = load_cluster(kCompatCluster);
    in.profiles = load_profiles(kGavelProfile);
    in.trace = parse_canonical_csv(trace_csv, "trace.csv");
    return in;
}

RunConfig quiet_config() {
    RunConfig c;
    c.out.clear();
    return c;
}

}  // namespace

TEST_CASE("gavel compat: measured rates are the profile's throughput_n, else n x single", "[heterogeneity]") {
    const Cluster cluster = load_cluster(kCompatCluster);
    const ProfileSet profiles = load_profiles(kGavelProfile);
    const ModelIdx r50 = *profiles.find_model("ResNet-50 (batch size 64)");
    const ModelIdx a3c = *profiles.find_model("A3C");
    const GpuTypeIdx v100 = *cluster.find_gpu_type("V100"), k80 = *cluster.find_gpu_type("K80");
    const RateModel linear(cluster, profiles), measured(cluster, profiles, MultiGpuRate::Measured);
    CHECK_FALSE(linear.measured());
    CHECK(measured.measured());
    CHECK(linear.rate(r50, v100, 4) == 4 * kR50V100x1);
    CHECK(measured.rate(r50, v100, 4) == kR50V100x4);
    CHECK(measured.rate(r50, k80, 4) == kR50K80x4);
    CHECK(measured.rate(r50, v100, 1) == kR50V100x1);
    // No point measured at 3 GPUs, nor for A3C at 2: the linear rate.
    CHECK(measured.rate(r50, v100, 3) == 3 * kR50V100x1);
    CHECK(measured.rate(a3c, v100, 2) == 2 * measured.single(a3c, v100));
    // ResNet-50 bs128 has no K80 point at 2 GPUs (Gavel's 0): the linear rate too (documented).
    const ModelIdx r50b128 = *profiles.find_model("ResNet-50 (batch size 128)");
    CHECK(measured.rate(r50b128, k80, 2) == 2 * measured.single(r50b128, k80));
    CHECK(measured.measured_by_name(r50, "v100", 4) == kR50V100x4);
    CHECK_FALSE(measured.measured_by_name(r50, "V100", 3));
    CHECK_FALSE(linear.measured_by_name(r50, "V100", 4));
}

TEST_CASE("gavel compat: a 4-GPU ResNet-50 replays in its duration; on K80 at the measured ratio", "[heterogeneity]") {
    // One job of 3600 s on 4 V100s: work = 3600 x 9.4519... (its measured rate there), so it takes 3600 s on
    // 4 V100s again; allowed only K80s, 3600 x 9.4519 / 2.4122 = 14106.0476 s. Under the default linear model
    // the work is 3600 x 4 x 4.3948 and K80s take 3600 x 4.3948 / 0.6190 = 25558.1068 s.
    // (Allowed only V100s: with measured rates 4 P100s, 10.3647 it/s, beat 4 V100s, and fifo takes the fastest.)
    const std::string v100_trace =
        "job_id,submit_time,num_gpus,duration,model,gpu_type,allowed_gpu_types\n"
        "a,0,4,3600,ResNet-50 (batch size 64),V100,V100\n";
    const std::string k80_trace =
        "job_id,submit_time,num_gpus,duration,model,gpu_type,allowed_gpu_types\n"
        "a,0,4,3600,ResNet-50 (batch size 64),V100,K80\n";
    RunConfig gavel = quiet_config();
    gavel.compat = Compat::Gavel;
    RunConfig linear = quiet_config();
    linear.network = ContentionMode::None;

    const RunOutcome on_v100 = simulate(gavel_inputs(v100_trace), gavel);
    CHECK(on_v100.jobs[0].work == 3600 * kR50V100x4);
    CHECK(finish_s(on_v100, 0) == Approx(3600).margin(1e-6));
    const RunOutcome on_k80 = simulate(gavel_inputs(k80_trace), gavel);
    CHECK(finish_s(on_k80, 0) == Approx(3600 * kR50V100x4 / kR50K80x4).margin(1e-6));
    CHECK(finish_s(on_k80, 0) == Approx(14106.04758703187).margin(1e-6));

    const RunOutcome linear_k80 = simulate(gavel_inputs(k80_trace), linear);
    CHECK(linear_k80.jobs[0].work == 3600 * 4 * kR50V100x1);
    CHECK(finish_s(linear_k80, 0) == Approx(25558.106798784134).margin(1e-6));
}

TEST_CASE("gavel compat: compat gavel selects measured rates, network none, stop_after_measured; echoed", "[unit]") {
    RunConfig none;
    CHECK(effective_network(none) == ContentionMode::Duty);
    CHECK_FALSE(effective_stop_after_measured(none));
    CHECK(effective_rate_mode(none) == MultiGpuRate::Linear);

    RunConfig gavel;
    apply_config_json(gavel, Json{{"compat", "gavel"}}, "cfg.json");
    CHECK(gavel.compat == Compat::Gavel);
    CHECK(effective_network(gavel) == ContentionMode::None);
    CHECK(effective_stop_after_measured(gavel));
    CHECK(effective_rate_mode(gavel) == MultiGpuRate::Measured);
    // An explicit network none agrees; an explicit stop_after_measured false wins.
    gavel.network = ContentionMode::None;
    CHECK_NOTHROW(check_run_config(gavel));
    gavel.stop_after_measured = false;
    CHECK_FALSE(effective_stop_after_measured(gavel));

    // The identity: compat and stop_after_measured appear only off their defaults, network as in effect.
    const InputHashes hashes{"T", "C", "P"};
    const Json no_params = Json::object();
    const IdentityContext ctx{&hashes, &no_params, &no_params};
    const Json plain = run_identity(none, ctx);
    CHECK_FALSE(plain.contains("compat"));
    CHECK_FALSE(plain.contains("stop_after_measured"));
    CHECK(plain["network"] == "duty");
    RunConfig compat;
    compat.compat = Compat::Gavel;
    const Json id = run_identity(compat, ctx);
    CHECK(id["compat"] == "gavel");
    CHECK(id["network"] == "none");
    CHECK(id["stop_after_measured"] == true);
    CHECK(run_id(compat, hashes) != run_id(none, hashes));

    // The policy's gavel_compat parameter is switched on unless the user gave it.
    const std::vector<ParamSpec> with{{"gavel_compat", ParamType::Bool, "false", "Gavel's mechanism", {}},
                                      {"x", ParamType::Int, "1", "", {}}};
    const std::vector<ParamSpec> without{{"x", ParamType::Int, "1", "", {}}};
    CHECK(compat_params(compat, with) == std::map<std::string, std::string>{{"gavel_compat", "true"}});
    CHECK(compat_params(compat, without).empty());
    CHECK(compat_params(none, with).empty());
    RunConfig user_off = compat;
    add_param(user_off, "gavel_compat=false");
    CHECK(compat_params(user_off, with) == std::map<std::string, std::string>{{"gavel_compat", "false"}});
    const Params resolved = resolve_params("policy p", with, compat_params(compat, with));
    CHECK(resolved.get_bool("gavel_compat"));

    // The result's config echoes it too.
    RunConfig c = quiet_config();
    c.compat = Compat::Gavel;
    const RunOutcome o = simulate(gavel_inputs("job_id,submit_time,num_gpus,duration\na,0,1,10\n"), c);
    const Json config = Json::parse(o.config_json);
    CHECK(config["compat"] == "gavel");
    CHECK(config["network"] == "none");
    CHECK(config["stop_after_measured"] == true);
}

TEST_CASE("gavel compat: stop_after_measured ends the run when the window is done; the rest is unfinished",
          "[engine]") {
    // 2 GPUs, fifo, jobs without a model. j0 (0, 10 s) on GPU A 0-10, j1 (0, 30 s) on B 0-30, j2 (submit 15,
    // 100 s) on A from 15, j3 arrives at 100. The window is j0 and j1: the run ends at 30, when j1 finishes,
    // with j2 running and j3 not yet arrived. Busy GPU-s = 10 + 30 + 15 = 55 over 2 GPUs x 30 s, which is also
    // Gavel's mean over GPUs of busy / (end - 0): (25/30 + 30/30) / 2.
    const std::string trace =
        "job_id,submit_time,num_gpus,duration\n"
        "j0,0,1,10\nj1,0,1,30\nj2,15,1,100\nj3,100,1,10\n";
    RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile, trace);
    RunConfig c = quiet_config();
    c.measure = parse_measure_jobs("0:2");
    c.stop_after_measured = true;
    const RunOutcome o = simulate(in, c);
    CHECK(o.summary.stopped_early);
    CHECK(o.summary.finished == 2);
    CHECK(o.summary.unfinished == 2);
    CHECK(o.jobs[2].state == JobState::Running);
    CHECK(start_s(o, 2) == 15);
    CHECK(o.jobs[3].state == JobState::Pending);
    CHECK(o.summary.makespan == 30);
    CHECK(o.summary.avg_jct == 20);
    CHECK(o.summary.gpu_utilization == Approx(55.0 / 60.0).epsilon(1e-12));
    result_fields::Buffer b;
    result_fields::write_summary_json(b, o.summary);
    CHECK(fmt::to_string(b).find("\"stopped_early\":true") != std::string::npos);

    // Without it the run goes on to the end: j2 finishes at 115, j3 runs 100-110 on B.
    c.stop_after_measured.reset();
    const RunOutcome full = simulate(in, c);
    CHECK_FALSE(full.summary.stopped_early);
    CHECK(full.summary.finished == 4);
    CHECK(full.summary.makespan == 115);
    CHECK(full.summary.avg_jct == 20);  // the same window, the same JCTs

    // A window whose jobs are the last to finish ends the run as usual: nothing is cut.
    c.stop_after_measured = true;
    c.measure = parse_measure_jobs("0:4");
    const RunOutcome whole = simulate(in, c);
    CHECK_FALSE(whole.summary.stopped_early);
    CHECK(whole.summary.finished == 4);
}

TEST_CASE("gavel compat: trace generate --gavel-paper follows Gavel's distributions", "[traces]") {
    // 20,000 multi-GPU jobs at 2 jobs/h. Tolerances are 4 standard errors of each estimate.
    const std::string path = temp_path("gavel-paper.csv");
    const CliResult r =
        run_cli("trace generate --gavel-paper --multi-gpu --jobs 20000 --rate 2 --seed 5 --out '" + path + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const Trace t = parse_canonical_csv(slurp(path), path);
    REQUIRE(t.jobs.size() == 20000);
    const ProfileSet profiles = load_profiles(kGavelProfile);
    const double n = 20000;
    std::map<int, double> by_size;
    std::map<std::string, double> single_gpu_models;
    double long_jobs = 0;
    for (const JobRecord& j : t.jobs) {
        ++by_size[j.num_gpus];
        const std::string& model = t.strings[j.model];
        REQUIRE(t.strings[j.gpu_type] == "V100");
        const ModelProfile& m = profiles.models[*profiles.find_model(model)];
        // work = duration x the measured V100 rate at the job's size (Gavel's total_steps).
        const double rate = j.num_gpus == 1 ? m.throughput.at("v100") : m.throughput_n.at("v100").at(j.num_gpus);
        REQUIRE(j.work == Approx(j.duration * rate).epsilon(1e-15));
        REQUIRE(j.duration >= 60 * std::pow(10.0, 1.5) - 1e-6);
        REQUIRE(j.duration <= 60 * 1e4 + 1e-6);
        long_jobs += j.duration > 60e3;
        if (j.num_gpus == 1) ++single_gpu_models[model];
    }
    CHECK(t.jobs[0].submit_time == 0);
    const double shares[] = {0.70, 0.10, 0.15, 0.05};
    const int sizes[] = {1, 2, 4, 8};
    for (int k = 0; k < 4; ++k) {
        INFO("size " << sizes[k]);
        CHECK(std::fabs(by_size[sizes[k]] / n - shares[k]) < 4 * std::sqrt(shares[k] * (1 - shares[k]) / n));
    }
    CHECK(std::fabs(long_jobs / n - 0.2) < 4 * std::sqrt(0.2 * 0.8 / n));
    // Mean inter-arrival 3600 / 2 = 1800 s; its standard error is 1800 / sqrt(19,999).
    const double mean_gap = t.jobs.back().submit_time / (n - 1);
    CHECK(std::fabs(mean_gap - 1800) < 4 * 1800 / std::sqrt(n - 1));
    // At 1 GPU every one of the 26 templates is drawn, uniformly.
    CHECK(single_gpu_models.size() == 26);
    const double ones = by_size[1], p = 1.0 / 26;
    for (const auto& [model, count] : single_gpu_models) {
        INFO(model);
        CHECK(std::fabs(count / ones - p) < 4 * std::sqrt(p * (1 - p) / ones));
    }

    // Without --multi-gpu every job has 1 GPU; the arrivals and durations are the same draws.
    const std::string single_path = temp_path("gavel-paper-1.csv");
    REQUIRE(
        run_cli("trace generate --gavel-paper --jobs 20000 --rate 2 --seed 5 --out '" + single_path + "'").exit_code ==
        0);
    const Trace s = parse_canonical_csv(slurp(single_path), single_path);
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {
        REQUIRE(s.jobs[i].num_gpus == 1);
        REQUIRE(s.jobs[i].submit_time == t.jobs[i].submit_time);
        REQUIRE(s.jobs[i].duration == t.jobs[i].duration);
    }
    // Deterministic: the same options give the same bytes.
    const std::string again = temp_path("gavel-paper-2.csv");
    REQUIRE(run_cli("trace generate --gavel-paper --jobs 20000 --rate 2 --seed 5 --out '" + again + "'").exit_code ==
            0);
    CHECK(slurp(again) == slurp(single_path));
}

TEST_CASE("gavel compat: sizes above 1 draw only the templates measured at that size", "[traces]") {
    GavelPaperOptions o;
    o.num_jobs = 4000;
    o.multi_gpu = true;
    o.models = {{"one-gpu-only", {5, 0, 0, 0}}, {"distributed", {2, 3, 5, 7}}};
    const Trace t = generate_gavel_paper(o);
    std::set<int> distributed_sizes;
    for (const JobRecord& j : t.jobs) {
        if (t.strings[j.model] == "one-gpu-only")
            REQUIRE(j.num_gpus == 1);
        else
            distributed_sizes.insert(j.num_gpus);
    }
    CHECK(distributed_sizes == std::set<int>{1, 2, 4, 8});
    // No template measured at 8 GPUs: an input error naming the size.
    o.models = {{"m", {5, 3, 2, 0}}};
    CHECK_THROWS_WITH(generate_gavel_paper(o), Catch::Contains("8 GPU(s)"));
    o.multi_gpu = false;
    CHECK_NOTHROW(generate_gavel_paper(o));
}

TEST_CASE("gavel compat: a bad compat value or a conflicting network is an input error naming the keys",
          "[bad-input]") {
    RunConfig c;
    CHECK_THROWS_AS(apply_config_json(c, Json{{"compat", "foo"}}, "cfg.json"), InputError);
    CHECK_THROWS_WITH(apply_config_json(c, Json{{"compat", "foo"}}, "cfg.json"), Catch::Contains("compat"));
    RunConfig conflict;
    apply_config_json(conflict, Json{{"compat", "gavel"}, {"network", "maxmin"}}, "cfg.json");
    CHECK_THROWS_WITH(check_run_config(conflict), Catch::Contains("compat gavel") && Catch::Contains("network maxmin"));

    const CliResult bad = run_cli("run --compat foo --out ''");
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("--compat") != std::string::npos);
    const CliResult clash = run_cli("run --compat gavel --network duty --out ''");
    CHECK(clash.exit_code == 2);
    CHECK(clash.err.find("compat gavel and network duty") != std::string::npos);
    const CliResult stray = run_cli("trace generate --multi-gpu --jobs 3");
    CHECK(stray.exit_code == 2);
    CHECK(stray.err.find("--multi-gpu") != std::string::npos);
    const CliResult mixed = run_cli("trace generate --gavel-paper --sizes empirical --jobs 3");
    CHECK(mixed.exit_code == 2);
    CHECK(mixed.err.find("--gavel-paper and --sizes") != std::string::npos);
}

}  // namespace dlsim::test::gavel_compat_tests
