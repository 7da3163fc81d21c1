// Trace framework: format registry and detection, date-times, transforms, stats, generator options.
#include "models/base/input_error.hpp"
#include "sim/job_spec.hpp"
#include "tests/support/shared_data.hpp"
#include "tests/support/test_support.hpp"
#include "traces/generate/synthetic.hpp"
#include "traces/readers/trace_format.hpp"
#include "traces/trace_stats.hpp"
#include "traces/trace_transforms.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::traces_tests {

namespace {

Trace small_trace() {
    return parse_canonical_csv(
        "job_id,submit_time,num_gpus,duration,vc,status\n"
        "a,10,1,100,x,Pass\n"
        "b,12,2,200,y,Failed\n"
        "c,15,4,300,x,Pass\n"
        "d,25,8,400,,Killed\n",
        "small.csv");
}

void mark_outcomes(Trace& t) {
    for (auto& j : t.jobs)
        j.outcome = t.strings[j.status] == "Pass"     ? JobOutcome::Completed
                    : t.strings[j.status] == "Failed" ? JobOutcome::Failed
                                                      : JobOutcome::Killed;
}

}  // namespace

TEST_CASE("parse_datetime: UTC wall clock, ISO, fractions and zone offsets", "[traces]") {
    CHECK(parse_datetime("1970-01-01 00:00:00") == 0.0);
    CHECK(parse_datetime("2017-10-09 07:01:55") == 1507532515.0);
    CHECK(parse_datetime("2017-10-09T07:01:55") == 1507532515.0);
    CHECK(parse_datetime("2017-10-09 07:01:55.25") == 1507532515.25);
    // The same instant written in two zones.
    CHECK(parse_datetime("2020-07-01 08:00:00+08:00") == parse_datetime("2020-07-01 00:00:00+00:00"));
    CHECK(parse_datetime("2020-07-01 08:00:00+0800") == parse_datetime("2020-07-01T00:00:00Z"));
    CHECK_FALSE(parse_datetime("2020-07-01"));
    CHECK_FALSE(parse_datetime("2020-07-01 08:00:00 junk"));
    CHECK_FALSE(parse_datetime("yesterday at noon, roughly"));
    CHECK_FALSE(parse_datetime("2020-04-31 00:00:00"));  // no such day
    CHECK(parse_datetime("2020-02-29 00:00:00") == 1582934400.0);
}

TEST_CASE("trace formats: registry names, detection, unknown names", "[traces]") {
    std::set<std::string> names;
    for (const auto& f : trace_formats()) names.insert(f.name);
    for (const char* n :
         {"csv", "philly", "gavel", "tiresias", "muri", "alibaba-openb", "alibaba-pai2020", "helios", "acme"})
        CHECK(names.count(n) == 1);
    CHECK_THROWS_WITH(find_trace_format("nosuch"),
                      Catch::Contains("unknown format 'nosuch' (valid: auto, philly, gavel"));
    const std::string path = write_temp("detect.csv", "job_id,submit_time,num_gpus,duration\nj,0,1,5\n");
    const Trace t = read_trace(path, "auto", {});
    CHECK(t.format == "csv");
    CHECK(t.jobs.size() == 1);
    // Helios, Acme and Tiresias headers also start with job_id: each goes to its own reader.
    const std::string dir = std::string(DLSIM_TEST_DATA) + "/traces/";
    CHECK(read_trace(dir + "helios/cluster_log.csv", "auto", {}).format == "helios");
    CHECK(read_trace(dir + "acme/trace_kalos.csv", "auto", {}).format == "acme");
    const std::string odd = write_temp("odd.txt", "what,is,this\n1,2,3\n");
    CHECK_THROWS_WITH(read_trace(odd, "auto", {}), Catch::Contains("odd.txt:1: cannot tell the trace format"));
}

TEST_CASE("transforms: --load-scale 2 halves every inter-arrival gap exactly", "[traces]") {
    Trace t = small_trace();
    TraceTransforms tr;
    tr.load_scale = 2;
    apply_transforms(t, tr);
    // Gaps 2, 3, 10 s become 1, 1.5, 5 s from the first arrival at 10.
    REQUIRE(t.jobs.size() == 4);
    CHECK(t.jobs[0].submit_time == 10);
    CHECK(t.jobs[1].submit_time == 11);
    CHECK(t.jobs[2].submit_time == 12.5);
    CHECK(t.jobs[3].submit_time == 17.5);
    // On a generated trace too: every gap exactly halved.
    GavelMixOptions g;
    g.num_jobs = 5000;
    g.jobs_per_hour = 7;
    g.seed = 3;
    const Trace original = generate_gavel_mix(g);
    Trace scaled = original;
    apply_transforms(scaled, tr);
    std::size_t exact = 0;
    for (std::size_t i = 1; i < original.jobs.size(); ++i)
        exact += scaled.jobs[i].submit_time - scaled.jobs[i - 1].submit_time ==
                 (original.jobs[i].submit_time - original.jobs[i - 1].submit_time) / 2;
    CHECK(exact == original.jobs.size() - 1);
}

