#include "sim/app/cli.hpp"

#include "models/base/input_error.hpp"
#include "models/base/input_text.hpp"
#include "models/base/json_fields.hpp"
#include "models/cluster.hpp"
#include "models/network_model.hpp"
#include "models/profile.hpp"
#include "policies/registry.hpp"
#include "sim/app/atomic_file.hpp"
#include "sim/app/policy_source.hpp"
#include "sim/app/progress.hpp"
#include "sim/app/report/report_command.hpp"
#include "sim/app/result_check.hpp"
#include "sim/app/result_fields.hpp"
#include "sim/app/run.hpp"
#include "sim/app/sweep.hpp"
#include "traces/generate/gavel_paper.hpp"
#include "traces/generate/synthetic.hpp"
#include "traces/import/cluster_import.hpp"
#include "traces/readers/canonical_csv.hpp"
#include "traces/readers/trace_format.hpp"
#include "traces/trace_stats.hpp"

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>

namespace dlsim {

namespace po = boost::program_options;

namespace {

constexpr const char* kUsage =
    "usage: dlsim <command> [options]\n"
    "  run        simulate a trace on a cluster under a policy (no flags: the bundled default)\n"
    "  policies   list policies, placers and their parameters\n"
    "  list       formats | networks | placers | policies | fields [--markdown | --json]: the names each registry "
    "knows\n"
    "  validate   FILE: check a cluster, profile, trace, run-config or result file\n"
    "  sweep      SPEC.json: many runs over a grid, in parallel, resumable; 'sweep merge' joins Slurm shards\n"
    "  report     RESULT.json [--event-log E.jsonl] | SWEEP_DIR, -o FILE.html: a self-contained HTML report\n"
    "  trace      stats | convert | generate | cluster: describe, convert, synthesise traces; clusters from machine "
    "lists\n"
    "  --version  print the version\n"
    "Run 'dlsim <command> --help' for a command's options.\n";

/// Parses options; --help prints them and returns false.
bool parse(int argc, char** argv, const po::options_description& desc, po::variables_map& vm,
           const po::positional_options_description* positional = nullptr) {
    try {
        po::command_line_parser parser(argc, argv);
        parser.options(desc);
        if (positional) parser.positional(*positional);
        po::store(parser.run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw InputError(std::string(e.what()) + " (see --help)");
    }
    if (vm.count("help")) {
        std::cout << desc << "\n";
        return false;
    }
    return true;
}

std::uint64_t parse_seed(const std::string& text) {
    std::uint64_t seed = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        throw InputError("--seed: expected an integer >= 0, got '" + text + "'");
    return seed;
}

using KeyFilter = bool (*)(const RunConfigKey&);

bool every_key(const RunConfigKey&) { return true; }
/// The flags of `trace stats|convert`: the trace options and the seed of the re-sampling stream.
bool trace_key(const RunConfigKey& k) { return k.trace_option || std::string_view(k.key) == "seed"; }

/// One flag per run-config key that `filter` keeps, from the table, with its range and default in the help.
void add_key_options(po::options_description& desc, KeyFilter filter) {
    for (const RunConfigKey& k : run_config_table()) {
        if (!filter(k)) continue;
        const bool ranged = k.kind == KeyKind::Integer || k.kind == KeyKind::Number || k.kind == KeyKind::Choice;
        const std::string flag = flag_name(k), range = ranged ? expected_text(k) : "";
        const std::string help =
            fmt::format("{} ({}default: {})", k.help, range.empty() ? "" : range + "; ", k.default_text);
        // A po::value<std::string> for every kind: numbers are parsed by the table, never wrapped by Boost.
        if (k.kind == KeyKind::Bool)
            desc.add_options()(flag.c_str(), help.c_str());
        else if (k.kind == KeyKind::List || k.kind == KeyKind::Params)
            desc.add_options()(flag.c_str(), po::value<std::vector<std::string>>()->composing(), help.c_str());
        else
            desc.add_options()(flag.c_str(), po::value<std::string>(), help.c_str());
    }
}

/// Overlays the flags given on the command line (after any config file: flags override it).
void apply_key_options(const po::variables_map& vm, KeyFilter filter, RunConfig& c) {
    for (const RunConfigKey& k : run_config_table()) {
        const std::string flag = flag_name(k);
        if (!filter(k) || !vm.count(flag)) continue;
        if (k.excludes) {
            const std::string other = flag_name(*find_run_config_key(k.excludes));
            if (vm.count(other))
                throw InputError(fmt::format("--{} and --{}: give one of them, not both", flag, other));
        }
        std::vector<std::string> values;
        if (k.kind == KeyKind::List || k.kind == KeyKind::Params)
            values = vm[flag].as<std::vector<std::string>>();
        else if (k.kind != KeyKind::Bool)
            values.push_back(vm[flag].as<std::string>());
        apply_flag(c, k, values);
    }
}

/// Writes a whole output file atomically.
void write_text(const std::string& path, std::string_view text) {
    AtomicFile f(path);
    f.print("{}", text);
    f.commit();
}

/// A trace as canonical CSV to `out`, or to stdout when `out` is empty.
void emit_canonical_csv(const Trace& trace, const std::string& out) {
    if (out.empty()) {
        write_canonical_csv(trace, std::cout);
        return;
    }
    std::ostringstream text;
    write_canonical_csv(trace, text);
    write_text(out, text.str());
}

/// What the reader did, on stderr: rows skipped and repaired by reason, and its assumptions.
void report_trace(const Trace& trace) {
    const ReadReport& rep = trace.report;
    auto by_reason = [](const std::map<std::string, std::uint64_t>& m, std::uint64_t& total) {
        std::string out;
        for (const auto& [why, n] : m) {
            total += n;
            out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, why);
        }
        return out;
    };
    std::uint64_t dropped = 0, repaired = 0;
    const std::string dropped_text = by_reason(rep.dropped, dropped), repaired_text = by_reason(rep.repaired, repaired);
    if (dropped > 0) {
        fmt::print(stderr, "dlsim: {}: skipped {} of {} rows ({})\n", trace.path, dropped, rep.rows_read, dropped_text);
        for (const auto& m : rep.first_errors) fmt::print(stderr, "  e.g. {}\n", printable(m));
    }
    if (repaired > 0) fmt::print(stderr, "dlsim: {}: repaired {} rows ({})\n", trace.path, repaired, repaired_text);
    for (const auto& a : rep.assumptions) fmt::print(stderr, "dlsim: {}: assumed: {}\n", trace.path, a);
}

void print_summary(const RunOutcome& o, const RunConfig& c, double wall) {
    fmt::print("dlsim {}: policy {} on {}\n", dlsim_version(), c.policy, c.cluster);
    fmt::print("  trace        {}\n", c.trace);
    // The summary rows come from the result field table; policy calls are a run figure, not a summary key.
    for (const auto& [row, text] : result_fields::console_lines(
             o.summary, {{"preemptions", fmt::format("policy calls {}", o.stats.policy_calls)}}))
        fmt::print("  {:<12} {}\n", row, text);
    fmt::print("  wall         {:.3f} s   peak RSS {:.0f} MiB\n", wall, peak_rss_mb());
    if (!c.out.empty()) fmt::print("  result       {}\n", c.out);
    if (!c.jobs_csv.empty()) fmt::print("  job table    {}\n", c.jobs_csv);
    if (!c.timeline.empty()) fmt::print("  timeline     {}\n", c.timeline);
}

int cmd_run(int argc, char** argv) {
    RunConfig c = default_run_config();
    po::options_description desc("dlsim run options (defaults: the bundled trace, cluster and profile)");
    desc.add_options()("help,h", "show this help")(
        "config", po::value<std::string>(),
        "run config JSON: one key per flag below, with '_' for '-' (params: "
        "an object; job_records: false for --no-job-records); flags override it");
    add_key_options(desc, every_key);
    po::variables_map vm;
    if (!parse(argc, argv, desc, vm)) return 0;

    const auto t0 = std::chrono::steady_clock::now();
    if (vm.count("config")) apply_config_file(c, vm["config"].as<std::string>());
    apply_key_options(vm, every_key, c);
    const ResolvedRun run = resolve(c);

    const RunInputs inputs = load_inputs(c);
    report_trace(inputs.trace);
    // Simulated-time progress for long runs (silent for the first two seconds).
    Progress progress("simulating", inputs.trace.jobs.size(), 0, 2.0);
    const RunOutcome outcome = simulate(inputs, run, [&](Time now, std::uint64_t finished) {
        progress.update(finished, fmt::format("jobs finished, simulated {:.1f} h", to_seconds(now) / 3600));
    });
    progress.finish(outcome.summary.finished, "jobs finished");
    if (!outcome.rejected.empty())
        fmt::print(stderr,
                   "dlsim: {} jobs can never run on this cluster and were rejected (see their 'reason'; "
                   "--strict makes this an error)\n",
                   outcome.rejected.size());
    RunSelfProfile self;
    self.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    self.peak_rss_mb = peak_rss_mb();
    write_outputs(inputs, c, outcome, self);
    print_summary(outcome, c, self.wall_seconds);
    return 0;
}

void print_params(const std::vector<ParamSpec>& params) {
    for (const auto& p : params) {
        std::string kind;
        switch (p.type) {
            case ParamType::Int:
                kind = "int";
                break;
            case ParamType::Double:
                kind = "number";
                break;
            case ParamType::Bool:
                kind = "bool";
                break;
            case ParamType::Choice:
                kind = fmt::format("{}", fmt::join(p.choices, "|"));
                break;
            case ParamType::Numbers:
                kind = "numbers, comma-separated";
                break;
            case ParamType::Text:
                kind = "text";
                break;
            case ParamType::File:
                kind = "file";
                break;
        }
        if (p.range) kind += " " + to_string(*p.range);
        fmt::print("      {}={} ({}): {}\n", p.name, p.default_value, kind, p.description);
    }
}

int cmd_policies() {
    // One column for the names of both lists, wide enough for the longest (at least the former 14).
    std::size_t width = 12;
    for (const auto& e : builtin_policies().entries()) width = std::max(width, e.name.size());
    for (const auto& e : builtin_placers().entries()) width = std::max(width, e.name.size());
    fmt::print("policies (--policy NAME, --param k=v):\n");
    for (const auto& e : builtin_policies().entries()) {
        fmt::print("  {:<{}}{}\n", e.name, width + 2, e.description);
        print_params(e.params);
    }
    fmt::print("placers (--placement NAME):\n");
    for (const auto& e : builtin_placers().entries()) {
        fmt::print("  {:<{}}{}\n", e.name, width + 2, e.description);
        print_params(e.params);
    }
    return 0;
}

/// A Markdown table cell: '|' escaped, so a description cannot split the row.
std::string markdown_cell(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '|') out += '\\';
        out += c;
    }
    return out;
}

