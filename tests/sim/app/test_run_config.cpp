// The run-config table (sim/app/run_config.hpp): it alone defines the keys of config files and the flags
// of `dlsim run`, every numeric key is range-checked from both, run ids of existing configs stay the
// same, and `unknown_models` runs jobs whose model the profile lacks model-agnostic.
#include "models/base/input_error.hpp"
#include "sim/app/run_config.hpp"
#include "tests/support/shared_data.hpp"
#include "tests/support/test_support.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <set>
#include <sstream>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::run_config_tests {

using Json = nlohmann::ordered_json;

namespace {

/// The long flags a --help text lists (a flag starts a line after two spaces; wrapped lines are indented further).
std::set<std::string> help_flags(const std::string& help) {
    std::set<std::string> flags;
    std::istringstream in(help);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("  --", 0) != 0) continue;
        const std::string rest = line.substr(4);
        flags.insert(rest.substr(0, rest.find(' ')));
    }
    return flags;
}

/// Exit 2 with one line "dlsim: error: ..." that contains every one of `names`.
void check_input_error(const CliResult& r, std::initializer_list<std::string> names) {
    INFO("exit " << r.exit_code << ", stderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("dlsim: error: ", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    for (const auto& name : names) CHECK(r.err.find(name) != std::string::npos);
}

/// The flag arguments that say what a key's example says in a config file.
std::vector<std::string> example_as_flag(const RunConfigKey& k) {
    const Json v = Json::parse(k.example);
    std::vector<std::string> out;
    if (v.is_string())
        out.push_back(v.get<std::string>());
    else if (v.is_array())
        for (const auto& x : v) out.push_back(x.get<std::string>());
    else if (v.is_object())
        for (const auto& [name, x] : v.items()) out.push_back(name + "=" + x.get<std::string>());
    else if (!v.is_boolean())
        out.push_back(v.dump());
    return out;
}

}  // namespace

TEST_CASE("run config: dlsim run --help lists exactly the table's keys", "[unit]") {
    std::set<std::string> table, trace_table;
    for (const RunConfigKey& k : run_config_table()) {
        table.insert(flag_name(k));
        if (k.trace_option || std::string(k.key) == "seed") trace_table.insert(flag_name(k));
    }
    const CliResult run = run_cli("run --help");
    REQUIRE(run.exit_code == 0);
    std::set<std::string> listed = help_flags(run.out);
    CHECK(run.out.find("  -h [ --help ]") != std::string::npos);  // the one flag not on a line of its own
    CHECK(listed.erase("config") == 1);
    CHECK(listed == table);
    // Every numeric key's help shows its range.
    for (const RunConfigKey& k : run_config_table())
        if (k.kind == KeyKind::Integer || k.kind == KeyKind::Number) {
            INFO(k.key);
            std::string help = run.out;
            help.erase(std::remove_if(help.begin(), help.end(), [](char ch) { return ch == '\n' || ch == ' '; }),
                       help.end());
            std::string range = expected_text(k);
            range.erase(std::remove(range.begin(), range.end(), ' '), range.end());
            CHECK(help.find(range) != std::string::npos);
        }

    // `trace stats|convert` take the trace options (and the seed of re-sampling) from the same table.
    for (const char* sub : {"stats", "convert"}) {
        INFO(sub);
        const CliResult r = run_cli(std::string("trace ") + sub + " --help");
        REQUIRE(r.exit_code == 0);
        std::set<std::string> flags = help_flags(r.out);
        CHECK(flags.erase("file") == 1);
        CHECK(flags.erase(std::string(sub) == "stats" ? "json" : "out") == 1);
        CHECK(flags == trace_table);
    }
}

