#pragma once
// One run's configuration: one field per long flag of `dlsim run` (DESIGN.md "Inputs", run config).
#include "sim/metrics.hpp"
#include "traces/canonical_csv.hpp"
#include "traces/trace_transforms.hpp"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <map>
#include <span>
#include <string>

namespace dlsim {

struct RunConfig {
    std::string trace, trace_format = "auto", cluster, profiles;
    double time_unit = 0;  ///< seconds per unit of the trace's relative times; 0 = the format's default
    TraceTransforms transforms;  ///< filters and re-sampling (their seed is the run's)
    std::string policy = "fifo";
    std::map<std::string, std::string> params;  ///< raw k=v, checked against the policy's specs
    std::string placement = "consolidated";
    std::uint64_t seed = 0;
    double restart_cost = 0;                    ///< s
    bool strict = false;
    BadLinePolicy on_bad_line = BadLinePolicy::Error;
    std::size_t timeseries_points = 2000;
    MeasureWindow measure;                      ///< which jobs the JCT statistics cover
    // Outputs (not part of the resolved config that identifies a run).
    std::string out, jobs_csv, event_log;
    bool job_records = true;
};

/// The bundled defaults: a synthetic Gavel-mix trace on the Gavel-like 108-GPU heterogeneous cluster
/// with Gavel's measured throughputs. Paths are absolute (the source tree's), so any folder works.
RunConfig default_run_config();

/// Overlays a `--config F.json` file on `config`; unknown keys and bad values are InputErrors.
void apply_config_file(RunConfig& config, const std::string& path);

/// Overlays one JSON object of run-config keys; errors name `origin` (file and place). Relative input
/// paths (trace, cluster, profiles) are taken relative to `base_dir` when it is not empty.
void apply_config_json(RunConfig& config, const nlohmann::ordered_json& doc, const std::string& origin,
                       const std::string& base_dir = "");

/// Every key a run config may hold.
std::span<const char* const> run_config_keys();

/// Splits "k=v" into the params map; a malformed one is an InputError.
void add_param(RunConfig& config, const std::string& kv);

/// A text setting: its run-config key (the long flag is the key with '-' for '_') and its field.
struct TextSetting {
    const char* key;
    std::string RunConfig::*field;
};
/// Every text setting, shared by the config-file reader and the command line.
std::span<const TextSetting> text_settings();

/// "s", "ms", "us", "min", "h" or a number of seconds per unit; else an InputError.
double parse_time_unit(const std::string& text);

/// "error" or "skip"; anything else is an InputError naming `where`.
BadLinePolicy parse_bad_line_policy(const std::string& value, const std::string& where);

}  // namespace dlsim
