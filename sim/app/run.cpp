#include "sim/app/run.hpp"

#include "models/elastic_performance.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"
#include "models/base/json_out.hpp"
#include "models/measured_scaling.hpp"
#include "models/rate_model.hpp"
#include "policies/registry.hpp"
#include "sim/app/atomic_file.hpp"
#include "sim/app/file_hash.hpp"
#include "sim/app/policy_source.hpp"
#include "sim/app/result_check.hpp"
#include "sim/app/result_fields.hpp"
#include "sim/event_log.hpp"
#include "sim/held_gpus.hpp"
#include "sim/job_spec.hpp"
#include "sim/timeline.hpp"
#include "traces/readers/trace_format.hpp"

#include <sys/resource.h>

#include <filesystem>
#include <map>
#include <memory>
#include <tuple>

#include "dlsim_version.h"  // generated at every build by scripts/version.cmake

namespace dlsim {

const char* dlsim_version() { return DLSIM_VERSION; }

double peak_rss_mb() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

Trace load_trace(const RunConfig& c) {
    ReadOptions options;
    options.on_bad_line = c.on_bad_line;
    options.time_unit = c.time_unit;
    Trace trace = read_trace(c.trace, c.trace_format, options);
    TraceTransforms t = c.transforms;
    t.seed = c.seed;
    apply_transforms(trace, t);
    return trace;
}

RunInputs load_inputs(const RunConfig& c) {
    RunInputs in;
    in.cluster = load_cluster(c.cluster);
    in.cluster_sha256 = sha256_file(c.cluster);
    in.profiles = load_profiles(c.profiles);
    in.profiles_sha256 = sha256_file(c.profiles);
    in.trace = load_trace(c);
    in.trace_sha256 = sha256_file(c.trace);
    return in;
}

namespace {

/// The parameters as the identity echoes them; a File parameter adds its content's hash (registry.hpp).
json_fields::Json params_json(const Params& p) {
    json_fields::Json out = json_fields::Json::object();
    for (const auto& [name, typed] : p.values()) {
        const auto& [type, text] = typed;
        switch (type) {
            case ParamType::Int:
                out[name] = std::stoll(text);
                break;
            case ParamType::Double:
                out[name] = std::stod(text);
                break;
            case ParamType::Bool:
                out[name] = text == "true";
                break;
            case ParamType::Choice:
            case ParamType::Text:
                out[name] = text;
                break;
            case ParamType::File:
                out[name] = text;
                if (!text.empty()) out[name + "_sha256"] = sha256_file(p.file_path(name));
                break;
            case ParamType::Numbers: {
                json_fields::Json list = json_fields::Json::array();
                for (double x : split_numbers(text)) list.push_back(x);
                out[name] = list;
                break;
            }
        }
    }
    return out;
}

/// The resolved parameters that identify a run (see run_id in run.hpp): the run-config table's echo.
json_fields::Json identity(const ResolvedRun& r, const InputHashes& hashes) {
    const json_fields::Json policy = params_json(r.policy_params), placer = params_json(r.placer_params);
    return run_identity(r.given, IdentityContext{&hashes, &policy, &placer});
}

std::string id_of(const json_fields::Json& identity) { return sha256_text(identity.dump()).substr(0, 16); }

/// The config as echoed in the result: the identity plus input paths, the detected trace format,
/// the reader's report and the cluster's size (in all and by GPU type).
std::string config_json(const RunInputs& in, const RunConfig& c, json_fields::Json cfg) {
    using json_fields::Json;
    Json report = Json::object();
    report["rows_read"] = in.trace.report.rows_read;
    report["kept"] = in.trace.report.kept;
    report["dropped"] = Json::object();
    for (const auto& [why, n] : in.trace.report.dropped) report["dropped"][why] = n;
    report["repaired"] = Json::object();
    for (const auto& [why, n] : in.trace.report.repaired) report["repaired"][why] = n;
    report["assumptions"] = in.trace.report.assumptions;
    Json& trace = cfg["trace"];
    trace = Json{{"path", in.trace.path},     {"format", in.trace.format}, {"requested_format", c.trace_format},
                 {"sha256", in.trace_sha256}, {"time_unit", c.time_unit},  {"transforms", trace["transforms"]},
                 {"report", report}};
    Json by_type = Json::object();  // capacity by GPU type, in cluster order (plots read it)
    for (std::size_t t = 0; t < in.cluster.gpu_types.size(); ++t)
        by_type[in.cluster.gpu_types[t].name] = in.cluster.gpus_of_type(static_cast<GpuTypeIdx>(t));
    cfg["cluster"] = {
        {"path", c.cluster}, {"sha256", in.cluster_sha256}, {"gpus", in.cluster.num_gpus()}, {"gpus_by_type", by_type}};
    cfg["profiles"] = {{"path", c.profiles}, {"sha256", in.profiles_sha256}};
    return cfg.dump();
}

}  // namespace

std::string run_id(const ResolvedRun& r, const InputHashes& hashes) { return id_of(identity(r, hashes)); }

std::string run_id(const RunConfig& c, const InputHashes& hashes) { return run_id(resolve(c), hashes); }

namespace {

/// How each profile model communicates: gradient bytes from params × grad_dtype, the overlap γ (fitted
/// when the profile has measured placements).
std::vector<CommModel> comm_models(const ProfileSet& profiles) {
    std::vector<CommModel> out;
    for (const ModelProfile& m : profiles.models) {
        CommModel cm = comm_model(m);
        if (m.calibration) cm.gamma = m.calibration->gamma;
        out.push_back(cm);
    }
    return out;
}

std::vector<std::optional<CommCalibration>> calibrations(const ProfileSet& profiles) {
    std::vector<std::optional<CommCalibration>> out;
    for (const ModelProfile& m : profiles.models) out.push_back(m.calibration);
    return out;
}

}  // namespace

RunOutcome simulate(const RunInputs& in, const RunConfig& c, const ProgressFn& progress) {
    return simulate(in, resolve(c), progress);
}

RunOutcome simulate(const RunInputs& in, const ResolvedRun& run, const ProgressFn& progress) {
    const RunConfig& c = run.given;
    RunOutcome out;
    json_fields::Json id = identity(run, {in.trace_sha256, in.cluster_sha256, in.profiles_sha256});
    out.run_id = id_of(id);
    out.config_json = config_json(in, c, std::move(id));
    const RateModel rates(in.cluster, in.profiles, run.rate_mode);

    const Topology topology(in.cluster);
    const std::vector<CommModel> comm = comm_models(in.profiles);
    NetworkPerformance network(topology, rates, comm, NetworkOptions{.mode = run.network}, calibrations(in.profiles),
                               measured_intra_bandwidths(in.cluster, in.profiles, comm));
    network.time_solves(c.time_network_solves);
    // A trace duration was measured with the job's communication: work = duration × its rate alone there
    // (one placement per model, type and size).
    std::map<std::tuple<ModelIdx, GpuTypeIdx, int>, double> alone;
    const ResolvedJobs resolved = resolve_jobs(
        in.trace, in.cluster, in.profiles, rates, c.strict, c.unknown_models,
        [&](ModelIdx m, GpuTypeIdx t, int n) {
            auto [it, fresh] = alone.try_emplace({m, t, n}, 0.0);
            if (fresh) it->second = network.alone_rate(m, t, n);
            return it->second;
        },
        c.type_choice);
    // The seed, cluster and trace are in the run identity already: the context adds nothing to it.
    const MakeContext context{c.seed, &in.cluster, &resolved.tenants, &in.profiles, &rates, resolved.jobs.size()};
    auto policy = run.policy.entry->make(run.policy_params, context);
    auto placer = run.placer->make(run.placer_params, context);
    const std::unique_ptr<RestartModel> restart = make_restart_model(c.restart, in.profiles);
    // Jobs whose model has goodput data run on the elastic model; the others on the network model.
    std::unique_ptr<ElasticPerformance> elastic;
    {
        std::vector<const GoodputProfile*> goodput;
        for (const ModelProfile& m : in.profiles.models) goodput.push_back(m.goodput ? &*m.goodput : nullptr);
        if (std::any_of(goodput.begin(), goodput.end(), [](const GoodputProfile* g) { return g != nullptr; })) {
            std::vector<ModelIdx> job_model;
            std::vector<int> job_batch;
            for (const JobSpec& j : resolved.jobs) {
                job_model.push_back(j.model);
                job_batch.push_back(j.batch_size);
            }
            elastic =
                std::make_unique<ElasticPerformance>(network, in.cluster, std::move(goodput), std::move(job_model),
                                                     std::move(job_batch), effective_adapt_batch(c));
            std::vector<double> slowdowns(in.profiles.models.size(), 1.0);
            for (const auto& [name, x] : c.slowdowns) {
                const auto m = in.profiles.find_model(name);
                if (!m || !in.profiles.models[*m].goodput)
                    throw InputError(fmt::format(
                        "slowdowns: model '{}' has no goodput data in the profiles (names are exact)", name));
                slowdowns[*m] = x;
            }
            elastic->set_slowdowns(std::move(slowdowns));
        } else if (!c.slowdowns.empty()) {
            throw InputError("slowdowns: no model in the profiles has goodput data (the factors slow elastic jobs)");
        }
    }
    Simulator sim(
        in.cluster, rates, resolved, *policy, *placer,
        SimOptions{to_time(c.restart.restart_cost), elastic ? static_cast<PerformanceModel*>(elastic.get()) : &network,
                   restart.get(), elastic.get()});
    Time origin = kNever;
    for (const JobSpec& j : resolved.jobs) origin = std::min(origin, j.submit);
    Metrics metrics(in.cluster, resolved.jobs.size(), origin == kNever ? 0 : origin, c.timeseries_points);
    sim.add_observer(metrics);
    std::unique_ptr<EventLog> log;
    if (!c.event_log.empty()) {
        log = std::make_unique<EventLog>(c.event_log, in.trace, in.cluster);
        sim.add_observer(*log);
    }
    std::unique_ptr<Timeline> timeline;
    if (!c.timeline.empty()) {
        timeline = std::make_unique<Timeline>(c.timeline, in.trace, in.cluster, c.policy, to_time(c.timeline_from),
                                              c.timeline_to < 0 ? kNever : to_time(c.timeline_to));
        sim.add_observer(*timeline);
    }
    // Batsim's job table lists the GPUs each job held: recorded only when asked for.
    std::unique_ptr<HeldGpus> held;
    if (!c.jobs_csv.empty() && c.jobs_csv_format == JobsCsvFormat::Batsim) {
        held = std::make_unique<HeldGpus>(in.cluster, resolved.jobs.size());
        sim.add_observer(*held);
    }
    if (progress) sim.set_progress(progress);
    if (run.stop_after_measured) {
        // The window's jobs that can run; a rejected one never finishes, so the run cannot wait for it.
        std::vector<char> wait_for = measured_mask(sim.jobs(), c.measure);
        for (const auto& [j, why] : resolved.rejected) wait_for[j] = 0;
        sim.stop_when_finished(std::move(wait_for));
    }
    try {
        out.stats = sim.run();
    } catch (const InvalidDecision& e) {
        // Named by the policy and the job's trace id. Code written outside dlsim broke a rule of the
        // engine: the user's error (exit 2); a built-in policy that does is a bug of dlsim (exit 1).
        std::string what = fmt::format("policy {}: {}", c.policy, e.what());
        if (e.job() < in.trace.jobs.size())
            what += fmt::format(" (job '{}' (index {}, {}:{}))", in.trace.jobs[e.job()].id, e.job(), in.trace.path,
                                in.trace.jobs[e.job()].line);
        else if (e.job() != InvalidDecision::kNoJob)
            what += fmt::format(" (job index {}; the trace has {} jobs)", e.job(), in.trace.jobs.size());
        if (run.policy.external) throw InputError(what);
        throw InternalError(what);
    } catch (const TimeOverflow& e) {
        const JobRecord& r = in.trace.jobs[e.job];
        throw InputError(
            fmt::format("{}:{}: job '{}' would finish at {:.3g} s, past the end of simulated time "
                        "(about 4.6e12 s): check the trace's durations and work and the profile's "
                        "throughputs",
                        in.trace.path, r.line, r.id, e.finish_seconds));
    }
    out.ftf_rho = metrics.finish_time_fairness(sim.jobs(), rates, in.cluster);
    SummaryOptions summary_options;
    summary_options.wait_threshold = to_time(c.wait_threshold);
    summary_options.ftf_rho = out.ftf_rho;
    out.waited = sim.take_wait_totals();
    summary_options.waited = out.waited;
    summary_options.tenants = &resolved.tenants;
    if (timeline) timeline->finish(sim.now());
    if (held) out.held_gpus = held->take_sets();
    out.summary = metrics.summarize(sim.jobs(), out.stats.events, c.measure, summary_options);
    out.summary.stopped_early = out.stats.stopped_early;
    network.finish(origin == kNever ? 0 : origin, sim.now());
    out.summary.network = network.summary();
    out.network.resize(resolved.jobs.size());
    for (JobIdx j = 0; j < out.network.size(); ++j) out.network[j] = network.record(j);
    out.network_solve_micros = network.solve_micros();
    out.summary.agnostic_jobs = resolved.agnostic_jobs;
    out.timeseries = metrics.timeseries();
    if (elastic) {
        out.elastic.resize(resolved.jobs.size());
        for (JobIdx j = 0; j < out.elastic.size(); ++j)
            if (elastic->is_elastic(j)) out.elastic[j] = elastic->stats(j);
    }
    out.jobs = sim.take_jobs();
    out.job_gpu_type.resize(out.jobs.size());
    for (JobIdx j = 0; j < out.jobs.size(); ++j) out.job_gpu_type[j] = metrics.longest_type(j);
    out.rejected = resolved.rejected;
    return out;
}

namespace {

void write_number_array(AtomicFile& f, const std::vector<double>& xs) {
    f.put('[');
    for (std::size_t i = 0; i < xs.size(); ++i) f.print("{}{}", i ? "," : "", json_out::number(xs[i]));
    f.put(']');
}

/// The job table as CSV, columns from the field table (result_fields.hpp).
void write_jobs_csv(const RunInputs& in, const RunOutcome& o, const std::string& path) {
    AtomicFile f(path);
    f.print("{}", result_fields::jobs_csv_header());
    for (JobIdx j = 0; j < o.jobs.size(); ++j) {
        result_fields::write_job_csv(f.buffer(), {in, o, j});
        f.flush_if_full();
    }
    f.commit();
}

/// Batsim's out_jobs.csv columns (sim/app/README.md): times in s, -1 where a job never got that far.
void write_batsim_jobs_csv(const RunInputs& in, const RunOutcome& o, const std::string& path) {
    AtomicFile f(path);
    f.print(
        "job_id,workload_name,submission_time,requested_number_of_resources,requested_time,success,"
        "starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources\n");
    const std::string workload = std::filesystem::path(in.trace.path).stem().string();
    const auto num = [](double x) { return json_out::number(x); };
    for (JobIdx j = 0; j < o.jobs.size(); ++j) {
        const JobInfo& job = o.jobs[j];
        const JobRecord& r = in.trace.jobs[j];
        // Differences are taken in whole microseconds, so that each prints as exactly as its two ends.
        const bool started = job.first_start != kNever, finished = job.state == JobState::Finished;
        const double start = started ? to_seconds(job.first_start) : -1;
        const double end = finished ? to_seconds(job.finish) : -1;
        const double exec = finished ? to_seconds(job.finish - job.first_start) : -1;
        const double turnaround = finished ? to_seconds(job.finish - job.submit) : -1;
        f.print("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", result_fields::csv_text(r.id),
                result_fields::csv_text(workload), num(to_seconds(job.submit)), job.num_gpus,
                num(r.duration > 0 ? r.duration : -1), finished ? 1 : 0, num(start), num(exec), num(end),
                num(started ? to_seconds(job.first_start - job.submit) : -1), num(turnaround),
                num(exec > 0 ? turnaround / exec : -1),
                j < o.held_gpus.size() ? interval_set(o.held_gpus[j]) : std::string());
        f.flush_if_full();
    }
    f.commit();
}

}  // namespace

void write_outputs(const RunInputs& in, const RunConfig& c, const RunOutcome& o, const RunSelfProfile& self) {
    if (!c.jobs_csv.empty()) {
        if (c.jobs_csv_format == JobsCsvFormat::Batsim)
            write_batsim_jobs_csv(in, o, c.jobs_csv);
        else
            write_jobs_csv(in, o, c.jobs_csv);
    }
    if (c.out.empty()) return;
    AtomicFile f(c.out);
    f.start_hash();
    f.print("{{\"schema\":\"dlsim.result/1\",\n\"run_id\":\"{}\",\n\"config\":{},\n\"summary\":", o.run_id,
            o.config_json);
    result_fields::write_summary_json(f.buffer(), o.summary);
    f.print(",\n\"jobs\":[");
    if (c.job_records) {
        // Streamed record by record into the file's buffer, which goes to disk in large chunks.
        for (JobIdx j = 0; j < o.jobs.size(); ++j) {
            if (j) f.put(',');
            f.put('\n');
            result_fields::write_job_json(f.buffer(), {in, o, j});
            f.flush_if_full();
        }
    }
    f.print("],\n\"timeseries\":{{\"time\":");
    write_number_array(f, o.timeseries.time);
    f.print(",\"busy_gpus\":{{");
    for (std::size_t t = 0; t < o.timeseries.busy.size(); ++t) {
        f.print("{}{}:", t ? "," : "", json_out::quote(in.cluster.gpu_types[t].name));
        write_number_array(f, o.timeseries.busy[t]);
    }
    f.print("}},\"queued_jobs\":");
    write_number_array(f, o.timeseries.queued);
    f.print(",\"running_jobs\":");
    write_number_array(f, o.timeseries.running);
    f.print(",\"queued_by_reason\":{{");
    for (std::size_t i = 0; i < o.timeseries.queued_by_reason.size(); ++i) {
        f.print("{}\"{}\":", i ? "," : "", wait_reason_name(o.timeseries.queued_by_reason[i].first));
        write_number_array(f, o.timeseries.queued_by_reason[i].second);
    }
    f.print("}}");
    const DurationHistogram& calls = o.stats.policy_call_time;
    f.print(
        "}},\n\"run\":{{\"version\":{},\"wall_seconds\":{},\"policy_seconds\":{},\"policy_calls\":{},"
        "\"policy_call_seconds\":{{\"p50\":{},\"p99\":{},\"max\":{}}},\"peak_rss_mb\":{},",
        json_out::quote(dlsim_version()), json_out::number(self.wall_seconds), json_out::number(o.stats.policy_seconds),
        o.stats.policy_calls, json_out::number(calls.percentile(50)), json_out::number(calls.percentile(99)),
        json_out::number(calls.max()), json_out::number(self.peak_rss_mb));
    // Last, the checksum of every byte before it (result_check.hpp).
    const std::string checksum = f.finish_hash();
    f.print("{}{}{}", kChecksumKey, checksum, kChecksumEnd);
    f.commit();
}

}  // namespace dlsim
