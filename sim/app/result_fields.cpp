#include "sim/app/result_fields.hpp"

#include "models/base/json_fields.hpp"
#include "models/base/json_out.hpp"
#include "models/base/record_out.hpp"
#include "sim/app/run_config.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>

namespace dlsim::result_fields {

using namespace record_out;

// ---------------------------------------------------------------- summary

namespace {

// A figure over no jobs (kNoFigure) reads "n/a" on the console, as it is null in JSON.
std::string hours(double seconds) { return has_figure(seconds) ? fmt::format("{:.2f}", seconds / 3600.0) : "n/a"; }
std::string percent(double share) { return has_figure(share) ? fmt::format("{:.1f}%", 100 * share) : "n/a"; }
std::string nonzero(std::uint64_t n) { return n ? std::to_string(n) : std::string(); }

/// A count (std::uint64_t member) as a JSON number and console text.
template <std::uint64_t Summary::*Member>
void count_json(Buffer& out, const Summary& s) {
    append_int(out, static_cast<std::int64_t>(s.*Member));
}
template <std::uint64_t Summary::*Member>
std::string count_text(const Summary& s) {
    return std::to_string(s.*Member);
}
/// A number of seconds (double member) as JSON and, on the console, in hours.
template <double Summary::*Member>
void number_json(Buffer& out, const Summary& s) {
    append_double(out, s.*Member);
}
template <double Summary::*Member>
std::string hours_text(const Summary& s) {
    return hours(s.*Member);
}

const std::array<std::string_view, 9> kConsoleRows = {"jobs",         "measured",    "JCT (h)",
                                                      "queueing (h)", "pending (h)", "makespan (h)",
                                                      "GPU util",     "preemptions", "fairness"};
enum Row {
    kJobsRow,
    kMeasuredRow,
    kJctRow,
    kQueueingRow,
    kPendingRow,
    kMakespanRow,
    kUtilRow,
    kCountsRow,
    kFairnessRow
};

/// A list of (name, number) pairs as a JSON object, in list order.
void named_numbers_json(Buffer& out, const std::vector<std::pair<std::string, double>>& values) {
    out.push_back('{');
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) out.push_back(',');
        append_json_string(out, values[i].first);
        out.push_back(':');
        append_double(out, values[i].second);
    }
    out.push_back('}');
}

/// by_vc, by_user: {name: {"jobs": n, "avg_jct": s}} in name order.
void groups_json(Buffer& out, const std::vector<GroupJct>& groups) {
    out.push_back('{');
    for (std::size_t i = 0; i < groups.size(); ++i) {
        if (i) out.push_back(',');
        append_json_string(out, groups[i].name);
        append(out, ":{\"jobs\":");
        append_int(out, static_cast<std::int64_t>(groups[i].jobs));
        append(out, ",\"avg_jct\":");
        append_double(out, groups[i].avg_jct);
        out.push_back('}');
    }
    out.push_back('}');
}

std::string no_text(const Summary&) { return {}; }

