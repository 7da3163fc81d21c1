#include "sim/app/run_config.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"
#include "models/base/parse.hpp"
#include "policies/registry.hpp"
#include "sim/app/bundled_data.hpp"
#include "traces/readers/trace_format.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>

namespace dlsim {

namespace jf = json_fields;
using Json = jf::Json;

RunConfig default_run_config() {
    RunConfig c;
    c.trace = bundled_file("traces/samples/gavel_mix_default.csv");
    c.cluster = bundled_file("models/clusters/gavel_simulated.json");
    c.profiles = bundled_file("models/profiles/gavel.json");
    c.out = "results/run.json";
    return c;
}

namespace {

/// "k=v" split at the first '='; anything else is an InputError naming `flag`.
std::pair<std::string, std::string> split_param(const std::string& kv, const std::string& flag) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError(fmt::format("{}: expected k=v, got '{}'", flag, kv));
    return {kv.substr(0, eq), kv.substr(eq + 1)};
}

}  // namespace

void add_param(RunConfig& config, const std::string& kv) {
    auto [key, value] = split_param(kv, "--param");
    config.params[key] = value;
}

double parse_time_unit(const std::string& text, const std::string& where) {
    if (text == "s") return 1;
    if (text == "ms") return 1e-3;
    if (text == "us") return 1e-6;
    if (text == "min") return 60;
    if (text == "h") return 3600;
    if (auto v = parse_double(text); v && *v > 0 && *v <= 1e6) return *v;
    throw InputError(
        fmt::format("{}: expected s, ms, us, min, h or seconds per unit in (0, 1e6], got '{}'", where, text));
}

BadLinePolicy parse_bad_line_policy(const std::string& value, const std::string& where) {
    if (value == "error") return BadLinePolicy::Error;
    if (value == "skip") return BadLinePolicy::Skip;
    throw InputError(fmt::format("{}: expected error or skip, got '{}'", where, value));
}

namespace {

// ---- Ranges -----------------------------------------------------------------------------------------
// Every numeric key has one, checked where the value is read (flag or config file), so nothing out of
// range reaches the engine:
// - timeseries_points [0, 1e6]: the metrics hold points x (GPU types + 2) doubles and the result writes
//   as many numbers; 1e6 points is a bucket per 30 s over a year of simulated time (far more than a
//   plot can show) and costs 8 MB per series, while 3.7e18 overflowed the bucket count (SIGSEGV).
// - seed [0, 2^64 - 1]: every seed the generators accept.
// - restart_cost [0, 1e12] s: engine time ends near 4.6e12 s, and every job must finish within 1e12 s.
//   migration_cost and wait_threshold share that bound; a checkpoint model's charge is checked against it
//   per model when it is built (models/restart_model.cpp).
// - checkpoint_bytes_per_param [0, 1e6], storage_bandwidth (0, 1e6] GB/s: finite, and no division by 0.
// - min_gpus, max_gpus [0, 1e7] (0 = no bound): a cluster has at most 10,000,000 GPUs; checked on the
//   64-bit value before it is stored as an int.
// - resample_jobs [1, 1e8], max_jobs [0, 1e8] (0 = all): a hundred times the million-job benchmark;
//   1e8 trace records alone take about 11 GB.
// - resample_rate (0, 1e6] jobs/hour, load_scale (0, 1e6]: finite and positive; the times they
//   produce are range-checked by the transforms themselves.
// - time_unit (0, 1e6] s per unit: up to 11.6 days per unit.
constexpr std::uint64_t kMaxGpus = 10'000'000;
constexpr std::uint64_t kMaxJobs = 100'000'000;

Json window_json(const TraceTransforms& t) {
    return Json::array({t.window_start, t.window_end < 0 ? Json() : Json(t.window_end)});
}

}  // namespace

Json measure_json(const MeasureWindow& w) {
    switch (w.by) {
        case MeasureWindow::By::Jobs:
            return {{"by", "jobs"}, {"from", w.first_job}, {"to", w.end_job == UINT64_MAX ? Json() : Json(w.end_job)}};
        case MeasureWindow::By::SubmitTime:
            return {{"by", "time"}, {"from", w.from}, {"to", w.to < 0 ? Json() : Json(w.to)}};
        case MeasureWindow::By::All:
            break;
    }
    return {{"by", "all"}};
}

namespace {

/// `timeline_window` FROM:TO, seconds; an empty side is open.
void set_timeline_window(RunConfig& c, const std::string& text) {
    constexpr const char* kWhat = "FROM:TO, seconds with 0 <= FROM < TO (either side may be empty)";
    const auto colon = text.find(':');
    const auto bad = [&] { return InputError(fmt::format("--timeline-window: expected {}, got '{}'", kWhat, text)); };
    if (colon == std::string::npos) throw bad();
    const std::string a = text.substr(0, colon), b = text.substr(colon + 1);
    const auto from = a.empty() ? std::optional<double>(0) : parse_double(a);
    const auto to = b.empty() ? std::optional<double>(-1) : parse_double(b);
    if (!from || !to || !std::isfinite(*from) || !std::isfinite(*to) || *from < 0 || *from > 1e12 || *to > 1e12 ||
        (*to >= 0 && !(*to > *from)))
        throw bad();
    c.timeline_from = *from;
    c.timeline_to = *to;
}

}  // namespace