/// `dlsim list fields`: the result schema's summary keys and job fields, from the field table. With
/// --markdown, the two tables sim/app/RESULTS.md embeds (the docs test checks the page against it); with
/// --json, the same as one JSON object (scripts/plot.py's axis labels are checked against it).
void list_fields(std::string_view format) {
    using namespace result_fields;
    if (format == "--markdown") {
        fmt::print("| `summary` key | unit | index column | what |\n|---|---|---|---|\n");
        for (const SummaryField& f : summary_fields())
            fmt::print("| `{}` | {} | {} | {} |\n", f.name, f.unit, f.in_index ? "yes" : "",
                       markdown_cell(f.description));
        fmt::print("\n| `jobs` field | CSV column | what |\n|---|---|---|\n");
        for (const JobField& f : job_fields())
            fmt::print("| `{}` | {} | {} |\n", f.name, f.in_csv ? "yes" : "", markdown_cell(f.description));
        return;
    }
    if (format == "--json") {
        json_fields::Json summary = json_fields::Json::array(), jobs = json_fields::Json::array();
        for (const SummaryField& f : summary_fields())
            summary.push_back({{"name", f.name},
                               {"axis", f.axis},
                               {"unit", f.unit},
                               {"index", f.in_index},
                               {"description", f.description}});
        for (const JobField& f : job_fields())
            jobs.push_back({{"name", f.name}, {"csv", f.in_csv}, {"description", f.description}});
        fmt::print("{}\n", json_fields::Json{{"summary", summary}, {"jobs", jobs}}.dump(1));
        return;
    }
    std::size_t width = 0;
    for (const SummaryField& f : summary_fields()) width = std::max(width, f.name.size());
    for (const JobField& f : job_fields()) width = std::max(width, f.name.size());
    fmt::print("summary keys (result JSON \"summary\"; * = a sweep index column):\n");
    for (const SummaryField& f : summary_fields())
        fmt::print("  {:<{}} {}\n", fmt::format("{}{}", f.name, f.in_index ? "*" : ""), width + 2, f.description);
    fmt::print("job fields (result JSON \"jobs\"; * = a --jobs-csv column):\n");
    for (const JobField& f : job_fields())
        fmt::print("  {:<{}} {}\n", fmt::format("{}{}", f.name, f.in_csv ? "*" : ""), width + 2, f.description);
}

