#pragma once
// One run's configuration: one field per long flag of `dlsim run` (sim/app/README.md), and
// the one table of its keys that drives the config-file reader (also sweep specs), the `dlsim run` flags
// and their --help, `dlsim validate` of a run config, and the run's identity as echoed in the result.
#include "models/network_model.hpp"
#include "models/rate_model.hpp"
#include "models/restart_model.hpp"
#include "sim/job_spec.hpp"
#include "sim/metrics.hpp"
#include "traces/readers/canonical_csv.hpp"
#include "traces/trace_transforms.hpp"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dlsim {

struct ParamSpec;  // policies/registry.hpp

/// Run-config key `compat`: which simulator's conventions a run follows.
enum class Compat : std::uint8_t { None, Gavel };
/// Run-config key `jobs_csv_format`: the job table's columns.
enum class JobsCsvFormat : std::uint8_t { Dlsim, Batsim };

struct RunConfig {
    std::string trace, trace_format = "auto", cluster, profiles;
    double time_unit = 0;        ///< seconds per unit of the trace's relative times; 0 = the format's default
    TraceTransforms transforms;  ///< filters and re-sampling (their seed is the run's)
    std::string policy = "fifo";
    std::map<std::string, std::string> params;  ///< raw k=v, checked against the policy's specs
    /// The folder of the config file or sweep spec that gave `params` (relative file parameters are read
    /// from there); "" = the working directory (flags). Not part of the run identity.
    std::string params_dir;
    std::string placement = "consolidated";
    /// How jobs share links (models/README.md); unset = duty, or none under compat gavel (effective_network).
    std::optional<ContentionMode> network;
    /// A compatibility preset: Gavel's simulator (measured multi-GPU rates, no network, the policy's
    /// gavel_compat parameter, stop_after_measured); see effective_network and compat_params.
    Compat compat = Compat::None;
    /// End the run once every job of the measurement window has finished (Gavel's continuous runs);
    /// unset = off, or on under compat gavel (effective_stop_after_measured).
    std::optional<bool> stop_after_measured;
    std::uint64_t seed = 0;
    /// The restart model (models/README.md) and its parameters: keys restart_model, restart_cost,
    /// checkpoint_bytes_per_param, storage_bandwidth, migration_cost.
    RestartSpec restart;
    double wait_threshold = 3600;  ///< s: summary.jobs_waited_over_threshold counts longer waits
    bool strict = false;
    BadLinePolicy on_bad_line = BadLinePolicy::Error;
    std::size_t timeseries_points = 2000;
    MeasureWindow measure;                                ///< which jobs the JCT statistics cover
    UnknownModels unknown_models = UnknownModels::Error;  ///< jobs whose model the profile lacks
    TypeChoice type_choice = TypeChoice::Fastest;         ///< original: jobs stay on their recorded type
    std::string batch_size = "auto";  ///< auto, adaptive or trace: how jobs with goodput data pick a batch size
    /// Calibration by model name: jobs with goodput data progress this many times slower than measured.
    std::map<std::string, double> slowdowns;
    // Outputs (not part of the resolved config that identifies a run).
    std::string out, jobs_csv, event_log, timeline;
    /// The job table's columns: dlsim's own, or Batsim's out_jobs.csv (evalys reads it).
    JobsCsvFormat jobs_csv_format = JobsCsvFormat::Dlsim;
    /// The part of the run the timeline shows: [from, to] in s from the trace's time 0 (default: all).
    double timeline_from = 0, timeline_to = -1;
    bool job_records = true;
    /// Benchmarks: time each network component solve (RunOutcome::network_solve_micros). Not a config key.
    bool time_network_solves = false;
};

/// The contention mode the run uses: the key's value, else none under compat gavel, else duty.
ContentionMode effective_network(const RunConfig& c);
/// Whether the run ends when the measurement window's jobs have all finished: the key's value, else
/// true under compat gavel.
bool effective_stop_after_measured(const RunConfig& c);
/// Whether jobs with goodput data adapt their batch size: batch_size adaptive, or auto under a pollux or sia
/// policy.
bool effective_adapt_batch(const RunConfig& c);
/// The multi-GPU rate model the run uses: measured under compat gavel, else linear.
MultiGpuRate effective_rate_mode(const RunConfig& c);
/// The raw policy parameters with compat gavel's one addition: gavel_compat=true when the policy declares
/// a parameter of exactly that name and the config does not set it.
std::map<std::string, std::string> compat_params(const RunConfig& c, const std::vector<ParamSpec>& policy_params);

/// The bundled defaults: a synthetic Gavel-mix trace on the Gavel-like 108-GPU heterogeneous cluster
/// with Gavel's measured throughputs. Paths are absolute, found from the binary (bundled_data.hpp), so any
/// working folder works.
RunConfig default_run_config();

/// SHA-256 of the three input files.
struct InputHashes {
    std::string trace, cluster, profiles;
};

// ---- The table of run-config keys -------------------------------------------------------------------

/// How a key's value is written: in a config file (JSON) and as a flag (text).
enum class KeyKind {
    Text,     ///< a non-empty string (some keys parse it further, e.g. "A:B" windows)
    Path,     ///< a file name; in a sweep spec relative to the spec's folder
    Choice,   ///< one of `choices`
    Integer,  ///< a whole number in [imin, imax] (JSON integer; flags parse it themselves, never wrapping)
    Number,   ///< a finite number in [min, max] ((min, max] when min_open)
    Bool,     ///< JSON true/false; the flag is a switch: --key sets true, a flag named --no-key sets false
    List,     ///< JSON array of strings; the flag is repeatable; a later source replaces the list
    Params,   ///< JSON object k: v; the flag is repeatable k=v; a later source overlays the keys
};

