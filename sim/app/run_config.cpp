#include "sim/app/run_config.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"
#include "models/base/parse.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#ifndef DLSIM_SOURCE_DIR
#define DLSIM_SOURCE_DIR "."
#endif

namespace dlsim {

namespace jf = json_fields;

RunConfig default_run_config() {
    RunConfig c;
    const std::string root = DLSIM_SOURCE_DIR;
    c.trace = root + "/traces/samples/gavel_mix_default.csv";
    c.cluster = root + "/models/clusters/gavel_simulated.json";
    c.profiles = root + "/models/profiles/gavel.json";
    c.out = "results/run.json";
    return c;
}

void add_param(RunConfig& config, const std::string& kv) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
        throw InputError(fmt::format("--param: expected k=v, got '{}'", kv));
    config.params[kv.substr(0, eq)] = kv.substr(eq + 1);
}

std::span<const TextSetting> text_settings() {
    static constexpr TextSetting kSettings[] = {
        {"trace", &RunConfig::trace},         {"trace_format", &RunConfig::trace_format},
        {"cluster", &RunConfig::cluster},     {"profiles", &RunConfig::profiles},
        {"policy", &RunConfig::policy},       {"placement", &RunConfig::placement},
        {"out", &RunConfig::out},             {"jobs_csv", &RunConfig::jobs_csv},
        {"event_log", &RunConfig::event_log},
    };
    return kSettings;
}

double parse_time_unit(const std::string& text) {
    if (text == "s") return 1;
    if (text == "ms") return 1e-3;
    if (text == "us") return 1e-6;
    if (text == "min") return 60;
    if (text == "h") return 3600;
    if (auto v = parse_double(text); v && *v > 0) return *v;
    throw InputError(fmt::format("--time-unit: expected s, ms, us, min, h or seconds per unit, got '{}'", text));
}

BadLinePolicy parse_bad_line_policy(const std::string& value, const std::string& where) {
    if (value == "error") return BadLinePolicy::Error;
    if (value == "skip") return BadLinePolicy::Skip;
    throw InputError(fmt::format("{}: expected error or skip, got '{}'", where, value));
}

std::span<const char* const> run_config_keys() {
    static constexpr const char* kKeys[] = {
        "trace",      "trace_format", "cluster",      "profiles",     "policy",        "params",
        "placement",  "seed",         "restart_cost", "strict",       "on_bad_line",   "timeseries_points",
        "out",        "jobs_csv",     "event_log",    "job_records",  "time_unit",     "status",
        "min_gpus",   "max_gpus",     "vc",           "time_window",  "load_scale",    "max_jobs",
        "resample_rate", "resample_jobs", "measure_jobs", "measure_time"};
    return kKeys;
}

void apply_config_file(RunConfig& c, const std::string& path) { apply_config_json(c, jf::parse_file(path), path); }

void apply_config_json(RunConfig& c, const jf::Json& doc, const std::string& path, const std::string& base_dir) {
    jf::require_object(doc, path, "(top level)");
    for (const auto& [key, value] : doc.items()) {
        const auto keys = run_config_keys();
        if (std::find(keys.begin(), keys.end(), key) == keys.end())
            throw InputError(fmt::format("{}: (top level): unknown field \"{}\" (expected one of: {})", path, key,
                                         fmt::join(keys, ", ")));
    }
    for (const auto& setting : text_settings())
        if (doc.contains(setting.key)) c.*setting.field = jf::string(doc[setting.key], path, setting.key);
    if (!base_dir.empty())
        for (std::string* input : {&c.trace, &c.cluster, &c.profiles})
            if (!input->empty() && std::filesystem::path(*input).is_relative()) *input = base_dir + "/" + *input;
    if (doc.contains("params")) {
        for (const auto& [k, v] : jf::require_object(doc["params"], path, "params").items())
            c.params[k] = v.is_string() ? v.get<std::string>() : v.dump();
    }
    if (doc.contains("seed")) c.seed = static_cast<std::uint64_t>(jf::integer(doc["seed"], path, "seed", 0));
    if (doc.contains("restart_cost")) c.restart_cost = jf::number(doc["restart_cost"], path, "restart_cost", 0);
    if (doc.contains("timeseries_points"))
        c.timeseries_points = static_cast<std::size_t>(jf::integer(doc["timeseries_points"], path, "timeseries_points", 0));
    if (doc.contains("strict")) {
        if (!doc["strict"].is_boolean()) jf::fail(path, "strict", "true or false", &doc["strict"]);
        c.strict = doc["strict"].get<bool>();
    }
    if (doc.contains("job_records")) {
        if (!doc["job_records"].is_boolean()) jf::fail(path, "job_records", "true or false", &doc["job_records"]);
        c.job_records = doc["job_records"].get<bool>();
    }
    TraceTransforms& t = c.transforms;
    if (doc.contains("time_unit")) c.time_unit = parse_time_unit(jf::string(doc["time_unit"], path, "time_unit"));
    if (doc.contains("status")) t.status = jf::string(doc["status"], path, "status");
    if (doc.contains("min_gpus")) t.min_gpus = static_cast<int>(jf::integer(doc["min_gpus"], path, "min_gpus", 0));
    if (doc.contains("max_gpus")) t.max_gpus = static_cast<int>(jf::integer(doc["max_gpus"], path, "max_gpus", 0));
    if (doc.contains("vc")) {
        if (!doc["vc"].is_array()) jf::fail(path, "vc", "an array of VC names", &doc["vc"]);
        for (std::size_t i = 0; i < doc["vc"].size(); ++i)
            t.vcs.push_back(jf::string(doc["vc"][i], path, fmt::format("vc[{}]", i)));
    }
    if (doc.contains("time_window")) parse_time_window(jf::string(doc["time_window"], path, "time_window"), t);
    if (doc.contains("load_scale")) t.load_scale = jf::number(doc["load_scale"], path, "load_scale", 0);
    if (doc.contains("max_jobs")) t.max_jobs = static_cast<std::size_t>(jf::integer(doc["max_jobs"], path, "max_jobs", 0));
    if (doc.contains("resample_rate")) t.resample_rate = jf::number(doc["resample_rate"], path, "resample_rate", 0);
    if (doc.contains("resample_jobs"))
        t.resample_jobs = static_cast<std::size_t>(jf::integer(doc["resample_jobs"], path, "resample_jobs", 0));
    if (doc.contains("measure_jobs") && doc.contains("measure_time"))
        jf::fail(path, "measure_jobs", "one of measure_jobs and measure_time, not both");
    if (doc.contains("measure_jobs")) c.measure = parse_measure_jobs(jf::string(doc["measure_jobs"], path, "measure_jobs"));
    if (doc.contains("measure_time")) c.measure = parse_measure_time(jf::string(doc["measure_time"], path, "measure_time"));
    if (doc.contains("on_bad_line"))
        c.on_bad_line = parse_bad_line_policy(jf::string(doc["on_bad_line"], path, "on_bad_line"), path + ": on_bad_line");
}

}  // namespace dlsim
