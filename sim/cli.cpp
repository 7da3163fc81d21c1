#include "sim/cli.hpp"

#include "models/cluster.hpp"
#include "models/input_error.hpp"
#include "models/json_fields.hpp"
#include "models/profile.hpp"
#include "policies/registry.hpp"
#include "sim/run.hpp"
#include "traces/canonical_csv.hpp"
#include "traces/synthetic.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <fstream>
#include <iostream>

namespace dlsim {

namespace po = boost::program_options;

namespace {

constexpr const char* kUsage =
    "usage: dlsim <command> [options]\n"
    "  run        simulate a trace on a cluster under a policy (no flags: the bundled default)\n"
    "  policies   list policies, placers and their parameters\n"
    "  validate   FILE: check a cluster, profile, trace or run-config file\n"
    "  trace      generate: write a synthetic trace (Gavel's Philly-derived mix)\n"
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

void print_summary(const RunOutcome& o, const RunConfig& c, double wall) {
    const Summary& s = o.summary;
    auto hours = [](double sec) { return sec / 3600.0; };
    fmt::print("dlsim {}: policy {} on {}\n", dlsim_version(), c.policy, c.cluster);
    fmt::print("  trace        {}\n", c.trace);
    fmt::print("  jobs         {} ({} finished, {} rejected, {} unfinished)\n", s.jobs, s.finished, s.rejected, s.unfinished);
    fmt::print("  JCT (h)      avg {:.2f}   p50 {:.2f}   p95 {:.2f}   p99 {:.2f}\n", hours(s.avg_jct), hours(s.p50_jct),
               hours(s.p95_jct), hours(s.p99_jct));
    fmt::print("  queueing (h) avg {:.2f}\n", hours(s.avg_queueing_delay));
    fmt::print("  makespan (h) {:.2f}\n", hours(s.makespan));
    std::string by_type;
    for (const auto& [name, u] : s.gpu_utilization_by_type) by_type += fmt::format("   {} {:.1f}%", name, 100 * u);
    fmt::print("  GPU util     {:.1f}%{}\n", 100 * s.gpu_utilization, by_type);
    fmt::print("  preemptions  {}   events {}   policy calls {}\n", s.preemptions, s.events, o.stats.policy_calls);
    fmt::print("  wall         {:.3f} s   peak RSS {:.0f} MiB\n", wall, peak_rss_mb());
    if (!c.out.empty()) fmt::print("  result       {}\n", c.out);
    if (!c.jobs_csv.empty()) fmt::print("  job table    {}\n", c.jobs_csv);
}

int cmd_run(int argc, char** argv) {
    RunConfig c = default_run_config();
    po::options_description desc("dlsim run options (defaults: the bundled trace, cluster and profile)");
    std::vector<std::string> params;
    std::string on_bad_line = "error";
    desc.add_options()("help,h", "show this help")
        ("config", po::value<std::string>(), "run config JSON (one key per long flag); flags override it")
        ("trace", po::value<std::string>(), "trace file (canonical CSV)")
        ("trace-format", po::value<std::string>(), "trace format: csv")
        ("cluster", po::value<std::string>(), "cluster spec JSON (models/clusters/)")
        ("profiles", po::value<std::string>(), "throughput profile JSON (models/profiles/)")
        ("policy", po::value<std::string>(), "scheduling policy (see 'dlsim policies'); default fifo")
        ("param", po::value<std::vector<std::string>>(&params)->composing(), "policy parameter k=v (repeatable)")
        ("placement", po::value<std::string>(), "placer (see 'dlsim policies'); default consolidated")
        ("seed", po::value<std::string>(), "random seed (an integer >= 0); default 0")
        ("restart-cost", po::value<double>(), "seconds without progress on every restart after a preemption; default 0")
        ("strict", "a job that can never run on this cluster is an input error (exit 2) instead of rejected")
        ("on-bad-line", po::value<std::string>(&on_bad_line), "malformed trace row: error (default) or skip")
        ("timeseries-points", po::value<std::size_t>(), "at most this many time-series buckets; default 2000")
        ("out", po::value<std::string>(), "result JSON; default results/run.json")
        ("jobs-csv", po::value<std::string>(), "also write the per-job table as CSV")
        ("no-job-records", "leave the per-job records out of the JSON (huge traces)")
        ("event-log", po::value<std::string>(), "write every start/preemption/finish as JSON lines");
    po::variables_map vm;
    if (!parse(argc, argv, desc, vm)) return 0;

    const auto t0 = std::chrono::steady_clock::now();
    if (vm.count("config")) apply_config_file(c, vm["config"].as<std::string>());
    for (const auto& setting : text_settings()) {
        std::string flag = setting.key;
        std::replace(flag.begin(), flag.end(), '_', '-');
        if (vm.count(flag)) c.*setting.field = vm[flag].as<std::string>();
    }
    for (const auto& kv : params) add_param(c, kv);
    if (vm.count("seed")) c.seed = parse_seed(vm["seed"].as<std::string>());
    if (vm.count("restart-cost")) c.restart_cost = vm["restart-cost"].as<double>();
    if (vm.count("strict")) c.strict = true;
    if (vm.count("timeseries-points")) c.timeseries_points = vm["timeseries-points"].as<std::size_t>();
    if (vm.count("no-job-records")) c.job_records = false;
    if (vm.count("on-bad-line")) c.on_bad_line = parse_bad_line_policy(on_bad_line, "--on-bad-line");

    const RunInputs inputs = load_inputs(c);
    const ReadReport& rep = inputs.trace.report;
    if (!rep.dropped.empty()) {
        std::uint64_t dropped = 0;
        std::string reasons;
        for (const auto& [why, n] : rep.dropped) {
            dropped += n;
            reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", n, why);
        }
        fmt::print(stderr, "dlsim: {}: skipped {} of {} rows ({})\n", c.trace, dropped, rep.rows_read, reasons);
        for (const auto& m : rep.first_errors) fmt::print(stderr, "  e.g. {}\n", m);
    }
    const RunOutcome outcome = simulate(inputs, c);
    if (!outcome.rejected.empty())
        fmt::print(stderr, "dlsim: {} jobs can never run on this cluster and were rejected (see their 'reason'; "
                           "--strict makes this an error)\n", outcome.rejected.size());
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
            case ParamType::Int: kind = "int"; break;
            case ParamType::Double: kind = "number"; break;
            case ParamType::Bool: kind = "bool"; break;
            case ParamType::Choice: kind = fmt::format("{}", fmt::join(p.choices, "|")); break;
        }
        fmt::print("      {}={} ({}): {}\n", p.name, p.default_value, kind, p.description);
    }
}