/// One key's value, checked against its kind and range, as `RunConfigKey::set` receives it.
struct KeyValue {
    std::string text;                                         ///< Text, Path, Choice
    std::uint64_t integer = 0;                                ///< Integer
    double number = 0;                                        ///< Number
    bool boolean = false;                                     ///< Bool
    std::vector<std::string> list;                            ///< List
    std::vector<std::pair<std::string, std::string>> params;  ///< Params, in order
};

/// What a run's identity holds besides the config's own fields.
struct IdentityContext {
    const InputHashes* hashes = nullptr;
    const nlohmann::ordered_json* policy_params = nullptr;  ///< resolved (defaults filled in)
    const nlohmann::ordered_json* placer_params = nullptr;
};

/// One run-config key. To add one: add the field to RunConfig, then one row to the table in
/// run_config.cpp (kind, range or choices, default text, help, example, `set`, and `echo` if it changes
/// what a run computes). The config reader, `dlsim run`'s flags and --help, `dlsim validate` and sweep
/// specs pick it up; `trace_option` also offers it on `dlsim trace stats|convert`. A key added to the
/// identity changes every run id unless its echo writes nothing at its default (see unknown_models).
struct RunConfigKey {
    const char* key;  ///< as written in a config file
    KeyKind kind;
    const char* help;                  ///< one line for --help
    const char* default_text;          ///< the default, as --help shows it
    const char* example;               ///< a valid value as JSON text (documentation; a test applies every one)
    std::uint64_t imin = 0, imax = 0;  ///< Integer range, inclusive
    double min = 0, max = 0;           ///< Number range
    bool min_open = false;             ///< Number: min itself is outside the range
    const char* choices = nullptr;     ///< Choice: "a|b|c"
    /// Stores a checked value; may parse text further (an InputError then names `where`, the flag or key).
    void (*set)(RunConfig& config, const KeyValue& value, const std::string& where) = nullptr;
    /// Writes the key's part of the run identity into `identity`, or nothing (not part of it). The
    /// table's order is the order of the serialised identity: moving a row changes every run id.
    void (*echo)(nlohmann::ordered_json& identity, const RunConfig& config, const IdentityContext& ctx) = nullptr;
    bool trace_option = false;       ///< also a flag of `dlsim trace stats|convert`
    const char* excludes = nullptr;  ///< a key that may not be given together with this one (in one source)
    const char* flag = nullptr;      ///< the long flag when it is not the key with '-' for '_'
    /// Integer and Number keys: the value in a config (none: off or unset), so check_run_config holds a config
    /// built in memory to the same range as one read from a file or flags.
    std::optional<double> (*value)(const RunConfig& config) = nullptr;
};

/// Every run-config key, in the order of the identity and of --help.
std::span<const RunConfigKey> run_config_table();

/// The row of a key, or null.
const RunConfigKey* find_run_config_key(std::string_view key);

/// The key's long flag (without "--").
std::string flag_name(const RunConfigKey& key);

/// "an integer in [0, 1000000]", "a number in (0, 1e6]", "error or agnostic", or "" (any text).
std::string expected_text(const RunConfigKey& key);

/// Overlays a `--config F.json` file on `config`; unknown keys and bad values are InputErrors.
void apply_config_file(RunConfig& config, const std::string& path);

/// Overlays one JSON object of run-config keys; errors name `origin` (file and place) and the key.
/// Relative input paths (trace, cluster, profiles) are taken relative to `base_dir` when it is not empty.
void apply_config_json(RunConfig& config, const nlohmann::ordered_json& doc, const std::string& origin,
                       const std::string& base_dir = "");

/// Overlays one key given as a flag: `values` are the flag's arguments (every occurrence, for List and
/// Params; none for Bool). Errors name the flag.
void apply_flag(RunConfig& config, const RunConfigKey& key, const std::vector<std::string>& values);

/// The checks on a whole config, after every source is applied: each numeric key within its range, and the
/// checks that span keys (a sweep's base may set resample_jobs and its grid resample_rate): resample_jobs
/// needs resample_rate; compat gavel models no network. (Keys that exclude each other are checked per source,
/// where both are visible.) resolve() calls it once per run.
void check_run_config(const RunConfig& config);

/// The resolved parameters that identify a run, written by the table's echo functions in its order.
nlohmann::ordered_json run_identity(const RunConfig& config, const IdentityContext& ctx);

/// A measurement window as the identity and the summary echo it: {"by": "all"|"jobs"|"time", "from", "to"}.
nlohmann::ordered_json measure_json(const MeasureWindow& window);

/// Splits "k=v" into the params map; a malformed one is an InputError.
void add_param(RunConfig& config, const std::string& kv);

/// "s", "ms", "us", "min", "h" or a number of seconds per unit in (0, 1e6]; else an InputError naming `where`.
double parse_time_unit(const std::string& text, const std::string& where = "--time-unit");

/// "error" or "skip"; anything else is an InputError naming `where`.
BadLinePolicy parse_bad_line_policy(const std::string& value, const std::string& where);

/// Largest --timeseries-points (see run_config.cpp for why).
inline constexpr std::uint64_t kMaxTimeseriesPoints = 1'000'000;

}  // namespace dlsim