namespace {

using K = KeyKind;
using V = const KeyValue&;
using W = const std::string&;
using I = Json&;
using C = const RunConfig&;
using X = const IdentityContext&;

/// A Params key's values read as numbers in [lo, hi], into `out` by name (e.g. model name -> seconds);
/// `expected` says what a value must be, for the error.
void read_named_numbers(V v, W where, const char* key, double lo, double hi, const char* expected,
                        std::map<std::string, double>& out) {
    for (const auto& [name, text] : v.params) {
        double x = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
        if (ec != std::errc() || ptr != text.data() + text.size() || !(x >= lo && x <= hi))
            throw InputError(fmt::format("{}: {}.{}: expected {}, got '{}'", where, key, name, expected, text));
        out[name] = x;
    }
}

/// The trace_format key's help, naming every format of the registry.
const char* trace_format_help() {
    static const std::string help = [] {
        std::string out = "trace format: auto (detect it)";
        for (const TraceFormat& f : trace_formats()) out += ", " + std::string(f.name);
        return out + " (see 'dlsim list formats')";
    }();
    return help.c_str();
}

// The one table. The order of the rows with an echo is the order of the serialised identity (run ids
// hash it): trace{format, sha256, time_unit, transforms{...}}, cluster, profiles, policy, params,
// placement, placement_params, seed, restart_cost, strict, on_bad_line, timeseries_points, measure.
const RunConfigKey kTable[] = {
    {.key = "trace_format",
     .kind = K::Text,
     .help = trace_format_help(),
     .default_text = "auto",
     .example = R"("auto")",
     .set = [](RunConfig& c, V v, W) { c.trace_format = v.text; },
     .echo = [](I id, C c, X) { id["trace"]["format"] = c.trace_format; },
     .trace_option = true},
    {.key = "trace",
     .kind = K::Path,
     .help = "trace file (any supported format, see --trace-format)",
     .default_text = "the bundled synthetic Gavel-mix trace",
     .example = R"("trace.csv")",
     .set = [](RunConfig& c, V v, W) { c.trace = v.text; },
     .echo = [](I id, C, X x) { id["trace"]["sha256"] = x.hashes->trace; }},  // its content, not its path
    {.key = "time_unit",
     .kind = K::Text,
     .help = "unit of the trace's relative times: s, ms, us, min, h or seconds per unit in (0, 1e6]",
     .default_text = "the format's own",
     .example = R"("ms")",
     .set = [](RunConfig& c, V v, W where) { c.time_unit = parse_time_unit(v.text, where); },
     .echo = [](I id, C c, X) { id["trace"]["time_unit"] = c.time_unit; },
     .trace_option = true},
    {.key = "status",
     .kind = K::Choice,
     .help = "keep all jobs (failed and killed ones used GPUs too) or completed ones only",
     .default_text = "all",
     .example = R"("completed")",
     .choices = "all|completed",
     .set = [](RunConfig& c, V v, W) { c.transforms.status = v.text; },
     .echo = [](I id, C c, X) { id["trace"]["transforms"]["status"] = c.transforms.status; },
     .trace_option = true},
    {.key = "min_gpus",
     .kind = K::Integer,
     .help = "keep jobs with at least this many GPUs (0: no bound)",
     .default_text = "0",
     .example = "2",
     .imin = 0,
     .imax = kMaxGpus,
     .set = [](RunConfig& c, V v, W) { c.transforms.min_gpus = static_cast<int>(v.integer); },
     .echo = [](I id, C c, X) { id["trace"]["transforms"]["min_gpus"] = c.transforms.min_gpus; },
     .trace_option = true,
     .value = [](C c) -> std::optional<double> { return static_cast<double>(c.transforms.min_gpus); }},
    {.key = "max_gpus",
     .kind = K::Integer,
     .help = "keep jobs with at most this many GPUs (0: no bound)",
     .default_text = "0",
     .example = "8",
     .imin = 0,
     .imax = kMaxGpus,
     .set = [](RunConfig& c, V v, W) { c.transforms.max_gpus = static_cast<int>(v.integer); },
     .echo = [](I id, C c, X) { id["trace"]["transforms"]["max_gpus"] = c.transforms.max_gpus; },
     .trace_option = true,
     .value = [](C c) -> std::optional<double> { return static_cast<double>(c.transforms.max_gpus); }},
    {.key = "vc",
     .kind = K::List,
     .help = "keep only jobs of these VCs (repeatable)",
     .default_text = "all VCs",
     .example = R"(["vc1", "vc2"])",
     .set = [](RunConfig& c, V v, W) { c.transforms.vcs = v.list; },
     .echo = [](I id, C c, X) { id["trace"]["transforms"]["vc"] = c.transforms.vcs; },
     .trace_option = true},
    {.key = "time_window",
     .kind = K::Text,
     .help = "keep jobs submitted in START:END (s from the trace start; either may be empty)",
     .default_text = "all",
     .example = R"("3600:86400")",
     .set =
         [](RunConfig& c, V v, W) {
             c.transforms.window_start = 0;
             c.transforms.window_end = -1;
             parse_time_window(v.text, c.transforms);
         },
     .echo = [](I id, C c, X) { id["trace"]["transforms"]["time_window"] = window_json(c.transforms); },
     .trace_option = true},
    {.key = "resample_rate",
     .kind = K::Number,
     .help = "re-sample the trace's jobs with Poisson arrivals at this many jobs/hour",
     .default_text = "off",
     .example = "3",
     .min = 0,
     .max = 1e6,
     .min_open = true,
     .set = [](RunConfig& c, V v, W) { c.transforms.resample_rate = v.number; },
     .echo = [](I id, C c, X) { id["trace"]["transforms"]["resample_rate"] = c.transforms.resample_rate; },
     .trace_option = true,
     .value = [](C c) -> std::optional<double> {
         return c.transforms.resample_rate == 0 ? std::nullopt : std::optional(c.transforms.resample_rate);
     }},
    {.key = "resample_jobs",
     .kind = K::Integer,
     .help = "how many jobs to re-sample (needs --resample-rate)",
     .default_text = "as many as the trace has",
     .example = "4000",
     .imin = 1,
     .imax = kMaxJobs,
     .set = [](RunConfig& c, V v, W) { c.transforms.resample_jobs = static_cast<std::size_t>(v.integer); },
     .echo = [](I id, C c, X) { id["trace"]["transforms"]["resample_jobs"] = c.transforms.resample_jobs; },
     .trace_option = true,
     .value = [](C c) -> std::optional<double> {
         return c.transforms.resample_jobs == 0
                    ? std::nullopt
                    : std::optional<double>(static_cast<double>(c.transforms.resample_jobs));
     }},
    {.key = "load_scale",
     .kind = K::Number,
     .help = "divide every inter-arrival gap by this factor",
     .default_text = "1",
     .example = "1.5",
     .min = 0,
     .max = 1e6,
     .min_open = true,
     .set = [](RunConfig& c, V v, W) { c.transforms.load_scale = v.number; },
     .echo = [](I id, C c, X) { id["trace"]["transforms"]["load_scale"] = c.transforms.load_scale; },
     .trace_option = true,
     .value = [](C c) -> std::optional<double> { return c.transforms.load_scale; }},
    {.key = "max_jobs",
     .kind = K::Integer,
     .help = "keep the first N jobs by submit time (0: all)",
     .default_text = "0",
     .example = "1000",
     .imin = 0,
     .imax = kMaxJobs,
     .set = [](RunConfig& c, V v, W) { c.transforms.max_jobs = static_cast<std::size_t>(v.integer); },
     .echo = [](I id, C c, X) { id["trace"]["transforms"]["max_jobs"] = c.transforms.max_jobs; },
     .trace_option = true,
     .value = [](C c) -> std::optional<double> { return static_cast<double>(c.transforms.max_jobs); }},
    {.key = "cluster",
     .kind = K::Path,
     .help = "cluster spec JSON (models/clusters/)",
     .default_text = "the bundled 108-GPU V100/P100/K80 cluster",
     .example = R"("cluster.json")",
     .set = [](RunConfig& c, V v, W) { c.cluster = v.text; },
     .echo = [](I id, C, X x) { id["cluster"]["sha256"] = x.hashes->cluster; }},
    {.key = "profiles",
     .kind = K::Path,
     .help = "throughput profile JSON (models/profiles/)",
     .default_text = "Gavel's measured throughputs",
     .example = R"("profile.json")",
     .set = [](RunConfig& c, V v, W) { c.profiles = v.text; },
     .echo = [](I id, C, X x) { id["profiles"]["sha256"] = x.hashes->profiles; }},
    {.key = "policy",
     .kind = K::Text,
     .help = "scheduling policy (see 'dlsim policies')",
     .default_text = "fifo",
     .example = R"("srtf")",
     .set = [](RunConfig& c, V v, W) { c.policy = v.text; },
     .echo = [](I id, C c, X) { id["policy"] = c.policy; }},
    {.key = "params",
     .kind = K::Params,
     .help = "policy parameter k=v (repeatable; see 'dlsim policies')",
     .default_text = "the policy's defaults",
     .example = R"({"type_order": "spec"})",
     .set =
         [](RunConfig& c, V v, W) {
             for (const auto& [k, value] : v.params) c.params[k] = value;
         },
     .echo = [](I id, C, X x) { id["params"] = *x.policy_params; },
     .flag = "param"},
    {.key = "placement",
     .kind = K::Text,
     .help = "placer (see 'dlsim policies')",
     .default_text = "consolidated",
     .example = R"("consolidated")",
     .set = [](RunConfig& c, V v, W) { c.placement = v.text; },
     .echo =
         [](I id, C c, X x) {
             id["placement"] = c.placement;
             id["placement_params"] = *x.placer_params;
         }},
    {.key = "network",
     .kind = K::Choice,
     .help = "how jobs that share links divide them (see 'dlsim list networks')",
     // The example is none so that every key's example together (a test) stays valid with compat's gavel.
     .default_text = "duty (none under compat gavel)",
     .example = R"("none")",
     .choices = contention_mode_names(),
     .set = [](RunConfig& c, V v, W) { c.network = *parse_contention_mode(v.text); },
     // The mode in effect (compat gavel's none when the key is unset), so a run id names what ran.
     .echo = [](I id, C c, X) { id["network"] = std::string(contention_mode_name(effective_network(c))); }},
    {.key = "seed",
     .kind = K::Integer,
     .help = "random seed (each purpose draws from its own stream)",
     .default_text = "0",
     .example = "7",
     .imin = 0,
     .imax = std::numeric_limits<std::uint64_t>::max(),
     .set = [](RunConfig& c, V v, W) { c.seed = v.integer; },
     .echo = [](I id, C c, X) { id["seed"] = c.seed; }},
    {.key = "restart_cost",
     .kind = K::Number,
     .help = "seconds without progress on every restart after a preemption",
     .default_text = "0",
     .example = "30",
     .min = 0,
     .max = 1e12,
     .set = [](RunConfig& c, V v, W) { c.restart.restart_cost = v.number; },
     .echo = [](I id, C c, X) { id["restart_cost"] = c.restart.restart_cost; },
     .value = [](C c) -> std::optional<double> { return c.restart.restart_cost; }},
    {.key = "restart_first_start",
     .kind = K::Bool,
     .help = "a job's first start costs restart_cost too (Pollux's and Sia's simulators charge their delay on every "
             "allocation)",
     .default_text = "false",
     .example = "true",
     .set = [](RunConfig& c, V v, W) { c.restart.first_start = v.boolean; },
     // In the identity only when set, so the run ids of every config before this key stay the same.
     .echo =
         [](I id, C c, X) {
             if (c.restart.first_start) id["restart_first_start"] = true;
         }},
    {.key = "batch_size",
     .kind = K::Choice,
     .help = "jobs with goodput data (models/README.md): adaptive (each allocation runs at the batch size with the "
             "best goodput, as Pollux), trace (the trace's batch_size, else the application's initial one), or auto "
             "(adaptive under pollux and sia, trace otherwise)",
     .default_text = "auto",
     .example = R"("trace")",
     .choices = "auto|adaptive|trace",
     .set = [](RunConfig& c, V v, W) { c.batch_size = v.text; },
     .echo =
         [](I id, C c, X) {
             if (c.batch_size != "auto") id["batch_size"] = c.batch_size;
         }},
    {.key = "slowdowns",
     .kind = K::Params,
     .help = "jobs with goodput data: progress this many times slower than measured, by model name (repeatable "
             "model=x, x >= 1; Sia's simulator, calibrated to its cluster: cifar10=1.8, ncf=1.5, bert, deepspeech2, "
             "imagenet, yolov3 = 1.2)",
     .default_text = "none",
     .example = R"({"cifar10": "1.8", "ncf": "1.5"})",
     .set = [](RunConfig& c, V v,
               W where) { read_named_numbers(v, where, "slowdowns", 1, 1e6, "a factor in [1, 1e6]", c.slowdowns); },
     .echo =
         [](I id, C c, X) {
             if (!c.slowdowns.empty()) id["slowdowns"] = c.slowdowns;
         }},
    {.key = "strict",
     .kind = K::Bool,
     .help = "a job that can never run on this cluster is an input error (exit 2) instead of rejected",
     .default_text = "false",
     .example = "true",
     .set = [](RunConfig& c, V v, W) { c.strict = v.boolean; },
     .echo = [](I id, C c, X) { id["strict"] = c.strict; }},
    {.key = "on_bad_line",
     .kind = K::Choice,
     .help = "a malformed trace row: error, or skip it and count it",
     .default_text = "error",
     .example = R"("skip")",
     .choices = "error|skip",
     .set = [](RunConfig& c, V v, W where) { c.on_bad_line = parse_bad_line_policy(v.text, where); },
     .echo = [](I id, C c, X) { id["on_bad_line"] = c.on_bad_line == BadLinePolicy::Skip ? "skip" : "error"; },
     .trace_option = true},
    {.key = "timeseries_points",
     .kind = K::Integer,
     .help = "at most this many time-series buckets (0: none)",
     .default_text = "2000",
     .example = "500",
     .imin = 0,
     .imax = kMaxTimeseriesPoints,
     .set = [](RunConfig& c, V v, W) { c.timeseries_points = static_cast<std::size_t>(v.integer); },
     .echo = [](I id, C c, X) { id["timeseries_points"] = c.timeseries_points; },
     .value = [](C c) -> std::optional<double> { return static_cast<double>(c.timeseries_points); }},
    {.key = "measure_jobs",
     .kind = K::Text,
     .help = "JCT statistics over the jobs with arrival index in [A, B) only: A:B (steady state of a Poisson "
             "stream; B may be empty)",
     .default_text = "all jobs",
     .example = R"("1000:3000")",
     .set = [](RunConfig& c, V v, W) { c.measure = parse_measure_jobs(v.text); },
     .echo = [](I id, C c, X) { id["measure"] = measure_json(c.measure); },
     .excludes = "measure_time"},
    {.key = "measure_time",
     .kind = K::Text,
     .help = "JCT statistics over the jobs submitted in [T0, T1) s only: T0:T1 (T1 may be empty)",
     .default_text = "all jobs",
     .example = R"("3600:")",
     .set = [](RunConfig& c, V v, W) { c.measure = parse_measure_time(v.text); },
     .echo = [](I id, C c, X) { id["measure"] = measure_json(c.measure); },  // the same field as measure_jobs
     .excludes = "measure_jobs"},
    {.key = "unknown_models",
     .kind = K::Choice,
     .help = "a job whose model the profile lacks: error, or agnostic (run it like a job without a model: equally "
             "fast on every GPU type, its duration on its GPU count; counted in summary.agnostic_jobs)",
     .default_text = "error",
     .example = R"("agnostic")",
     .choices = "error|agnostic",
     .set = [](RunConfig& c, V v,
               W) { c.unknown_models = v.text == "agnostic" ? UnknownModels::Agnostic : UnknownModels::Error; },
     // In the identity only when not the default, so the run ids of every config before this key stay
     // the same (under "error" a run with unknown models fails, so no finished run is missing it).
     .echo =
         [](I id, C c, X) {
             if (c.unknown_models == UnknownModels::Agnostic) id["unknown_models"] = "agnostic";
         }},
    {.key = "type_choice",
     .kind = K::Choice,
     .help = "which GPU types a job may start on: fastest (any it can run on; the policy picks), or original (only "
             "the type its trace record says it ran on, where the cluster has that type and it fits; other jobs "
             "as fastest)",
     .default_text = "fastest",
     .example = R"("original")",
     .choices = "fastest|original",
     .set = [](RunConfig& c, V v,
               W) { c.type_choice = v.text == "original" ? TypeChoice::Original : TypeChoice::Fastest; },
     // In the identity only when not the default, so the run ids of every config before this key stay the same.
     .echo =
         [](I id, C c, X) {
             if (c.type_choice == TypeChoice::Original) id["type_choice"] = "original";
         }},
    // Restart models and the waiting threshold: in the identity only when not the default, so the run
    // ids of every config before these keys stay the same.
    {.key = "restart_model",
     .kind = K::Choice,
     .help = "what a restart costs: fixed (--restart-cost s), checkpoint (--restart-cost s plus saving and loading "
             "the model's checkpoint, 2 x params x --checkpoint-bytes-per-param / --storage-bandwidth; see "
             "models/README.md), helios (7 s on 1 GPU, 30 s on up to 8, 60 s above) or per_model (--restart-costs "
             "by model name, --restart-cost for the others)",
     .default_text = "fixed",
     .example = R"("checkpoint")",
     .choices = "fixed|checkpoint|helios|per_model",
     .set = [](RunConfig& c, V v, W) { c.restart.kind = *parse_restart_kind(v.text); },
     // Its parameters are echoed with it (they change nothing under another model).
     .echo =
         [](I id, C c, X) {
             if (c.restart.kind == RestartSpec::Kind::Fixed) return;
             Json m = {{"kind", std::string(restart_kind_name(c.restart.kind))}};
             if (c.restart.kind == RestartSpec::Kind::Checkpoint) {
                 m["checkpoint_bytes_per_param"] = c.restart.checkpoint_bytes_per_param;
                 m["storage_bandwidth"] = c.restart.storage_bandwidth;
             }
             if (c.restart.kind == RestartSpec::Kind::PerModel) m["restart_costs"] = c.restart.restart_costs;
             id["restart_model"] = m;
         }},
    {.key = "restart_costs",
     .kind = K::Params,
     .help = "restart_model per_model: seconds per restart by model name (repeatable model=s; Sia's simulator: "
             "cifar10=50, deepspeech2=25, bert=120, yolov3=80, imagenet=250, ncf=15)",
     .default_text = "none",
     .example = R"({"cifar10": "50", "bert": "120"})",
     .set =
         [](RunConfig& c, V v, W where) {
             read_named_numbers(v, where, "restart_costs", 0, 1e12, "seconds in [0, 1e12]", c.restart.restart_costs);
         }},
    {.key = "checkpoint_bytes_per_param",
     .kind = K::Number,
     .help = "restart_model checkpoint: checkpoint bytes per model parameter (4 weights + 8 Adam moments)",
     .default_text = "12",
     .example = "14",
     .min = 0,
     .max = 1e6,
     .set = [](RunConfig& c, V v, W) { c.restart.checkpoint_bytes_per_param = v.number; },
     .value = [](C c) -> std::optional<double> { return c.restart.checkpoint_bytes_per_param; }},
    {.key = "storage_bandwidth",
     .kind = K::Number,
     .help = "restart_model checkpoint: GB/s (1e9 bytes/s) at which a checkpoint is saved and loaded",
     .default_text = "2",
     .example = "10",
     .min = 0,
     .max = 1e6,
     .min_open = true,
     .set = [](RunConfig& c, V v, W) { c.restart.storage_bandwidth = v.number; },
     .value = [](C c) -> std::optional<double> { return c.restart.storage_bandwidth; }},
    {.key = "migration_cost",
     .kind = K::Number,
     .help = "seconds without progress after a move (a migration, or a restart at the instant of a preemption), "
             "instead of a restart's cost",
     .default_text = "what a restart costs",
     .example = "5",
     .min = 0,
     .max = 1e12,
     .set = [](RunConfig& c, V v, W) { c.restart.migration_cost = v.number; },
     .echo =
         [](I id, C c, X) {
             if (c.restart.migration_cost) id["migration_cost"] = *c.restart.migration_cost;
         },
     .value = [](C c) -> std::optional<double> { return c.restart.migration_cost; }},
    {.key = "wait_threshold",
     .kind = K::Number,
     .help = "summary.jobs_waited_over_threshold counts the measured finished jobs that queued longer than this (s)",
     .default_text = "3600",
     .example = "600",
     .min = 0,
     .max = 1e12,
     .set = [](RunConfig& c, V v, W) { c.wait_threshold = v.number; },
     .echo =
         [](I id, C c, X) {
             if (c.wait_threshold != 3600) id["wait_threshold"] = c.wait_threshold;
         },
     .value = [](C c) -> std::optional<double> { return c.wait_threshold; }},
    // Gavel compatibility: in the identity only when not the default, so earlier run ids stay the same.
    {.key = "compat",
     .kind = K::Choice,
     .help = "follow another simulator's conventions: none, or gavel (Gavel's simulator: measured multi-GPU rates, "
             "network none, the policy's gavel_compat parameter on, stop_after_measured on)",
     .default_text = "none",
     .example = R"("gavel")",
     .choices = "none|gavel",
     .set = [](RunConfig& c, V v, W) { c.compat = v.text == "gavel" ? Compat::Gavel : Compat::None; },
     .echo =
         [](I id, C c, X) {
             if (c.compat == Compat::Gavel) id["compat"] = "gavel";
         }},
    {.key = "stop_after_measured",
     .kind = K::Bool,
     .help = "end the run once every job of the measurement window (measure_jobs/measure_time) has finished; the "
             "jobs then queued, running or not yet arrived are reported unfinished (Gavel's continuous runs)",
     .default_text = "false (true under compat gavel)",
     .example = "true",
     .set = [](RunConfig& c, V v, W) { c.stop_after_measured = v.boolean; },
     .echo =
         [](I id, C c, X) {
             const bool on = effective_stop_after_measured(c);
             if (on || c.compat != Compat::None) id["stop_after_measured"] = on;
         }},
    // Outputs: not part of the identity.
    {.key = "out",
     .kind = K::Text,
     .help = "result JSON",
     .default_text = "results/run.json",
     .example = R"("results/run.json")",
     .set = [](RunConfig& c, V v, W) { c.out = v.text; }},
    {.key = "jobs_csv",
     .kind = K::Text,
     .help = "also write the per-job table as CSV",
     .default_text = "none",
     .example = R"("jobs.csv")",
     .set = [](RunConfig& c, V v, W) { c.jobs_csv = v.text; }},
    {.key = "event_log",
     .kind = K::Text,
     .help = "write every arrival, start, preemption (with its cause), finish and wait reason as JSON lines",
     .default_text = "none",
     .example = R"("events.jsonl")",
     .set = [](RunConfig& c, V v, W) { c.event_log = v.text; }},
    {.key = "jobs_csv_format",
     .kind = K::Choice,
     .help = "the job table's columns: dlsim (its own) or batsim (Batsim's out_jobs.csv, which evalys reads)",
     .default_text = "dlsim",
     .example = R"("batsim")",
     .choices = "dlsim|batsim",
     .set = [](RunConfig& c, V v,
               W) { c.jobs_csv_format = v.text == "batsim" ? JobsCsvFormat::Batsim : JobsCsvFormat::Dlsim; }},
    {.key = "timeline",
     .kind = K::Text,
     .help = "write the schedule as a Chrome trace-event JSON (open it in ui.perfetto.dev or chrome://tracing)",
     .default_text = "none",
     .example = R"("timeline.json")",
     .set = [](RunConfig& c, V v, W) { c.timeline = v.text; }},
    {.key = "timeline_window",
     .kind = K::Text,
     .help = "the timeline shows only FROM:TO (s from the trace's time 0; either side may be empty)",
     .default_text = "the whole run",
     .example = R"("3600:7200")",
     .set = [](RunConfig& c, V v, W) { set_timeline_window(c, v.text); }},
    {.key = "job_records",
     .kind = K::Bool,
     .help = "leave the per-job records out of the JSON (huge traces)",
     .default_text = "true (records written)",
     .example = "false",
     .set = [](RunConfig& c, V v, W) { c.job_records = v.boolean; },
     .flag = "no-job-records"},
};

std::vector<std::string_view> split_choices(const char* choices) {
    std::vector<std::string_view> out;
    std::string_view s = choices ? choices : "";
    while (!s.empty()) {
        const auto bar = s.find('|');
        out.push_back(s.substr(0, bar));
        if (bar == std::string_view::npos) break;
        s.remove_prefix(bar + 1);
    }
    return out;
}

/// A Number key's range as the policy parameters' type, so both are checked and shown alike.
ParamRange number_range(const RunConfigKey& k) { return {.lo = k.min, .hi = k.max, .lo_open = k.min_open}; }

bool in_range(const RunConfigKey& k, double x) { return std::isfinite(x) && contains(number_range(k), x); }

bool is_choice(const RunConfigKey& k, std::string_view text) {
    const auto choices = split_choices(k.choices);
    return std::find(choices.begin(), choices.end(), text) != choices.end();
}

/// An integer flag, parsed without wrapping: "-1" is out of range, not 2^64 - 1.
std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
    text = trim(text);
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return v;
}