int cmd_policies() {
    fmt::print("policies (--policy NAME, --param k=v):\n");
    for (const auto& e : builtin_policies().entries()) {
        fmt::print("  {:<14}{}\n", e.name, e.description);
        print_params(e.params);
    }
    fmt::print("placers (--placement NAME):\n");
    for (const auto& e : builtin_placers().entries()) {
        fmt::print("  {:<14}{}\n", e.name, e.description);
        print_params(e.params);
    }
    return 0;
}

int cmd_validate(int argc, char** argv) {
    po::options_description desc("dlsim validate FILE");
    desc.add_options()("help,h", "show this help")("file", po::value<std::string>(), "file to check");
    po::positional_options_description pos;
    pos.add("file", 1);
    po::variables_map vm;
    if (!parse(argc, argv, desc, vm, &pos)) return 0;
    if (!vm.count("file")) throw InputError("validate: expected a FILE to check");
    const std::string path = vm["file"].as<std::string>();
    const bool is_json = path.size() >= 5 && path.substr(path.size() - 5) == ".json";
    if (!is_json) {
        const Trace t = read_canonical_csv(path);
        fmt::print("{}: valid trace, {} jobs\n", path, t.jobs.size());
        return 0;
    }
    const auto doc = json_fields::parse_file(path);
    if (doc.is_object() && (doc.contains("gpu_types") || doc.value("schema", "") == "dlsim.cluster/1")) {
        const Cluster c = load_cluster(path);
        fmt::print("{}: valid cluster, {} GPU types, {} nodes, {} GPUs\n", path, c.gpu_types.size(), c.nodes.size(),
                   c.num_gpus());
    } else if (doc.is_object() && (doc.contains("models") || doc.value("schema", "") == "dlsim.profile/1")) {
        const ProfileSet p = load_profiles(path);
        fmt::print("{}: valid profile, {} models\n", path, p.models.size());
    } else {
        RunConfig c = default_run_config();
        apply_config_file(c, path);
        builtin_policies().find(c.policy);
        builtin_placers().find(c.placement);
        fmt::print("{}: valid run config\n", path);
    }
    return 0;
}

int cmd_trace(int argc, char** argv) {
    if (argc < 2 || std::string(argv[1]) != "generate")
        throw InputError("trace: expected a subcommand: generate (stats, convert and cluster come with the traces issue)");
    po::options_description desc("dlsim trace generate: Poisson arrivals, Gavel's Philly-derived size and duration mix");
    std::size_t jobs = 1000;
    double rate = 1.0;
    std::string seed = "0";
    std::string profiles = default_run_config().profiles, out;
    desc.add_options()("help,h", "show this help")
        ("jobs", po::value<std::size_t>(&jobs), "number of jobs; default 1000")
        ("rate", po::value<double>(&rate), "arrival rate in jobs/hour; default 1")
        ("seed", po::value<std::string>(&seed), "random seed (an integer >= 0); default 0")
        ("profiles", po::value<std::string>(&profiles), "draw models uniformly from this profile")
        ("no-models", "generate jobs without a model")
        ("out", po::value<std::string>(&out), "output CSV (default: stdout)");
    po::variables_map vm;
    if (!parse(argc - 1, argv + 1, desc, vm)) return 0;
    GavelMixOptions o;
    o.num_jobs = jobs;
    o.jobs_per_hour = rate;
    o.seed = parse_seed(seed);
    if (!vm.count("no-models"))
        for (const auto& m : load_profiles(profiles).models) o.models.push_back(m.name);
    const Trace t = generate_gavel_mix(o);
    if (out.empty()) {
        write_canonical_csv(t, std::cout);
    } else {
        std::ofstream f(out);
        if (!f) throw InputError(out + ": cannot write");
        write_canonical_csv(t, f);
    }
    return 0;
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
        if (cmd == "validate") return cmd_validate(argc - 1, argv + 1);
        if (cmd == "trace") return cmd_trace(argc - 1, argv + 1);
        if (cmd == "--version" || cmd == "version") {
            fmt::print("dlsim {}\n", dlsim_version());
            return 0;
        }
        if (cmd == "--help" || cmd == "-h" || cmd == "help") {
            std::cout << kUsage;
            return 0;
        }
        throw InputError("unknown command '" + cmd + "' (valid: run, policies, validate, trace)");
    } catch (const InputError& e) {
        fmt::print(stderr, "dlsim: error: {}\n", e.what());
        return 2;
    } catch (const InternalError& e) {
        fmt::print(stderr, "dlsim: internal error (a bug, please report it): {}\n", e.what());
        return 1;
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "dlsim: out of memory\n");
        return 1;
    } catch (const std::exception& e) {
        fmt::print(stderr, "dlsim: internal error: {}\n", e.what());
        return 1;
    }
}

}  // namespace dlsim