TEST_CASE("transforms: status, GPUs, VC, time window and max jobs filter and report", "[traces]") {
    SECTION("status completed keeps Completed outcomes only") {
        Trace t = small_trace();
        TraceTransforms tr;
        tr.status = "completed";
        CHECK_THROWS_WITH(apply_transforms(t, tr), Catch::Contains("records no job status"));
        mark_outcomes(t);
        apply_transforms(t, tr);
        REQUIRE(t.jobs.size() == 2);
        CHECK(t.jobs[0].id == "a");
        CHECK(t.jobs[1].id == "c");
        CHECK(t.report.dropped.at("filtered: status") == 2);
        CHECK(t.report.kept == 2);
    }
    SECTION("GPU bounds and VC") {
        Trace t = small_trace();
        TraceTransforms tr;
        tr.min_gpus = 2;
        tr.max_gpus = 4;
        tr.vcs = {"x"};
        apply_transforms(t, tr);
        REQUIRE(t.jobs.size() == 1);
        CHECK(t.jobs[0].id == "c");
        CHECK(t.report.dropped.at("filtered: gpus") == 2);
        CHECK(t.report.dropped.at("filtered: vc") == 1);
    }
    SECTION("time window [12, 25) rebased to 0, then the first job only") {
        Trace t = small_trace();
        TraceTransforms tr;
        parse_time_window("12:25", tr);
        tr.max_jobs = 1;
        apply_transforms(t, tr);
        REQUIRE(t.jobs.size() == 1);
        CHECK(t.jobs[0].id == "b");
        CHECK(t.jobs[0].submit_time == 0);
        CHECK(t.time_origin == 12);
        CHECK(t.report.dropped.at("filtered: time window") == 2);
        CHECK(t.report.dropped.at("filtered: max jobs") == 1);
    }
    SECTION("bad values name the flag") {
        Trace t = small_trace();
        TraceTransforms tr;
        tr.load_scale = 0;
        CHECK_THROWS_WITH(apply_transforms(t, tr), Catch::Contains("--load-scale"));
        CHECK_THROWS_WITH(parse_time_window("5", tr), Catch::Contains("--time-window"));
        tr = TraceTransforms{};
        tr.status = "done";
        CHECK_THROWS_WITH(apply_transforms(t, tr), Catch::Contains("--status"));
        tr = TraceTransforms{};
        tr.min_gpus = 100;
        CHECK_THROWS_WITH(apply_transforms(t, tr), Catch::Contains("the filters left no job"));
    }
}