/// A value from a config file, checked against the key's kind and range; errors name origin and key.
KeyValue from_json(const RunConfigKey& k, const Json& v, const std::string& origin) {
    KeyValue out;
    const std::string expected = expected_text(k);
    switch (k.kind) {
        case K::Text:
        case K::Path:
            out.text = jf::string(v, origin, k.key);
            break;
        case K::Choice:
            if (!v.is_string() || !is_choice(k, v.get<std::string>())) jf::fail(origin, k.key, expected, &v);
            out.text = v.get<std::string>();
            break;
        case K::Integer:
            // A negative integer or a float is outside the range or not an integer: either way the message says which.
            if (!v.is_number_unsigned() || v.get<std::uint64_t>() < k.imin || v.get<std::uint64_t>() > k.imax)
                jf::fail(origin, k.key, expected, &v);
            out.integer = v.get<std::uint64_t>();
            break;
        case K::Number:
            if (!v.is_number() || !in_range(k, v.get<double>())) jf::fail(origin, k.key, expected, &v);
            out.number = v.get<double>();
            break;
        case K::Bool:
            if (!v.is_boolean()) jf::fail(origin, k.key, expected, &v);
            out.boolean = v.get<bool>();
            break;
        case K::List:
            if (!v.is_array()) jf::fail(origin, k.key, expected, &v);
            for (std::size_t i = 0; i < v.size(); ++i)
                out.list.push_back(jf::string(v[i], origin, fmt::format("{}[{}]", k.key, i)));
            break;
        case K::Params:
            for (const auto& [name, value] : jf::require_object(v, origin, k.key).items())
                out.params.emplace_back(name, value.is_string() ? value.get<std::string>() : value.dump());
            break;
    }
    return out;
}

}  // namespace