const SummaryField kSummary[] = {
    {"jobs", "jobs", "jobs", "jobs in the trace (after its filters and transforms)", count_json<&Summary::jobs>, true,
     kJobsRow, Show::Part, "", count_text<&Summary::jobs>},
    {"finished", "finished jobs", "jobs", "jobs that finished", count_json<&Summary::finished>, true, kJobsRow,
     Show::Aside, "finished", count_text<&Summary::finished>},
    {"rejected", "rejected jobs", "jobs", "jobs that can never run on this cluster (state rejected, with a reason)",
     count_json<&Summary::rejected>, true, kJobsRow, Show::Aside, "rejected", count_text<&Summary::rejected>},
    {"unfinished", "unfinished jobs", "jobs", "jobs neither finished nor rejected", count_json<&Summary::unfinished>,
     true, kJobsRow, Show::Aside, "unfinished", count_text<&Summary::unfinished>},
    {"stopped_early", "stopped early", "",
     "true when the run ended once the measurement window's jobs had finished (stop_after_measured) while others "
     "were still queued, running or not yet arrived (they count as unfinished; makespan ends at that instant)",
     [](Buffer& out, const Summary& s) { append(out, s.stopped_early ? "true" : "false"); }, false, kJobsRow,
     Show::Aside, "early", [](const Summary& s) { return s.stopped_early ? std::string("stopped") : std::string(); }},
    {"agnostic_jobs", "model-agnostic jobs", "jobs",
     "jobs whose model the profile lacks, run model-agnostic (--unknown-models agnostic)",
     count_json<&Summary::agnostic_jobs>, false, kJobsRow, Show::Aside, "model-agnostic",
     [](const Summary& s) { return nonzero(s.agnostic_jobs); }},
    {"avg_jct", "mean JCT", "s", "mean JCT of the finished jobs in the measurement window (s); null when none finished",
     number_json<&Summary::avg_jct>, true, kJctRow, Show::Part, "avg", hours_text<&Summary::avg_jct>},
    {"p50_jct", "median JCT", "s", "median JCT, linear interpolation between order statistics (s)",
     number_json<&Summary::p50_jct>, true, kJctRow, Show::Part, "p50", hours_text<&Summary::p50_jct>},
    {"p95_jct", "95th-percentile JCT", "s", "95th percentile JCT (s)", number_json<&Summary::p95_jct>, true, kJctRow,
     Show::Part, "p95", hours_text<&Summary::p95_jct>},
    {"p99_jct", "99th-percentile JCT", "s", "99th percentile JCT (s)", number_json<&Summary::p99_jct>, true, kJctRow,
     Show::Part, "p99", hours_text<&Summary::p99_jct>},
    {"avg_queueing_delay", "mean queueing delay", "s",
     "mean first start - submit of the finished jobs in the window (s); null when none finished",
     number_json<&Summary::avg_queueing_delay>, true, kQueueingRow, Show::Part, "avg",
     hours_text<&Summary::avg_queueing_delay>},
    {"avg_pending_time", "mean pending time", "s",
     "mean pending_time (time waiting for GPUs between submit and finish, restarts excluded) of the finished jobs "
     "in the window (s); null when none finished",
     number_json<&Summary::avg_pending_time>, false, kPendingRow, Show::Part, "avg",
     hours_text<&Summary::avg_pending_time>},
    {"p95_pending_time", "95th-percentile pending time", "s", "95th percentile pending_time (s)",
     number_json<&Summary::p95_pending_time>, false, kPendingRow, Show::Part, "p95",
     hours_text<&Summary::p95_pending_time>},
    {"makespan", "makespan", "s", "last finish - first submit (s); null when no job finished",
     number_json<&Summary::makespan>, true, kMakespanRow, Show::Part, "", hours_text<&Summary::makespan>},
    {"gpu_utilization", "GPU utilisation", "share", "busy GPU-seconds / (GPUs x makespan); null without a makespan",
     number_json<&Summary::gpu_utilization>, true, kUtilRow, Show::Part, "",
     [](const Summary& s) { return percent(s.gpu_utilization); }},
    {"gpu_utilization_by_type", "GPU utilisation by type", "share",
     "the same per GPU type, in cluster order (object: type -> share)",
     [](Buffer& out, const Summary& s) { named_numbers_json(out, s.gpu_utilization_by_type); }, false, kUtilRow,
     Show::Part, "",
     [](const Summary& s) {
         std::string text;
         for (const auto& [name, u] : s.gpu_utilization_by_type)
             text += fmt::format("{}{} {}", text.empty() ? "" : "   ", name, percent(u));
         return text;
     }},
    {"preemptions", "preemptions", "count", "times a running job lost its GPUs before finishing (moves included)",
     count_json<&Summary::preemptions>, true, kCountsRow, Show::Part, "", count_text<&Summary::preemptions>},
    {"migrations", "migrations", "count", "of the preemptions, moves: the job ran again elsewhere at the same instant",
     count_json<&Summary::migrations>, true, kCountsRow, Show::Aside, "migrations",
     [](const Summary& s) { return nonzero(s.migrations); }},
    {"restarts", "restarts", "count", "restarts charged by the restart model (a cost > 0), all jobs",
     count_json<&Summary::restarts>, true, kCountsRow, Show::Aside, "restarts",
     [](const Summary& s) { return nonzero(s.restarts); }},
    {"restart_gpu_seconds", "GPU time restarting", "GPU-s",
     "GPU-seconds spent restarting (GPUs held x restart seconds; a restart cut short counts the part spent)",
     number_json<&Summary::restart_gpu_seconds>, true, kCountsRow, Show::Aside, "GPU-h restarting",
     [](const Summary& s) { return s.restart_gpu_seconds > 0 ? hours(s.restart_gpu_seconds) : std::string(); }},
    {"resizes", "resizes", "count", "changes of a running job's GPU count (elastic policies), all jobs",
     count_json<&Summary::resizes>, false, kCountsRow, Show::Aside, "resizes",
     [](const Summary& s) { return nonzero(s.resizes); }},
    {"resize_gpu_seconds", "GPU time restarting after resizes", "GPU-s",
     "of restart_gpu_seconds, the GPU-seconds charged by resizes", number_json<&Summary::resize_gpu_seconds>, false,
     kCountsRow, Show::Aside, "GPU-h resizing",
     [](const Summary& s) { return s.resize_gpu_seconds > 0 ? hours(s.resize_gpu_seconds) : std::string(); }},
    {"packed_gpu_seconds", "GPU time packed", "GPU-s",
     "GPU-seconds during which a GPU was shared by two packed jobs (space sharing; counted once per GPU)",
     number_json<&Summary::packed_gpu_seconds>, false, kCountsRow, Show::Aside, "GPU-h packed",
     [](const Summary& s) { return s.packed_gpu_seconds > 0 ? hours(s.packed_gpu_seconds) : std::string(); }},
    {"events", "engine events", "count", "events the engine processed", count_json<&Summary::events>, true, kCountsRow,
     Show::Part, "events", count_text<&Summary::events>},
    {"ftf_rho_max", "max finish-time fairness ρ", "",
     "finish-time fairness: the largest rho = JCT / the time alone on an equal 1/N share of its fastest type's "
     "GPUs (N the mean jobs in the system over its lifetime) among the finished jobs in the window",
     number_json<&Summary::ftf_rho_max>, true, kFairnessRow, Show::Part, "rho max",
     [](const Summary& s) { return s.ftf_rho_max > 0 ? fmt::format("{:.3f}", s.ftf_rho_max) : std::string(); }},
    {"ftf_rho_mean", "mean finish-time fairness ρ", "", "mean rho of the finished jobs in the window",
     number_json<&Summary::ftf_rho_mean>, true, kFairnessRow, Show::Part, "mean",
     [](const Summary& s) { return s.ftf_rho_max > 0 ? fmt::format("{:.3f}", s.ftf_rho_mean) : std::string(); }},
    {"ftf_share_above_1", "jobs with ρ > 1", "share", "share of the finished jobs in the window with rho > 1",
     number_json<&Summary::ftf_share_above_1>, true, kFairnessRow, Show::Part, "rho > 1",
     [](const Summary& s) { return s.ftf_rho_max > 0 ? percent(s.ftf_share_above_1) : std::string(); }},
    {"wait_threshold", "wait threshold", "s",
     "the queueing delay jobs_waited_over_threshold counts beyond (s; run config wait_threshold)",
     number_json<&Summary::wait_threshold>, false, -1, Show::Part, "", no_text},
    {"jobs_waited_over_threshold", "jobs that waited over the threshold", "jobs",
     "finished jobs in the window whose queueing delay exceeds wait_threshold",
     count_json<&Summary::jobs_waited_over_threshold>, true, kQueueingRow, Show::Part, "",
     [](const Summary& s) {
         return s.jobs_waited_over_threshold
                    ? fmt::format("{} waited > {} h", s.jobs_waited_over_threshold, hours(s.wait_threshold))
                    : std::string();
     }},
    {"pending_reasons", "", "",
     "per wait reason with time > 0: {\"job_hours\": time the measured finished jobs waited for it (h), "
     "\"gpu_hours\": the same times their requested GPUs}",
     [](Buffer& out, const Summary& s) {
         out.push_back('{');
         for (std::size_t i = 0; i < s.pending_reasons.size(); ++i) {
             if (i) out.push_back(',');
             append_json_string(out, wait_reason_name(s.pending_reasons[i].reason));
             append(out, ":{\"job_hours\":");
             append_double(out, s.pending_reasons[i].job_hours);
             append(out, ",\"gpu_hours\":");
             append_double(out, s.pending_reasons[i].gpu_hours);
             out.push_back('}');
         }
         out.push_back('}');
     },
     false, -1, Show::Part, "", no_text},
    {"gpu_hours_by_type", "busy GPU time by type", "GPU-h",
     "busy GPU-hours per GPU type over the whole run, in cluster order (object: type -> hours)",
     [](Buffer& out, const Summary& s) { named_numbers_json(out, s.gpu_hours_by_type); }, false, -1, Show::Part, "",
     no_text},
    {"by_vc", "", "",
     "finished jobs in the window by the trace's vc, in name order (object: vc -> {jobs, avg_jct}); jobs without "
     "a vc are left out, and a trace without the column gives {}",
     [](Buffer& out, const Summary& s) { groups_json(out, s.by_vc); }, false, -1, Show::Part, "", no_text},
    {"by_user", "", "", "the same by the trace's user",
     [](Buffer& out, const Summary& s) { groups_json(out, s.by_user); }, false, -1, Show::Part, "", no_text},
    {"network", "", "",
     "the contention mode; per tier the links' mean utilisation over the makespan, and the busiest tier; component "
     "re-rates, the jobs they re-rated, and full solves",
     [](Buffer& out, const Summary& s) {
         const NetworkSummary& n = s.network;
         append(out, "{\"mode\":");
         append_json_string(out, n.mode);
         append(out, ",\"busiest_tier\":");
         if (n.busiest_tier.empty())
             append(out, "null");
         else
             append_json_string(out, n.busiest_tier);
         append(out, ",\"busiest_tier_utilization\":");
         append_double(out, n.busiest_tier_utilization);
         append(out, ",\"tier_utilization\":{");
         for (std::size_t i = 0; i < n.tier_utilization.size(); ++i) {
             if (i) append(out, ",");
             append_json_string(out, n.tier_utilization[i].first);
             append(out, ":");
             append_double(out, n.tier_utilization[i].second);
         }
         append(out, fmt::format("}},\"rerates\":{},\"jobs_rerated\":{},\"full_solves\":{}}}", n.rerates,
                                 n.jobs_rerated, n.full_solves));
     },
     false, -1, Show::Part, "", [](const Summary&) { return std::string(); }},
    {"measure", "", "",
     "the measurement window of the JCT figures (by all, jobs or time; from, to) and its jobs and "
     "finished jobs",
     [](Buffer& out, const Summary& s) { append(out, measure_summary_json(s)); }, false, kMeasuredRow, Show::Part, "",
     [](const Summary& s) -> std::string {
         const MeasureWindow& w = s.measure;
         if (w.by == MeasureWindow::By::All) return {};
         const std::string where =
             w.by == MeasureWindow::By::Jobs
                 ? fmt::format("with arrival index in [{}, {})", w.first_job,
                               w.end_job == UINT64_MAX ? std::string("end") : std::to_string(w.end_job))
                 : fmt::format("submitted in [{}, {}) s", w.from,
                               w.to < 0 ? std::string("end") : fmt::format("{}", w.to));
         return fmt::format("{} jobs ({} finished) {}", s.measured_jobs, s.measured_finished, where);
     }},
};

}  // namespace