/// Prints (name, description) rows in two aligned columns.
template <class Rows, class Name, class Description>
void print_names(const Rows& rows, Name name, Description description) {
    std::size_t width = 0;
    for (const auto& r : rows) width = std::max(width, std::string_view(name(r)).size());
    for (const auto& r : rows) fmt::print("{:<{}}  {}\n", name(r), width, description(r));
}

int cmd_list(int argc, char** argv) {
    const std::string what = argc >= 2 ? argv[1] : "";
    const std::string_view format = argc >= 3 ? argv[2] : "";
    if (argc > 3 || (argc == 3 && !((format == "--markdown" || format == "--json") && what == "fields")))
        throw InputError("list: expected one of formats, networks, placers, policies, or fields [--markdown | --json]");
    const auto name = [](const auto& e) { return e.name; };
    const auto description = [](const auto& e) { return e.description; };
    if (what == "formats") {
        fmt::print("auto  detect the format from the file's name and first line, trying the formats below in order\n");
        print_names(trace_formats(), name, description);
    } else if (what == "networks") {
        print_names(contention_modes(), name, description);
    } else if (what == "placers") {
        print_names(builtin_placers().entries(), name, description);
    } else if (what == "policies") {
        print_names(builtin_policies().entries(), name, description);
    } else if (what == "fields") {
        list_fields(format);
    } else {
        throw InputError(
            fmt::format("list: unknown list '{}' (valid: formats, networks, placers, policies, fields)", what));
    }
    return 0;
}

}  // namespace