std::span<const RunConfigKey> run_config_table() { return kTable; }

const RunConfigKey* find_run_config_key(std::string_view name) {
    for (const auto& k : kTable)
        if (name == k.key) return &k;
    return nullptr;
}

std::string flag_name(const RunConfigKey& key) {
    if (key.flag) return key.flag;
    std::string flag = key.key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
}

std::string expected_text(const RunConfigKey& k) {
    switch (k.kind) {
        case K::Integer:
            return fmt::format("an integer in [{}, {}]", k.imin, k.imax);
        case K::Number:
            return "a number in " + to_string(number_range(k));
        case K::Choice: {  // "a or b", "a, b or c"
            const auto choices = split_choices(k.choices);
            std::string out;
            for (std::size_t i = 0; i < choices.size(); ++i)
                out += fmt::format("{}{}", i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ", choices[i]);
            return out;
        }
        case K::Bool:
            return "true or false";
        case K::List:
            return "an array of strings";
        case K::Params:
            return "an object of parameter: value";
        case K::Text:
        case K::Path:
            break;
    }
    return "";
}

void apply_config_file(RunConfig& c, const std::string& path) { apply_config_json(c, jf::parse_file(path), path); }

void apply_config_json(RunConfig& c, const Json& doc, const std::string& origin, const std::string& base_dir) {
    jf::require_object(doc, origin, "(top level)");
    for (const auto& [key, value] : doc.items()) {
        const RunConfigKey* k = find_run_config_key(key);
        if (k == nullptr) {
            std::vector<const char*> keys;
            for (const auto& row : kTable) keys.push_back(row.key);
            throw InputError(fmt::format("{}: (top level): unknown field \"{}\" (expected one of: {})", origin, key,
                                         fmt::join(keys, ", ")));
        }
        if (k->excludes && doc.contains(k->excludes))
            jf::fail(origin, k->key, fmt::format("one of {} and {}, not both", k->key, k->excludes));
    }
    for (const auto& k : kTable) {
        if (!doc.contains(k.key)) continue;
        KeyValue value = from_json(k, doc[k.key], origin);
        if (k.kind == K::Path && !base_dir.empty() && std::filesystem::path(value.text).is_relative())
            value.text = base_dir + "/" + value.text;
        // A policy's files (File params; py:FILE.py:CLASS, whose file is its `source` param; an exec: policy's
        // file arguments) are read relative to the file that named them.
        if ((k.kind == K::Params || std::string_view(k.key) == "policy") && !base_dir.empty()) c.params_dir = base_dir;
        try {
            k.set(c, value, k.key);
        } catch (const InputError& e) {
            throw InputError(fmt::format("{}: {}", origin, e.what()));
        }
    }
}

void apply_flag(RunConfig& c, const RunConfigKey& k, const std::vector<std::string>& values) {
    const std::string flag = "--" + flag_name(k);
    KeyValue value;
    const std::string text = values.empty() ? std::string() : values.back();
    auto bad = [&] { throw InputError(fmt::format("{}: expected {}, got '{}'", flag, expected_text(k), text)); };
    switch (k.kind) {
        case K::Text:
        case K::Path:
            value.text = text;
            break;  // an empty --out (say) is allowed, as it always was
        case K::Choice:
            if (!is_choice(k, text)) bad();
            value.text = text;
            break;
        case K::Integer: {
            const auto v = parse_unsigned(text);
            if (!v || *v < k.imin || *v > k.imax) bad();
            value.integer = *v;
            break;
        }
        case K::Number: {
            const auto v = parse_double(text);
            if (!v || !in_range(k, *v)) bad();
            value.number = *v;
            break;
        }
        case K::Bool:
            value.boolean = flag_name(k).rfind("no-", 0) != 0;
            break;
        case K::List:
            value.list = values;
            break;
        case K::Params:
            for (const auto& kv : values) value.params.push_back(split_param(kv, flag));
            break;
    }
    k.set(c, value, flag);
}

void check_run_config(const RunConfig& c) {
    // Every numeric key within its range, whatever set it: a config file and flags were checked as they were
    // read, a config built in memory (the Python module, tests) is checked here.
    for (const RunConfigKey& k : kTable) {
        if (!k.value) continue;
        const std::optional<double> x = k.value(c);
        const bool ok =
            !x || (k.kind == K::Integer ? *x >= static_cast<double>(k.imin) && *x <= static_cast<double>(k.imax)
                                        : in_range(k, *x));
        if (!ok) throw InputError(fmt::format("--{}: expected {}, got {}", flag_name(k), expected_text(k), *x));
    }
    if (c.transforms.resample_jobs > 0 && c.transforms.resample_rate == 0)
        throw InputError(
            "--resample-jobs (run config resample_jobs) needs --resample-rate (resample_rate): the jobs "
            "are re-sampled with Poisson arrivals at that rate");
    // Measured multi-GPU rates include the job's communication: a contention model on top would count it twice.
    if (c.compat == Compat::Gavel && c.network && *c.network != ContentionMode::None)
        throw InputError(
            fmt::format("compat gavel and network {} conflict: the Gavel-compatible mode models no "
                        "network (its measured multi-GPU rates include communication); leave network "
                        "unset or set it to none",
                        contention_mode_name(*c.network)));
}

ContentionMode effective_network(const RunConfig& c) {
    if (c.network) return *c.network;
    return c.compat == Compat::Gavel ? ContentionMode::None : ContentionMode::Duty;
}

bool effective_stop_after_measured(const RunConfig& c) {
    return c.stop_after_measured.value_or(c.compat == Compat::Gavel);
}

bool effective_adapt_batch(const RunConfig& c) {
    if (c.batch_size != "auto") return c.batch_size == "adaptive";
    return c.policy.starts_with("pollux") || c.policy.starts_with("sia");
}

MultiGpuRate effective_rate_mode(const RunConfig& c) {
    return c.compat == Compat::Gavel ? MultiGpuRate::Measured : MultiGpuRate::Linear;
}

std::map<std::string, std::string> compat_params(const RunConfig& c, const std::vector<ParamSpec>& specs) {
    std::map<std::string, std::string> params = c.params;
    if (c.compat != Compat::Gavel) return params;
    for (const ParamSpec& p : specs)
        if (p.name == "gavel_compat" && p.type == ParamType::Bool) params.try_emplace("gavel_compat", "true");
    return params;
}

Json run_identity(const RunConfig& c, const IdentityContext& ctx) {
    Json id = Json::object();
    for (const auto& k : kTable)
        if (k.echo) k.echo(id, c, ctx);
    return id;
}

}  // namespace dlsim