std::span<const SummaryField> summary_fields() { return kSummary; }

std::span<const std::string_view> console_rows() { return kConsoleRows; }

std::string measure_summary_json(const Summary& s) {
    nlohmann::ordered_json m = measure_json(s.measure);  // the window as the run config echoes it
    m["jobs"] = s.measured_jobs;
    m["finished"] = s.measured_finished;
    return m.dump();
}

void write_summary_json(Buffer& out, const Summary& s) {
    char sep = '{';
    for (const SummaryField& f : kSummary) {
        out.push_back(sep);
        sep = ',';
        append_json_string(out, f.name);
        out.push_back(':');
        f.write_json(out, s);
    }
    out.push_back('}');
}

std::vector<std::pair<std::string, std::string>> console_lines(
    const Summary& s, const std::vector<std::pair<std::string_view, std::string>>& extra) {
    struct Part {
        std::string main;
        std::vector<std::string> asides;
    };
    std::vector<std::vector<Part>> rows(kConsoleRows.size());
    for (const SummaryField& f : kSummary) {
        if (f.console_row < 0) continue;
        const std::string text = f.console_text(s);
        if (text.empty()) continue;
        auto& row = rows[static_cast<std::size_t>(f.console_row)];
        if (f.show == Show::Aside && !row.empty())
            row.back().asides.push_back(fmt::format("{} {}", text, f.label));
        else
            row.push_back({f.label.empty() ? text : fmt::format("{} {}", f.label, text), {}});
    }
    for (const auto& [label, text] : extra)
        for (std::size_t r = 0; r < kConsoleRows.size(); ++r)
            if (kConsoleRows[r] == label) rows[r].push_back({text, {}});
    std::vector<std::pair<std::string, std::string>> lines;
    for (std::size_t r = 0; r < kConsoleRows.size(); ++r) {
        if (rows[r].empty()) continue;
        std::string text;
        for (const Part& p : rows[r]) {
            if (!text.empty()) text += "   ";
            text += p.main;
            if (!p.asides.empty()) text += fmt::format(" ({})", fmt::join(p.asides, ", "));
        }
        lines.emplace_back(std::string(kConsoleRows[r]), std::move(text));
    }
    return lines;
}