TEST_CASE("run config: every table key is accepted in a config file, and its flag means the same", "[unit]") {
    const InputHashes hashes{"T", "C", "P"};
    const Json no_params = Json::object();
    const IdentityContext ctx{&hashes, &no_params, &no_params};
    Json all = Json::object();
    for (const RunConfigKey& k : run_config_table()) {
        INFO(k.key << " = " << k.example);
        RunConfig from_file = default_run_config();
        Json doc = Json::object();
        doc[k.key] = Json::parse(k.example);
        REQUIRE_NOTHROW(apply_config_json(from_file, doc, "cfg.json"));
        RunConfig from_flag = default_run_config();
        REQUIRE_NOTHROW(apply_flag(from_flag, k, example_as_flag(k)));
        CHECK(run_identity(from_file, ctx).dump() == run_identity(from_flag, ctx).dump());
        CHECK((from_file.out == from_flag.out && from_file.jobs_csv == from_flag.jobs_csv &&
               from_file.event_log == from_flag.event_log && from_file.timeline == from_flag.timeline &&
               from_file.timeline_from == from_flag.timeline_from && from_file.timeline_to == from_flag.timeline_to &&
               from_file.jobs_csv_format == from_flag.jobs_csv_format &&
               from_file.job_records == from_flag.job_records && from_file.params == from_flag.params &&
               from_file.trace == from_flag.trace));
        if (!k.excludes || !all.contains(k.excludes)) all[k.key] = doc[k.key];
    }
    // All of them at once make a valid run config.
    const std::string path = write_temp("every-key.json", all.dump(2));
    const CliResult r = run_cli("validate '" + path + "'");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("valid run config") != std::string::npos);
    // Unknown keys are still refused, listing the table's keys.
    RunConfig c;
    CHECK_THROWS_WITH(apply_config_json(c, Json{{"timeseries_point", 5}}, "cfg.json"),
                      Catch::Contains("unknown field \"timeseries_point\"") && Catch::Contains("unknown_models"));
}

TEST_CASE("run config: run ids of existing configs stay the same", "[unit]") {
    // Ids computed by the code before the table (commit 251f693) with these stand-in input hashes; the
    // identity must serialise the same bytes, or every committed sweep index changes.
    const InputHashes hashes{"T", "C", "P"};
    RunConfig c;
    // fifo's resolved parameters are part of its identity (among them `estimate`, EASY's noisy estimates,
    // and `space_sharing`, two jobs on the same GPUs), so the fifo ids here and below change whenever fifo
    // gains a parameter: last `type_ties` (0fd933d8398a0545 -> this), which changes what a run computes for
    // jobs whose types tie, so a result computed under the older rule is not reused.
    CHECK(run_id(c, hashes) == "6e86f8d02a85ae76");

    RunConfig srtf;
    srtf.policy = "srtf";
    add_param(srtf, "type_order=spec");
    srtf.seed = 9223372036854775807ULL;
    srtf.restart.restart_cost = 2.5;
    srtf.strict = true;
    srtf.on_bad_line = BadLinePolicy::Skip;
    srtf.timeseries_points = 17;
    srtf.measure = parse_measure_jobs("1:");
    // srtf's resolved parameters are part of its identity: it gained `margin` (id e986620c48bc2977 at
    // 251f693 -> cebb58f2692ecc83), then `tick` and `move_up` (-> ff7dbc1093cd2bd1), then `type_ties` (-> this).
    CHECK(run_id(srtf, hashes) == "95c1751dff35b535");

    RunConfig filtered;
    apply_config_json(filtered, Json::parse(R"({"time_unit": "min", "status": "completed", "min_gpus": 1,
        "max_gpus": 2, "vc": ["x", "y"], "time_window": "0:1000", "max_jobs": 3, "load_scale": 2,
        "measure_time": "0:500", "trace_format": "csv"})"),
                      "cfg.json");
    CHECK(run_id(filtered, hashes) == "30217632c97264ea");

    RunConfig resampled;
    apply_config_json(resampled, Json::parse(R"({"resample_rate": 30, "resample_jobs": 5, "seed": 3})"), "cfg.json");
    CHECK(run_id(resampled, hashes) == "6104bb656cdf28ba");

    // unknown_models joins the identity only when it is not the default.
    RunConfig agnostic;
    agnostic.unknown_models = UnknownModels::Agnostic;
    CHECK(run_id(agnostic, hashes) != run_id(c, hashes));
}