std::string validate_file(const std::string& path) {
    const bool is_json = path.size() >= 5 && path.substr(path.size() - 5) == ".json";
    if (!is_json) {
        const Trace t = read_canonical_csv(path);
        return fmt::format("{}: valid trace, {} jobs", path, t.jobs.size());
    }
    if (is_result_file(path))
        return fmt::format("{}: {}", path, check_result_file(path));  // as bytes: it may not parse
    const auto doc = json_fields::parse_file(path);
    if (doc.is_object() &&
        (doc.contains("gpu_types") || json_fields::string_member(doc, "schema") == "dlsim.cluster/1")) {
        const Cluster c = load_cluster(path);
        return fmt::format("{}: valid cluster, {} GPU types, {} nodes, {} GPUs", path, c.gpu_types.size(),
                           c.nodes.size(), c.num_gpus());
    }
    if (doc.is_object() && (doc.contains("models") || json_fields::string_member(doc, "schema") == "dlsim.profile/1")) {
        const ProfileSet p = load_profiles(path);
        return fmt::format("{}: valid profile, {} models", path, p.models.size());
    }
    RunConfig c = default_run_config();
    apply_config_file(c, path);
    resolve(c);
    return fmt::format("{}: valid run config", path);
}

namespace {

int cmd_validate(int argc, char** argv) {
    po::options_description desc("dlsim validate FILE");
    desc.add_options()("help,h", "show this help")("file", po::value<std::string>(), "file to check");
    po::positional_options_description pos;
    pos.add("file", 1);
    po::variables_map vm;
    if (!parse(argc, argv, desc, vm, &pos)) return 0;
    if (!vm.count("file")) throw InputError("validate: expected a FILE to check");
    fmt::print("{}\n", validate_file(vm["file"].as<std::string>()));
    return 0;
}

/// `dlsim trace stats|convert FILE [trace options]`: read (and filter) a trace, then describe or rewrite it.
int cmd_trace_read(const std::string& sub, int argc, char** argv) {
    po::options_description desc(sub == "stats" ? "dlsim trace stats FILE: jobs, span, GPU-hours, GPU mix, durations, "
                                                  "arrivals by hour, status mix, VCs"
                                                : "dlsim trace convert FILE --out F: write the canonical CSV");
    std::string json_out, out;
    desc.add_options()("help,h", "show this help")("file", po::value<std::string>(), "the trace");
    if (sub == "stats")
        desc.add_options()("json", po::value<std::string>(&json_out), "also write the figures as JSON");
    else
        desc.add_options()("out", po::value<std::string>(&out), "output CSV (default: stdout)");
    add_key_options(desc, trace_key);
    po::positional_options_description pos;
    pos.add("file", 1);
    po::variables_map vm;
    if (!parse(argc, argv, desc, vm, &pos)) return 0;
    if (!vm.count("file")) throw InputError("trace " + sub + ": expected a trace FILE");
    RunConfig c;
    c.trace = vm["file"].as<std::string>();
    apply_key_options(vm, trace_key, c);
    check_run_config(c);
    const Trace trace = load_trace(c);
    report_trace(trace);
    if (sub == "stats") {
        const TraceStats stats = compute_stats(trace);
        fmt::print("{}", stats_table(trace, stats));
        if (!json_out.empty()) write_text(json_out, stats_json(trace, stats));
        return 0;
    }
    emit_canonical_csv(trace, out);
    return 0;
}

/// `dlsim trace cluster --format philly|openb|pai|lingjun FILE --out F`.
int cmd_trace_cluster(int argc, char** argv) {
    po::options_description desc("dlsim trace cluster FILE: a cluster spec from a published machine list");
    std::string format, out;
    desc.add_options()("help,h", "show this help")("file", po::value<std::string>(), "the machine list")(
        "format", po::value<std::string>(&format),
        "philly (cluster_machine_list), openb (openb_node_list_gpu_node.csv), pai (pai_machine_spec) or lingjun "
        "(topo.csv, header ip,DSW,PSW,ASW); default: from the file name or header")(
        "out", po::value<std::string>(&out), "output cluster JSON (default: stdout)");
    po::positional_options_description pos;
    pos.add("file", 1);
    po::variables_map vm;
    if (!parse(argc, argv, desc, vm, &pos)) return 0;
    if (!vm.count("file")) throw InputError("trace cluster: expected a machine-list FILE");
    const std::string path = vm["file"].as<std::string>();
    if (format.empty()) {
        if (path.find("cluster_machine_list") != std::string::npos)
            format = "philly";
        else if (path.find("openb_node_list") != std::string::npos)
            format = "openb";
        else if (path.find("pai_machine_spec") != std::string::npos)
            format = "pai";
        else if (is_lingjun_topology(path))
            format = "lingjun";
        else
            throw InputError(path +
                             ": cannot tell the machine-list format from the name or header (give --format "
                             "philly|openb|pai|lingjun)");
    }
    std::string spec;
    if (format == "philly")
        spec = cluster_from_philly_machines(path);
    else if (format == "openb")
        spec = cluster_from_openb_nodes(path);
    else if (format == "pai")
        spec = cluster_from_pai_machines(path);
    else if (format == "lingjun")
        spec = cluster_from_lingjun_topology(path);
    else
        throw InputError("--format: expected philly, openb, pai or lingjun, got '" + format + "'");
    const Cluster cluster = parse_cluster(spec, path + " (converted)");  // what we write must load
    if (out.empty()) {
        fmt::print("{}", spec);
    } else {
        write_text(out, spec);
        fmt::print(stderr, "dlsim: {}: {} GPU types, {} nodes, {} GPUs\n", out, cluster.gpu_types.size(),
                   cluster.nodes.size(), cluster.num_gpus());
    }
    return 0;
}

/// The paper workload's templates from a profile: every model, with its measured aggregate rate on the
/// reference type at 1, 2, 4 and 8 GPUs (`throughput`, then `throughput_n`; 0 where not measured).
std::vector<GavelPaperModel> gavel_paper_models(const ProfileSet& profiles, const std::string& reference_type) {
    const std::string key = lower_ascii(reference_type);
    std::vector<GavelPaperModel> out;
    for (const ModelProfile& m : profiles.models) {
        GavelPaperModel g{m.name, {}};
        if (auto it = m.throughput.find(key); it != m.throughput.end()) g.reference_rate[0] = it->second;
        if (auto it = m.throughput_n.find(key); it != m.throughput_n.end())
            for (std::size_t k = 1; k < kGavelScaleFactors.size(); ++k)
                if (auto x = it->second.find(kGavelScaleFactors[k]); x != it->second.end())
                    g.reference_rate[k] = x->second;
        out.push_back(std::move(g));
    }
    return out;
}

int cmd_trace_generate(int argc, char** argv) {
    po::options_description desc(
        "dlsim trace generate: Poisson arrivals; sizes and durations from Gavel's "
        "Philly-derived mix (default), a lognormal, or a real trace");
    std::size_t jobs = 1000;
    double rate = 1.0;
    std::string seed = "0", sizes = "gavel", durations = "gavel", lognormal, from, from_format = "auto";
    std::string profiles = default_run_config().profiles, out;
    desc.add_options()("help,h", "show this help")(
        "jobs", po::value<std::size_t>(&jobs), "number of jobs; default 1000")("rate", po::value<double>(&rate),
                                                                               "arrival rate in jobs/hour; default 1")(
        "seed", po::value<std::string>(&seed), "random seed (an integer >= 0); default 0")(
        "sizes", po::value<std::string>(&sizes), "GPUs per job: gavel (1/2/4/8 w.p. 70/10/15/5%) or empirical")(
        "durations", po::value<std::string>(&durations), "durations: gavel, lognormal or empirical")(
        "lognormal", po::value<std::string>(&lognormal), "MU,SIGMA of ln(duration in s), for --durations lognormal")(
        "from", po::value<std::string>(&from), "the real trace the empirical distributions draw from")(
        "from-format", po::value<std::string>(&from_format), "its format; default auto")(
        "profiles", po::value<std::string>(&profiles), "draw models uniformly from this profile")(
        "no-models", "generate jobs without a model")(
        "gavel-paper",
        "Gavel's paper workload (utils.generate_job): models uniform over the profile's, at a size "
        "> 1 only those measured at it; Gavel's durations; work = duration x the measured V100 "
        "rate at the job's size, written with gpu_type V100")(
        "multi-gpu", "with --gavel-paper: sizes 1/2/4/8 w.p. 70/10/15/5% (Gavel's -m); else 1 GPU")(
        "gavel-streams",
        "with --gavel-paper: Gavel's own Python random streams (random.Random(seed+2) for jobs, "
        "seed+3 for arrivals), so the jobs are exactly those of Gavel's run with --seed; at "
        "--rate 1, run --load-scale R for Gavel's stream at R jobs/h")("out", po::value<std::string>(&out),
                                                                       "output CSV (default: stdout)");
    po::variables_map vm;
    if (!parse(argc, argv, desc, vm)) return 0;
    if (vm.count("multi-gpu") && !vm.count("gavel-paper"))
        throw InputError("--multi-gpu: only with --gavel-paper (the default mix draws sizes with --sizes)");
    if (vm.count("gavel-streams") && !vm.count("gavel-paper"))
        throw InputError("--gavel-streams: only with --gavel-paper (Gavel's streams generate its paper workload)");
    if (vm.count("gavel-paper")) {
        for (const char* other : {"sizes", "durations", "lognormal", "from", "from-format", "no-models"})
            if (vm.count(other))
                throw InputError(
                    fmt::format("--gavel-paper and --{} conflict: the paper workload fixes sizes, "
                                "durations and models",
                                other));
        GavelPaperOptions g;
        g.num_jobs = jobs;
        g.jobs_per_hour = rate;
        g.seed = parse_seed(seed);
        g.multi_gpu = vm.count("multi-gpu") > 0;
        g.gavel_streams = vm.count("gavel-streams") > 0;
        g.models = gavel_paper_models(load_profiles(profiles), g.reference_gpu_type);
        emit_canonical_csv(generate_gavel_paper(g), out);
        return 0;
    }
    GavelMixOptions o;
    o.num_jobs = jobs;
    o.jobs_per_hour = rate;
    o.seed = parse_seed(seed);
    if (sizes == "empirical")
        o.sizes = SizeDistribution::Empirical;
    else if (sizes != "gavel")
        throw InputError("--sizes: expected gavel or empirical, got '" + sizes + "'");
    if (durations == "lognormal") {
        o.durations = DurationDistribution::Lognormal;
        const auto comma = lognormal.find(',');
        auto mu = parse_double(lognormal.substr(0, comma));
        auto sigma = comma == std::string::npos ? std::nullopt : parse_double(lognormal.substr(comma + 1));
        if (!mu || !sigma) throw InputError("--lognormal: expected MU,SIGMA (of ln seconds), got '" + lognormal + "'");
        o.lognormal_mu = *mu;
        o.lognormal_sigma = *sigma;
    } else if (durations == "empirical") {
        o.durations = DurationDistribution::Empirical;
    } else if (durations != "gavel") {
        throw InputError("--durations: expected gavel, lognormal or empirical, got '" + durations + "'");
    }
    if (!from.empty()) {
        ReadOptions ro;
        const Trace source = read_trace(from, from_format, ro);
        for (const auto& j : source.jobs) o.empirical.emplace_back(j.num_gpus, j.duration);
    }
    if (!vm.count("no-models"))
        for (const auto& m : load_profiles(profiles).models) o.models.push_back(m.name);
    emit_canonical_csv(generate_gavel_mix(o), out);
    return 0;
}

/// `dlsim sweep SPEC.json [options]` and `dlsim sweep merge SPEC.json [--out DIR]`.
int cmd_sweep(int argc, char** argv) {
    const bool merge = argc >= 2 && std::string(argv[1]) == "merge";
    if (merge) {
        --argc;
        ++argv;
    }
    po::options_description desc(merge ? "dlsim sweep merge SPEC.json: build the index from the runs that Slurm "
                                         "shards wrote to the results folder"
                                       : "dlsim sweep SPEC.json: every run of a grid, in parallel; finished runs are "
                                         "kept and skipped when run again");
    std::string out, shard = "0/1", max_runs_text = std::to_string(kDefaultMaxRuns), timeout_text = "0";
    unsigned jobs = 0;
    desc.add_options()("help,h", "show this help")("spec", po::value<std::string>(), "the sweep spec JSON")(
        "out", po::value<std::string>(&out), "results folder (default results/<spec name>)")(
        "max-runs", po::value<std::string>(&max_runs_text),
        fmt::format("refuse a spec that expands to more runs than this (default {})", kDefaultMaxRuns).c_str());
    if (!merge)
        desc.add_options()("jobs,j", po::value<unsigned>(&jobs),
                           "runs at once, each in a worker process (default: the number of cores)")(
            "shard", po::value<std::string>(&shard), "run only shard i of N (i/N, 0-based): one task of a job array")(
            "resume", "skip runs whose result exists (the default)")("no-resume", "run every run again")(
            "retry-failed", "when resuming, run the runs that failed before again (default: keep their records)")(
            "run-timeout", po::value<std::string>(&timeout_text),
            "seconds of wall time a run may take; a run still going is killed and recorded as failed "
            "(default 0: no limit)");
    po::positional_options_description pos;
    pos.add("spec", 1);
    po::variables_map vm;
    if (!parse(argc, argv, desc, vm, &pos)) return 0;
    if (!vm.count("spec")) throw InputError(std::string("sweep") + (merge ? " merge" : "") + ": expected a SPEC.json");
    const auto max_runs = parse_integer(max_runs_text);
    if (!max_runs || *max_runs < 1)
        throw InputError(fmt::format("--max-runs: expected an integer >= 1, got '{}'", max_runs_text));
    const auto timeout = parse_double(timeout_text);
    if (!timeout || !std::isfinite(*timeout) || *timeout < 0 || *timeout > 1e9)
        throw InputError(
            fmt::format("--run-timeout: expected seconds in [0, 1e9] (0: no limit), got '{}'", timeout_text));
    const SweepSpec spec = load_sweep_spec(vm["spec"].as<std::string>(), static_cast<std::uint64_t>(*max_runs));
    if (merge) return merge_sweep(spec, out);
    if (vm.count("resume") && vm.count("no-resume")) throw InputError("--resume and --no-resume: give one of them");
    SweepOptions options;
    options.out_dir = out;
    options.jobs = jobs;
    options.shard = parse_shard(shard);
    options.resume = vm.count("no-resume") == 0;
    options.retry_failed = vm.count("retry-failed") > 0;
    options.run_timeout = *timeout;
    return run_sweep(spec, options);
}

/// `dlsim sweep-worker SPEC POSITION ID DIR`: one run of a sweep, in the process a sweep starts for it
/// (not for people: `dlsim sweep` passes these arguments).
int cmd_sweep_worker(int argc, char** argv) {
    const auto position = argc == 5 ? parse_integer(argv[2]) : std::nullopt;
    if (!position || *position < 0)
        throw InputError("sweep-worker: expected SPEC POSITION ID DIR (it is started by 'dlsim sweep')");
    return run_sweep_worker(argv[1], static_cast<std::size_t>(*position), argv[3], argv[4]);
}

int cmd_trace(int argc, char** argv) {
    const std::string sub = argc >= 2 ? argv[1] : "";
    if (sub == "stats" || sub == "convert") return cmd_trace_read(sub, argc - 1, argv + 1);
    if (sub == "generate") return cmd_trace_generate(argc - 1, argv + 1);
    if (sub == "cluster") return cmd_trace_cluster(argc - 1, argv + 1);
    throw InputError("trace: expected a subcommand: stats, convert, generate or cluster");
}

}  // namespace