const std::vector<std::string>& index_metrics() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const SummaryField& f : kSummary)
            if (f.in_index) out.emplace_back(f.name);
        return out;
    }();
    return names;
}

// ---------------------------------------------------------------- job records

namespace {

const char* state_name(JobState s) {
    switch (s) {
        case JobState::Pending:
            return "pending";
        case JobState::Queued:
            return "queued";
        case JobState::Running:
            return "running";
        case JobState::Finished:
            return "finished";
        case JobState::Rejected:
            return "rejected";
    }
    return "?";
}

const JobInfo& info(const JobRow& r) { return r.out.jobs[r.j]; }
bool ran(const JobRow& r) { return info(r).first_start != kNever; }
bool done(const JobRow& r) { return info(r).state == JobState::Finished; }

Cell null() { return {}; }
Cell absent() { return {Cell::Kind::Absent, 0, {}, 0}; }
Cell integer(std::int64_t v) { return {Cell::Kind::Int, v, {}, 0}; }
Cell seconds(Time us) { return {Cell::Kind::Seconds, us, {}, 0}; }
Cell text(std::string_view s) { return {Cell::Kind::Text, 0, s, 0}; }
Cell real(double x) { return {Cell::Kind::Real, 0, {}, x}; }
const JobNetworkRecord& net(const JobRow& r) { return r.out.network[r.j]; }
bool networked(const JobRow& r) { return r.j < r.out.network.size() && net(r).run_seconds > 0; }
bool elastic(const JobRow& r) { return r.j < r.out.elastic.size() && r.out.elastic[r.j].mean_goodput > 0; }
/// One of the trace's optional string columns: absent when the row has none.
Cell trace_string(const JobRow& r, StrId id) { return id == 0 ? absent() : text(r.in.trace.strings[id]); }

const JobField kJobs[] = {
    {"job_id", "the trace's job id, as given", [](const JobRow& r) { return text(r.in.trace.jobs[r.j].id); }, true},
    {"submit_time", "submission (s)", [](const JobRow& r) { return seconds(info(r).submit); }, true},
    {"start_time", "first start (s); null if it never ran",
     [](const JobRow& r) { return ran(r) ? seconds(info(r).first_start) : null(); }, true},
    {"finish_time", "finish (s); null unless finished",
     [](const JobRow& r) { return done(r) ? seconds(info(r).finish) : null(); }, true},
    {"jct", "finish - submit (s); null unless finished",
     [](const JobRow& r) { return done(r) ? seconds(info(r).finish - info(r).submit) : null(); }, true},
    {"queueing_delay", "first start - submit (s); null if it never ran",
     [](const JobRow& r) { return ran(r) ? seconds(info(r).first_start - info(r).submit) : null(); }, true},
    {"pending_time",
     "time it waited for GPUs between submit and finish: before its first start and after every preemption, "
     "restarts excluded (s); null unless finished",
     [](const JobRow& r) { return done(r) ? seconds(pending_time(info(r))) : null(); }, true},
    {"pending_reasons",
     "seconds of its pending time per wait reason ({reason: s}, reasons with time > 0; they sum to pending_time once "
     "it finished)",
     [](const JobRow& r) {
         if (r.j >= r.out.waited.size()) return absent();
         Cell c{Cell::Kind::Waits, 0, {}, 0};
         c.waits = &r.out.waited[r.j];
         return c;
     },
     false},
    {"num_gpus", "requested GPUs", [](const JobRow& r) { return integer(info(r).num_gpus); }, true},
    {"gpu_type", "GPU type of its longest allocation; null if it never ran",
     [](const JobRow& r) { return ran(r) ? text(r.in.cluster.gpu_types[r.out.job_gpu_type[r.j]].name) : null(); },
     true},
    {"preemptions", "times it lost its GPUs before finishing (moves included)",
     [](const JobRow& r) { return integer(info(r).preemptions); }, true},
    {"migrations", "of those, moves to other GPUs at the same instant",
     [](const JobRow& r) { return integer(info(r).migrations); }, true},
    {"restarts", "restarts charged to it by the restart model (a cost > 0)",
     [](const JobRow& r) { return integer(info(r).restarts); }, true},
    {"restart_seconds", "seconds it spent restarting (a restart cut short counts the part spent)",
     [](const JobRow& r) { return seconds(info(r).restart_time); }, true},
    {"resizes", "changes of its GPU count while running (elastic policies)",
     [](const JobRow& r) { return integer(info(r).resizes); }, true},
    {"mean_goodput",
     "jobs with goodput data: samples at its initial batch size per second while making progress; null otherwise",
     [](const JobRow& r) { return elastic(r) ? real(r.out.elastic[r.j].mean_goodput) : null(); }, true},
    {"mean_efficiency",
     "jobs with goodput data: statistical efficiency, weighted by the work done at it; null otherwise",
     [](const JobRow& r) { return elastic(r) ? real(r.out.elastic[r.j].mean_efficiency) : null(); }, true},
    {"packed_seconds", "seconds it ran packed with another job on the same GPUs (space sharing)",
     [](const JobRow& r) { return seconds(info(r).packed_time); }, true},
    {"ftf_rho", "finish-time fairness rho (summary.ftf_rho_max); null unless finished",
     [](const JobRow& r) { return done(r) && r.j < r.out.ftf_rho.size() ? real(r.out.ftf_rho[r.j]) : null(); }, true},
    {"nodes_spanned", "nodes of its widest allocation; null if it never ran",
     [](const JobRow& r) { return networked(r) ? integer(net(r).max_nodes) : null(); }, true},
    {"racks_spanned", "racks of its widest allocation; null if it never ran",
     [](const JobRow& r) { return networked(r) ? integer(net(r).max_racks) : null(); }, true},
    {"network_slowdown",
     "time-weighted mean of (rate alone on the network ÷ its rate) while it ran; null if it never ran",
     [](const JobRow& r) { return networked(r) ? real(net(r).slowdown_seconds / net(r).run_seconds) : null(); }, true},
    {"comm_time", "seconds of its run spent communicating (∫ T_comm / T_iter dt); null if it never ran",
     [](const JobRow& r) { return networked(r) ? seconds(to_time(net(r).comm_seconds)) : null(); }, true},
    {"state", "pending, queued, running, finished or rejected",
     [](const JobRow& r) { return text(state_name(info(r).state)); }, true},
    {"reason", "why it can never run here (rejected jobs only)",
     [](const JobRow& r) {
         if (r.out.rejected.empty()) return absent();
         const auto it = r.out.rejected.find(r.j);
         return it == r.out.rejected.end() ? absent() : text(it->second);
     },
     false},
    {"model", "the trace's model, when given",
     [](const JobRow& r) { return trace_string(r, r.in.trace.jobs[r.j].model); }, false},
    {"user", "the trace's user, when given", [](const JobRow& r) { return trace_string(r, r.in.trace.jobs[r.j].user); },
     false},
    {"vc", "the trace's virtual cluster, when given",
     [](const JobRow& r) { return trace_string(r, r.in.trace.jobs[r.j].vc); }, false},
    {"status", "the trace's final status, when given",
     [](const JobRow& r) { return trace_string(r, r.in.trace.jobs[r.j].status); }, false},
};

/// `"name":` for each job field, built once.
const std::vector<std::string>& json_keys() {
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> out;
        for (const JobField& f : kJobs) {
            Buffer b;
            append_json_string(b, f.name);
            b.push_back(':');
            out.push_back(fmt::to_string(b));
        }
        return out;
    }();
    return keys;
}

}  // namespace