TEST_CASE("run config: every numeric key is range-checked from flags and config files alike", "[bad-input]") {
    for (const RunConfigKey& k : run_config_table()) {
        if (k.kind != KeyKind::Integer && k.kind != KeyKind::Number) continue;
        const std::string flag = "--" + flag_name(k);
        std::vector<std::pair<std::string, Json>> bad, good;  // flag text, config value
        if (k.kind == KeyKind::Integer) {
            if (k.imin == 0)
                bad.emplace_back("-1", Json(-1));
            else
                bad.emplace_back(std::to_string(k.imin - 1), Json(k.imin - 1));
            if (k.imax < std::numeric_limits<std::uint64_t>::max())
                bad.emplace_back(std::to_string(k.imax + 1), Json(k.imax + 1));
            bad.emplace_back("1.5", Json(1.5));
            bad.emplace_back("99999999999999999999999", Json(1e23));
            good.emplace_back(std::to_string(k.imin), Json(k.imin));
            good.emplace_back(std::to_string(k.imax), Json(k.imax));
        } else {
            const double below = k.min_open ? k.min : k.min - 1;
            bad.emplace_back(fmt::format("{}", below), Json(below));
            bad.emplace_back(fmt::format("{}", k.max * 2), Json(k.max * 2));
            bad.emplace_back("inf", Json(std::numeric_limits<double>::infinity()));
            bad.emplace_back("nan", Json(std::numeric_limits<double>::quiet_NaN()));
            if (!k.min_open) good.emplace_back(fmt::format("{}", k.min), Json(k.min));
            good.emplace_back(fmt::format("{}", k.max), Json(k.max));
        }
        for (const auto& [text, value] : bad) {
            INFO(k.key << " = " << text);
            RunConfig c;
            CHECK_THROWS_AS(apply_flag(c, k, {text}), InputError);
            CHECK_THROWS_WITH(apply_flag(c, k, {text}), Catch::StartsWith(flag + ": expected " + expected_text(k)));
            CHECK_THROWS_WITH(apply_config_json(c, Json{{k.key, value}}, "cfg.json"),
                              Catch::StartsWith(std::string("cfg.json: ") + k.key + ": expected " + expected_text(k)));
        }
        for (const auto& [text, value] : good) {
            INFO(k.key << " = " << text);
            RunConfig c;
            CHECK_NOTHROW(apply_flag(c, k, {text}));
            CHECK_NOTHROW(apply_config_json(c, Json{{k.key, value}}, "cfg.json"));
        }
    }
}

TEST_CASE("run config: time_unit is a named unit or seconds per unit in (0, 1e6]", "[bad-input]") {
    const RunConfigKey& k = *find_run_config_key("time_unit");
    for (const char* text : {"0", "-1", "1e7", "inf", "nan", "days"}) {
        INFO(text);
        RunConfig c;
        CHECK_THROWS_WITH(apply_flag(c, k, {text}), Catch::StartsWith("--time-unit: expected"));
        CHECK_THROWS_WITH(apply_config_json(c, Json{{"time_unit", text}}, "cfg.json"),
                          Catch::StartsWith("cfg.json: time_unit: expected"));
    }
    RunConfig c;
    apply_flag(c, k, {"86400"});
    CHECK(c.time_unit == 86400);
    apply_config_json(c, Json{{"time_unit", "ms"}}, "cfg.json");
    CHECK(c.time_unit == 1e-3);
}