int cli_main(int argc, char** argv) {
    try {
        if (argc < 2) {
            std::cerr << kUsage;
            return 2;
        }
        const std::string cmd = argv[1];
        if (cmd == "run") return cmd_run(argc - 1, argv + 1);
        if (cmd == "policies") return cmd_policies();
        if (cmd == "list") return cmd_list(argc - 1, argv + 1);
        if (cmd == "validate") return cmd_validate(argc - 1, argv + 1);
        if (cmd == "trace") return cmd_trace(argc - 1, argv + 1);
        if (cmd == "report") return cmd_report(argc - 1, argv + 1);
        if (cmd == "sweep") return cmd_sweep(argc - 1, argv + 1);
        if (cmd == "sweep-worker") return cmd_sweep_worker(argc - 1, argv + 1);
        if (cmd == "--version" || cmd == "version") {
            fmt::print("dlsim {}\n", dlsim_version());
            return 0;
        }
        if (cmd == "--help" || cmd == "-h" || cmd == "help") {
            std::cout << kUsage;
            return 0;
        }
        throw InputError("unknown command '" + cmd + "' (valid: run, sweep, policies, list, validate, report, trace)");
    } catch (const InputError& e) {
        fmt::print(stderr, "dlsim: error: {}\n", printable(e.what()));
        return 2;
    } catch (const InternalError& e) {
        fmt::print(stderr, "dlsim: internal error (a bug, please report it): {}\n", printable(e.what()));
        return 1;
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "dlsim: out of memory\n");
        return 1;
    } catch (const std::exception& e) {
        fmt::print(stderr, "dlsim: internal error: {}\n", printable(e.what()));
        return 1;
    }
}

}  // namespace dlsim