std::span<const JobField> job_fields() { return kJobs; }

std::string jobs_csv_header() {
    std::string header;
    for (const JobField& f : kJobs)
        if (f.in_csv) header += (header.empty() ? "" : ",") + csv_text(f.name);
    return header + "\n";
}

namespace {

/// One cell in either format: absent and null are JSON null and an empty CSV cell.
enum class Format { Json, Csv };
void put_cell(RecordWriter& out, const Cell& c, Format format) {
    switch (c.kind) {
        case Cell::Kind::Absent:
        case Cell::Kind::Null:
            if (format == Format::Json) out.text("null");
            break;
        case Cell::Kind::Int:
            out.integer(c.number);
            break;
        case Cell::Kind::Seconds:
            out.seconds(c.number);
            break;
        case Cell::Kind::Text:
            if (format == Format::Json)
                out.json_string(c.text);
            else
                out.csv_string(c.text);
            break;
        case Cell::Kind::Real:
            out.text(json_out::number_text(c.real).view());  // no string per record (ftf_rho is in every one)
            break;
        case Cell::Kind::Waits: {
            char sep = '{';
            for (std::size_t r = 0; r < kWaitReasons; ++r) {
                if ((*c.waits)[r] == 0) continue;
                out.text(std::string_view(&sep, 1));
                sep = ',';
                out.json_string(kWaitReasonNames[r]);
                out.text(":");
                out.seconds((*c.waits)[r]);
            }
            out.text(sep == '{' ? "{}" : "}");
            break;
        }
    }
}

}  // namespace

void write_job_json(Buffer& buffer, const JobRow& row) {
    const auto& keys = json_keys();
    RecordWriter out(buffer);
    char sep = '{';
    for (std::size_t i = 0; i < std::size(kJobs); ++i) {
        const Cell c = kJobs[i].value(row);
        if (c.kind == Cell::Kind::Absent) continue;
        out.need(keys[i].size() + 1);
        out.put(sep);
        sep = ',';
        out.put(keys[i]);
        put_cell(out, c, Format::Json);
    }
    out.text("}");
}

void write_job_csv(Buffer& buffer, const JobRow& row) {
    RecordWriter out(buffer);
    bool first = true;
    for (const JobField& f : kJobs) {
        if (!f.in_csv) continue;
        if (!first) out.text(",");
        first = false;
        put_cell(out, f.value(row), Format::Csv);
    }
    out.text("\n");
}

}  // namespace dlsim::result_fields