TEST_CASE("transforms: Poisson re-sampling is deterministic and hits the asked rate within 2% over 100k jobs",
          "[traces]") {
    Trace base = small_trace();
    TraceTransforms tr;
    tr.resample_rate = 30;  // jobs/hour
    tr.resample_jobs = 100'000;
    tr.seed = 9;
    Trace a = base, b = base;
    apply_transforms(a, tr);
    apply_transforms(b, tr);
    REQUIRE(a.jobs.size() == 100'000);
    bool same = true;
    for (std::size_t i = 0; i < a.jobs.size(); ++i)
        same = same && a.jobs[i].id == b.jobs[i].id && a.jobs[i].submit_time == b.jobs[i].submit_time;
    CHECK(same);
    const double rate = (a.jobs.size() - 1) / (a.jobs.back().submit_time / 3600.0);
    CHECK(rate == Approx(30).epsilon(0.02));
    // Drawn uniformly from the 4 jobs: each about a quarter.
    std::map<int, std::size_t> by_gpus;
    for (const auto& j : a.jobs) ++by_gpus[j.num_gpus];
    for (int g : {1, 2, 4, 8}) CHECK(by_gpus[g] / 100'000.0 == Approx(0.25).margin(0.01));
    CHECK(a.jobs[5].id.find('@') != std::string::npos);
    // Another seed, another sample.
    Trace c = base;
    tr.seed = 10;
    apply_transforms(c, tr);
    CHECK(c.jobs[1].submit_time != a.jobs[1].submit_time);
}

TEST_CASE("trace stats: exact figures of a hand-made trace", "[traces]") {
    Trace t = small_trace();
    const TraceStats s = compute_stats(t);
    CHECK(s.jobs == 4);
    CHECK(s.span == 15);
    CHECK(s.gpu_hours == Approx((100 + 400 + 1200 + 3200) / 3600.0));
    CHECK(s.gpu_histogram == std::map<int, std::size_t>{{1, 1}, {2, 1}, {4, 1}, {8, 1}});
    CHECK(s.duration_mean == 250);
    CHECK(s.duration_p50 == 250);
    CHECK(s.duration_p90 == Approx(370));
    CHECK(s.duration_max == 400);
    CHECK(s.arrivals_by_hour[0] == 4);
    CHECK(s.status.at("Pass") == 2);
    CHECK(s.by_vc.at("x") == 2);
    CHECK(s.by_vc.at("") == 1);
    const auto j = nlohmann::json::parse(stats_json(t, s));
    CHECK(j["schema"] == "dlsim.trace-stats/1");
    CHECK(j["gpu_histogram"]["8"] == 1);
    CHECK(j["jobs"] == 4);
}

TEST_CASE("generator: lognormal and empirical distributions", "[traces]") {
    GavelMixOptions g;
    g.num_jobs = 100'000;
    g.durations = DurationDistribution::Lognormal;
    g.lognormal_mu = 8;
    g.lognormal_sigma = 0.5;
    const Trace t = generate_gavel_mix(g);
    std::vector<double> logs;
    for (const auto& j : t.jobs) logs.push_back(std::log(j.duration));
    double mean = 0, var = 0;
    for (double x : logs) mean += x / logs.size();
    for (double x : logs) var += (x - mean) * (x - mean) / logs.size();
    CHECK(mean == Approx(8).margin(0.01));  // standard error 0.0016
    CHECK(std::sqrt(var) == Approx(0.5).margin(0.01));

    GavelMixOptions e;
    e.num_jobs = 20'000;
    e.sizes = SizeDistribution::Empirical;
    e.durations = DurationDistribution::Empirical;
    e.empirical = {{1, 100}, {8, 5000}};
    const Trace et = generate_gavel_mix(e);
    std::size_t eights = 0;
    bool joint = true;
    for (const auto& j : et.jobs) {
        eights += j.num_gpus == 8;
        joint = joint && ((j.num_gpus == 1 && j.duration == 100) || (j.num_gpus == 8 && j.duration == 5000));
    }
    CHECK(joint);  // both empirical: pairs drawn together
    CHECK(eights / 20'000.0 == Approx(0.5).margin(0.02));
    e.empirical.clear();
    CHECK_THROWS_WITH(generate_gavel_mix(e), Catch::Contains("needs a source trace"));
}

TEST_CASE("CLI: trace stats, convert and generate", "[traces]") {
    const std::string json = temp_path("stats.json"), csv = temp_path("converted.csv");
    const std::string trace = std::string(DLSIM_SOURCE_DIR) + "/traces/samples/gavel_mix_default.csv";
    const CliResult stats = run_cli("trace stats " + trace + " --json " + json);
    REQUIRE(stats.exit_code == 0);
    CHECK(stats.out.find("jobs         1000") != std::string::npos);
    const auto j = nlohmann::json::parse(slurp(json));
    CHECK(j["jobs"] == 1000);
    // Convert with a load scale, read back: same jobs, gaps halved.
    REQUIRE(run_cli("trace convert " + trace + " --load-scale 2 --out " + csv).exit_code == 0);
    const Trace back = read_canonical_csv(csv);
    const Trace orig = read_canonical_csv(trace);
    REQUIRE(back.jobs.size() == 1000);
    CHECK(back.jobs[999].submit_time == Approx(orig.jobs[999].submit_time / 2));
    CHECK(back.jobs[500].duration == orig.jobs[500].duration);
    // The bundled trace is what the generator makes with the documented command.
    const CliResult gen = run_cli("trace generate --jobs 1000 --rate 3 --seed 1");
    REQUIRE(gen.exit_code == 0);
    CHECK(gen.out == slurp(trace));
    CHECK(run_cli("trace nosuch").exit_code == 2);
    CHECK(run_cli("trace stats " + trace + " --status completed").exit_code == 2);  // no status recorded
}

TEST_CASE("CLI: trace stats on the published Philly and openb files", "[traces][shared-data]") {
    const std::string philly = std::string(DLSIM_SHARED_DATA) + "/traces/pollux/philly.csv";
    const std::string openb =
        std::string(DLSIM_SHARED_DATA) + "/traces/alibaba_gpu_2023/csv/openb_pod_list_default.csv";
    if (!shared_data_present(philly) || !shared_data_present(openb)) return;
    // Expected figures straight from the files: rows, and GPU-hours from Philly's own gpu_time column.
    std::size_t philly_rows = 0;
    double gpu_seconds = 0;
    {
        const std::string text = slurp(philly);
        std::size_t pos = text.find('\n') + 1;
        while (pos < text.size()) {
            std::size_t end = text.find('\n', pos);
            if (end == std::string::npos) end = text.size();
            const std::string row = text.substr(pos, end - pos);
            pos = end + 1;
            if (row.find_first_not_of(" \r") == std::string::npos) continue;
            // timestamp,duration,num_gpus,gpu_time,cluster
            std::size_t c1 = row.find(','), c2 = row.find(',', c1 + 1), c3 = row.find(',', c2 + 1),
                        c4 = row.find(',', c3 + 1);
            gpu_seconds += std::stod(row.substr(c3 + 1, c4 - c3 - 1));
            ++philly_rows;
        }
    }
    REQUIRE(philly_rows == 82'247);
    const std::string json = temp_path("philly-stats.json");
    const CliResult r = run_cli("trace stats " + philly + " --json " + json);
    REQUIRE(r.exit_code == 0);
    const auto s = nlohmann::json::parse(slurp(json));
    CHECK(s["format"] == "philly");
    CHECK(s["jobs"] == 82'247);
    CHECK(s["gpu_hours"].get<double>() == Approx(gpu_seconds / 3600).epsilon(1e-12));
    CHECK(r.out.find("jobs         82247") != std::string::npos);

    std::size_t pods = 0, pending = 0;
    {
        const std::string text = slurp(openb);
        std::size_t pos = text.find('\n') + 1;
        while (pos < text.size()) {
            std::size_t end = text.find('\n', pos);
            if (end == std::string::npos) end = text.size();
            std::string row = text.substr(pos, end - pos);
            pos = end + 1;
            if (!row.empty() && row.back() == '\r') row.pop_back();
            if (row.empty()) continue;
            ++pods;
            pending += row.back() == ',';  // scheduled_time, the last column, is empty
        }
    }
    REQUIRE(pods == 8'152);
    REQUIRE(pending == 897);
    const CliResult o = run_cli("trace stats " + openb + " --json " + json);
    REQUIRE(o.exit_code == 0);
    const auto os = nlohmann::json::parse(slurp(json));
    CHECK(os["format"] == "alibaba-openb");
    CHECK(os["report"]["rows_read"] == pods);
    CHECK(os["report"]["dropped"]["pending (never scheduled)"] == pending);
}

// ---------------------------------------------------------------- NUL bytes

TEST_CASE("every trace reader rejects a NUL byte with file:line:column", "[traces]") {
    // Each fixture with a NUL inserted after the first character of line 2 (a job id or name in most).
    const std::string data = std::string(DLSIM_TEST_DATA) + "/traces/";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"csv", std::string(DLSIM_TEST_DATA) + "/bad/good_trace.csv"},
        {"philly", data + "philly/philly_jobs.csv"},
        {"philly", data + "philly/cluster_job_log"},
        {"gavel", data + "gavel/msr_small.trace"},
        {"tiresias", data + "tiresias/small_job.csv"},
        {"muri", data + "muri/small_trace.csv"},
        {"alibaba-openb", data + "alibaba_openb/openb_pod_list_sample.csv"},
        {"helios", data + "helios/cluster_log.csv"},
        {"acme", data + "acme/trace_seren.csv"},
    };
    for (const auto& [format, source] : cases) {
        DYNAMIC_SECTION(format << " " << source) {
            std::string text = slurp(source);
            REQUIRE(read_trace(source, format, ReadOptions{}).jobs.size() > 0);  // the fixture itself reads
            const std::size_t line2 = text.find('\n') + 1;
            text.insert(line2 + 1, 1, '\0');
            const std::string name = std::filesystem::path(source).filename().string();
            const std::string path = write_temp("nul-" + format + "-" + name, text);
            CHECK_THROWS_WITH(read_trace(path, format, ReadOptions{}),
                              Catch::StartsWith(path + ":2:2: NUL byte, expected text without NUL characters"));
            // Not a malformed row that --on-bad-line skip could drop: the file is not text.
            CHECK_THROWS_AS(read_trace(path, format, skip_bad()), InputError);
        }
    }
    SECTION("philly JSON: an escaped \\u0000 in the job id") {
        std::string text = slurp(data + "philly/cluster_job_log");
        const std::string id = "application_1506638472019_14199";
        REQUIRE(text.find(id) != std::string::npos);
        text.replace(text.find(id), id.size(), "app\\u0000x");
        const std::string path = write_temp("nul-escaped-cluster_job_log", text);
        CHECK_THROWS_WITH(read_trace(path, "philly", ReadOptions{}),
                          Catch::StartsWith(path + ":2: column 'jobid': expected a string without NUL characters"));
    }
    SECTION("canonical CSV: a NUL inside a quoted field of a later line") {
        const std::string text =
            std::string("job_id,submit_time,num_gpus,duration,user\nj1,0,1,10,u\nj2,1,1,10,\"ab") + '\0' + "c\"\n";
        CHECK_THROWS_WITH(parse_canonical_csv(text, "quoted.csv"), Catch::StartsWith("quoted.csv:3:14: NUL byte"));
    }
}

// ---------------------------------------------------------------- elastic jobs

TEST_CASE("canonical CSV: min_num_gpus and max_num_gpus read, written back and resolved", "[traces]") {
    // Type g: 2 nodes x 4 = 8 GPUs; type h: 1 node x 2 = 2 GPUs. Jobs without a model run on both.
    const std::string cluster_json = R"({"gpu_types": {"g": {}, "h": {}},
        "node_types": {"ng": {"gpu_type": "g", "gpus": 4}, "nh": {"gpu_type": "h", "gpus": 2}},
        "racks": [{"node_type": "ng", "nodes": 2}, {"node_type": "nh", "nodes": 1}]})";
    const std::string csv =
        "job_id,submit_time,num_gpus,duration,allowed_gpu_types,min_num_gpus,max_num_gpus\n"
        "rigid,0,2,10,,,\n"         // neither column: rigid
        "elastic,1,4,10,,2,8\n"     // both sides
        "shrink,2,4,10,,1,\n"       // only a minimum: max stays num_gpus
        "grow,3,2,10,,,6\n"         // only a maximum
        "capped,4,2,10,,,64\n"      // more than any type has: capped at the largest (g, 8)
        "h-only,5,2,10,h,1,6\n"     // may use only h (2 GPUs): capped at 2
        "same,6,3,10,,3,3\n"        // written out, equal to num_gpus
        "too-big,7,16,10,,8,32\n";  // num_gpus fits no type: rejected; max never below num_gpus
    const Trace trace = parse_canonical_csv(csv, "elastic.csv");
    REQUIRE(trace.jobs.size() == 8);
    const std::vector<std::pair<int, int>> recorded = {{0, 0},  {2, 8}, {1, 0}, {0, 6},
                                                       {0, 64}, {1, 6}, {3, 3}, {8, 32}};
    for (std::size_t i = 0; i < recorded.size(); ++i) {
        INFO(trace.jobs[i].id);
        CHECK(trace.jobs[i].min_num_gpus == recorded[i].first);
        CHECK(trace.jobs[i].max_num_gpus == recorded[i].second);
    }

    const Cluster cluster = parse_cluster(cluster_json, "cluster.json");
    const ProfileSet profiles = parse_profiles(kUnusedProfile, "profile.json");
    const RateModel rates(cluster, profiles);
    const ResolvedJobs resolved = resolve_jobs(trace, cluster, profiles, rates, false);
    REQUIRE(resolved.jobs.size() == 8);
    struct Expected {
        int num, min, max;
    };
    const std::vector<Expected> expected = {{2, 2, 2}, {4, 2, 8}, {4, 1, 4}, {2, 2, 6},
                                            {2, 2, 8}, {2, 1, 2}, {3, 3, 3}, {16, 8, 16}};
    for (std::size_t i = 0; i < expected.size(); ++i) {
        INFO(trace.jobs[i].id);
        CHECK(resolved.jobs[i].num_gpus == expected[i].num);
        CHECK(resolved.jobs[i].min_gpus == expected[i].min);
        CHECK(resolved.jobs[i].max_gpus == expected[i].max);
    }
    CHECK(resolved.rejected.size() == 1);
    CHECK(resolved.rejected.count(7) == 1);

    // Written back (as `dlsim trace convert` does) with both columns, empty where absent; read back equal.
    std::ostringstream out;
    write_canonical_csv(trace, out);
    const std::string written = out.str();
    CHECK(written.substr(0, written.find('\n')) ==
          "job_id,submit_time,num_gpus,duration,allowed_gpu_types,min_num_gpus,max_num_gpus");
    CHECK(written.find("\nrigid,0,2,10,,,\n") != std::string::npos);
    CHECK(written.find("\nshrink,2,4,10,,1,\n") != std::string::npos);
    CHECK(written.find("\nh-only,5,2,10,h,1,6\n") != std::string::npos);
    const Trace back = parse_canonical_csv(written, "back.csv");
    REQUIRE(back.jobs.size() == trace.jobs.size());
    for (std::size_t i = 0; i < back.jobs.size(); ++i) {
        CHECK(back.jobs[i].min_num_gpus == trace.jobs[i].min_num_gpus);
        CHECK(back.jobs[i].max_num_gpus == trace.jobs[i].max_num_gpus);
    }

    // A trace without the columns is written without them, and its jobs stay rigid.
    std::ostringstream plain;
    write_canonical_csv(small_trace(), plain);
    CHECK(plain.str().find("num_gpus,duration,vc,status\n") != std::string::npos);
    CHECK(plain.str().find("min_num_gpus") == std::string::npos);
}

TEST_CASE("canonical CSV: bad min_num_gpus and max_num_gpus name file:line and the column", "[traces]") {
    const std::string header = "job_id,submit_time,num_gpus,duration,min_num_gpus,max_num_gpus\nok,0,4,10,2,8\n";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"j,1,4,10,0,8\n", ":3: column 'min_num_gpus': expected an integer number of GPUs in 1..num_gpus (4), got '0'"},
        {"j,1,4,10,5,8\n", ":3: column 'min_num_gpus': expected an integer number of GPUs in 1..num_gpus (4), got '5'"},
        {"j,1,4,10,-1,8\n",
         ":3: column 'min_num_gpus': expected an integer number of GPUs in 1..num_gpus (4), got '-1'"},
        {"j,1,4,10,2.5,8\n",
         ":3: column 'min_num_gpus': expected an integer number of GPUs in 1..num_gpus (4), got '2.5'"},
        {"j,1,4,10,2,3\n",
         ":3: column 'max_num_gpus': expected an integer number of GPUs in num_gpus (4)..1000000, got '3'"},
        {"j,1,4,10,2,x\n",
         ":3: column 'max_num_gpus': expected an integer number of GPUs in num_gpus (4)..1000000, got 'x'"},
        // 2^32 + 8 would read as 8 if narrowed to int before the range check.
        {"j,1,4,10,2,4294967304\n",
         ":3: column 'max_num_gpus': expected an integer number of GPUs in num_gpus (4)..1000000, got '4294967304'"},
    };
    for (const auto& [row, message] : cases) {
        INFO(row);
        CHECK_THROWS_WITH(parse_canonical_csv(header + row, "elastic-bad.csv"), "elastic-bad.csv" + message);
    }
    // Skippable like any malformed row, counted by the column.
    const Trace t = parse_canonical_csv(header + "j,1,4,10,5,8\n", "skip.csv", BadLinePolicy::Skip);
    CHECK(t.jobs.size() == 1);
    CHECK(t.report.dropped.at("bad min_num_gpus") == 1);
}

TEST_CASE("an elastic job must finish within engine time on its min_num_gpus", "[traces]") {
    // 1e12 s on 4 GPUs is the limit; on 1 GPU it would run 4e12 s.
    const Cluster cluster = parse_cluster(homogeneous_cluster_json(1, 4), "cluster.json");
    const ProfileSet profiles = parse_profiles(kUnusedProfile, "profile.json");
    const RateModel rates(cluster, profiles);
    const Trace rigid = parse_canonical_csv("job_id,submit_time,num_gpus,duration\nj,0,4,1e12\n", "rigid.csv");
    CHECK(resolve_jobs(rigid, cluster, profiles, rates, false).jobs.size() == 1);
    const Trace elastic =
        parse_canonical_csv("job_id,submit_time,num_gpus,duration,min_num_gpus\nj,0,4,1e12,1\n", "elastic.csv");
    CHECK_THROWS_WITH(resolve_jobs(elastic, cluster, profiles, rates, false),
                      Catch::StartsWith("elastic.csv:2: column 'duration': the job would run 4e+12 s on g at its "
                                        "min_num_gpus (1)"));
}

}  // namespace dlsim::test::traces_tests