TEST_CASE("run config: --timeseries-points too large or negative exits 2, never a crash", "[bad-input]") {
    // 3689348814741910324 made the bucket count overflow in the metrics (SIGSEGV); -1 was an internal error.
    const std::string out = temp_path("ts.json");
    for (const char* points : {"3689348814741910324", "-1", "1000001"}) {
        INFO(points);
        check_input_error(run_cli(std::string("run --timeseries-points ") + points + " --out '" + out + "'"),
                          {"--timeseries-points", "[0, 1000000]"});
        const std::string cfg = write_temp("ts-config.json", std::string("{\"timeseries_points\": ") + points + "}");
        check_input_error(run_cli("validate '" + cfg + "'"), {cfg + ": timeseries_points", "[0, 1000000]"});
        check_input_error(run_cli("run --config '" + cfg + "' --out '" + out + "'"), {cfg + ": timeseries_points"});
    }
    CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("run config: --resample-jobs -1 and --resample-jobs without --resample-rate exit 2", "[bad-input]") {
    const std::string out = temp_path("resample.json");
    // Boost wrapped -1 into 2^64 - 1, which ended in an internal vector::reserve error.
    check_input_error(run_cli("run --resample-rate 3 --resample-jobs -1 --out '" + out + "'"), {"--resample-jobs"});
    // Without a rate the count was silently ignored.
    check_input_error(run_cli("run --resample-jobs 10 --out '" + out + "'"), {"--resample-jobs", "--resample-rate"});
    const std::string cfg = write_temp("resample-config.json", R"({"resample_jobs": 10})");
    check_input_error(run_cli("validate '" + cfg + "'"), {"resample_jobs", "resample_rate"});
    check_input_error(run_cli("run --config '" + cfg + "' --out '" + out + "'"), {"resample_jobs", "resample_rate"});
    check_input_error(run_cli("trace stats '" + default_run_config().trace + "' --resample-jobs 10"),
                      {"--resample-jobs", "--resample-rate"});
    CHECK_FALSE(std::filesystem::exists(out));
    // A rate from a flag completes a count from the config file.
    const CliResult ok = run_cli("run --config '" + cfg + "' --resample-rate 30 --out '" + out + "'");
    INFO(ok.err);
    CHECK(ok.exit_code == 0);
    CHECK(ok.out.find("jobs         10 ") != std::string::npos);
    std::filesystem::remove(out);
}

TEST_CASE("run config: min_gpus/max_gpus are range-checked before they become an int", "[bad-input]") {
    // 4294967297 = 2^32 + 1 used to be cast to int (1) and then pass the range check.
    for (const char* key : {"min_gpus", "max_gpus"}) {
        INFO(key);
        const std::string cfg = write_temp("gpus-config.json", fmt::format("{{\"{}\": 4294967297}}", key));
        check_input_error(run_cli("validate '" + cfg + "'"), {cfg + ": " + key, "[0, 10000000]"});
        std::string flag = key;
        std::replace(flag.begin(), flag.end(), '_', '-');
        check_input_error(run_cli("run --" + flag + " 4294967297 --out ''"), {"--" + flag});
    }
}

TEST_CASE("unknown models: an error naming --unknown-models, or run model-agnostic and counted", "[replay]") {
    // 2 nodes x 4 GPUs of type g; the profile knows only 'known' (2 it/s per GPU). Everything fits at once.
    const auto in =
        inputs_from_text(homogeneous_cluster_json(2, 4), R"({"models": {"known": {"throughput": {"g": 2}}}})",
                         "job_id,submit_time,num_gpus,duration,model,gpu_type\n"
                         "a,0,2,100,mystery,g\n"
                         "b,10,1,50,known,g\n"
                         "c,20,4,30,mystery2,\n"
                         "d,30,1,40,mystery,\n");
    RunConfig c;
    c.out.clear();
    SECTION("error (the default)") {
        CHECK_THROWS_WITH(simulate(in, c), Catch::Contains("trace.csv:2: column 'model': model 'mystery' is not in "
                                                           "the throughput profile") &&
                                               Catch::Contains("--unknown-models agnostic"));
    }
    SECTION("agnostic") {
        apply_config_json(c, Json{{"unknown_models", "agnostic"}}, "cfg.json");
        const RunOutcome o = simulate(in, c);
        CHECK(o.summary.agnostic_jobs == 3);
        CHECK(o.summary.finished == 4);
        // A job without a model takes exactly its duration on its original GPU count.
        CHECK(start_s(o, 0) == 0);
        CHECK(finish_s(o, 0) == 100);
        CHECK(finish_s(o, 1) == 60);  // the known model: 50 s x 2 it/s of work at 2 it/s
        CHECK(finish_s(o, 2) == 50);
        CHECK(finish_s(o, 3) == 70);
        CHECK(o.config_json.find("\"unknown_models\":\"agnostic\"") != std::string::npos);
    }
    SECTION("a trace whose models are all known runs the same under both settings") {
        const auto known =
            inputs_from_text(homogeneous_cluster_json(2, 4), R"({"models": {"known": {"throughput": {"g": 2}}}})",
                             "job_id,submit_time,num_gpus,duration,model\nb,10,1,50,known\n");
        const RunOutcome error = simulate(known, c);
        c.unknown_models = UnknownModels::Agnostic;
        const RunOutcome agnostic = simulate(known, c);
        CHECK(agnostic.summary.agnostic_jobs == 0);
        CHECK(finish_s(error, 0) == finish_s(agnostic, 0));
        CHECK(error.config_json.find("unknown_models") == std::string::npos);
    }
}

TEST_CASE("unknown models: Muri's trace1 replays on the bundled profile with --unknown-models agnostic",
          "[replay][shared-data]") {
    const std::string path = std::string(DLSIM_SHARED_DATA) + "/traces/muri/trace1.csv";
    if (!shared_data_present(path)) return;
    RunConfig c = default_run_config();
    c.trace = path;
    c.out.clear();
    const RunInputs in = load_inputs(c);
    // The rows whose model_name (5th column) the bundled profile lacks, counted from the file itself.
    std::uint64_t unknown = 0, rows = 0;
    for (const auto& row : read_rows(path, ',', true)) {
        ++rows;
        REQUIRE(row.size() > 4);
        unknown += !in.profiles.find_model(row[4]).has_value();
    }
    REQUIRE(unknown > 0);
    CHECK_THROWS_WITH(simulate(in, c), Catch::Contains("--unknown-models agnostic"));

    c.unknown_models = UnknownModels::Agnostic;
    const RunOutcome o = simulate(in, c);
    CHECK(o.summary.jobs == rows);
    CHECK(o.summary.agnostic_jobs == unknown);
    CHECK(o.summary.finished == rows);

    const CliResult r = run_cli("run --trace '" + path + "' --unknown-models agnostic --out ''");
    INFO(r.err);
    CHECK(r.exit_code == 0);
}

TEST_CASE("output: a pipe or device is written in place, never replaced by a renamed file", "[unit]") {
    // `--out /dev/null` once renamed the finished temporary file over the device node. A FIFO stands in
    // for the device here: after the run it must still be a FIFO, and what a reader got is the result.
    const auto fifo = temp_path("out-fifo");
    std::filesystem::remove(fifo);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::string got;  // what a reader of the pipe receives
    std::thread reader([&] { got = slurp(fifo); });
    const auto r = run_cli("run --no-job-records --out " + fifo);
    reader.join();
    CHECK(r.exit_code == 0);
    CHECK(std::filesystem::is_fifo(fifo));
    CHECK_FALSE(std::filesystem::exists(fifo + ".tmp"));
    CHECK(nlohmann::json::parse(got).contains("summary"));
    std::filesystem::remove(fifo);
}

}  // namespace dlsim::test::run_config_tests
