#include "sim/app/sweep_index.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"
#include "models/base/json_out.hpp"
#include "sim/app/atomic_file.hpp"
#include "sim/app/result_check.hpp"
#include "sim/app/result_fields.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace dlsim {

namespace jf = json_fields;

std::string result_path(const std::string& dir, const SweepRun& run) { return dir + "/runs/" + run.id + ".json"; }
std::string error_path(const std::string& dir, const SweepRun& run) { return dir + "/runs/" + run.id + ".error.json"; }

namespace {

const char* status_name(RunStatus s) {
    switch (s) {
        case RunStatus::Done:
            return "done";
        case RunStatus::Failed:
            return "failed";
        case RunStatus::Missing:
            return "missing";
    }
    return "?";
}

/// Checks a result's checksum, then parses it but drops its bulky job records and time series: the
/// index needs the rest.
jf::Json parse_result_head(const std::string& path) {
    const std::string text = jf::read_file(path);
    if (const std::string problem = result_checksum_problem(text); !problem.empty()) throw std::runtime_error(problem);
    const jf::Json::parser_callback_t skip_bulk = [](int depth, jf::Json::parse_event_t event, jf::Json& parsed) {
        return !(depth == 1 && event == jf::Json::parse_event_t::key && (parsed == "jobs" || parsed == "timeseries"));
    };
    jf::check_nesting(text, path);
    try {
        return jf::Json::parse(text, skip_bulk);
    } catch (const jf::Json::out_of_range& e) {  // a number beyond a double's range (1e400)
        throw InputError(fmt::format("{}: {}", path, e.what()));
    }
}

/// One CSV cell: numbers in shortest form, strings quoted when they need it (RFC 4180).
std::string csv_cell(const jf::Json& v) {
    if (v.is_null()) return "";
    return result_fields::csv_text(v.is_string()         ? v.get<std::string>()
                                   : v.is_number_float() ? json_out::number(v.get<double>())
                                                         : v.dump());
}

}  // namespace

RunState read_run_state(const std::string& dir, const SweepRun& run) {
    RunState state;
    const std::string result = result_path(dir, run);
    if (std::filesystem::exists(result)) {
        try {
            const jf::Json doc = parse_result_head(result);
            if (jf::string_member(doc, "schema") != "dlsim.result/1" || jf::string_member(doc, "run_id") != run.id ||
                !doc.contains("summary"))
                throw std::runtime_error("not the result of this run");
            state.status = RunStatus::Done;
            state.summary = doc["summary"];
            if (doc.contains("run") && doc["run"].contains("version")) state.version = doc["run"]["version"];
            return state;
        } catch (const std::exception& e) {
            state.error = fmt::format("{}: unusable result ({}), will run again", result, e.what());
            return state;
        }
    }
    const std::string error = error_path(dir, run);
    if (std::filesystem::exists(error)) {
        try {
            const jf::Json doc = jf::parse_file(error);
            state.status = RunStatus::Failed;
            state.error = jf::string_member(doc, "error", "unknown error");
        } catch (const InputError& e) {
            state.status = RunStatus::Failed;
            state.error = e.what();
        }
    }
    return state;
}

void write_run_error(const std::string& dir, const SweepRun& run, const std::string& kind, const std::string& message,
                     const std::vector<std::string>& output_tail) {
    jf::Json doc = {{"schema", "dlsim.run-error/1"},
                    {"run_id", run.id},
                    {"parameters", run.values},
                    {"kind", kind},
                    {"error", message}};
    if (!output_tail.empty()) doc["output_tail"] = output_tail;
    AtomicFile f(error_path(dir, run));
    // A message may quote bytes of an input that are not UTF-8: they become U+FFFD, not an exception.
    f.print("{}\n", doc.dump(1, ' ', false, jf::Json::error_handler_t::replace));
    f.commit();
}

const std::vector<std::string>& index_metrics() { return result_fields::index_metrics(); }

void write_index(const SweepSpec& spec, const std::string& dir, const std::vector<RunState>& states) {
    const auto& metrics = index_metrics();
    jf::Json runs = jf::Json::array();
    std::string csv = "run_id,status";
    for (const auto& p : spec.parameters) csv += "," + csv_cell(p);
    for (const auto& m : metrics) csv += "," + m;
    csv += ",error\n";
    for (std::size_t i = 0; i < spec.runs.size(); ++i) {
        const SweepRun& run = spec.runs[i];
        const RunState& s = states[i];
        const bool done = s.status == RunStatus::Done;
        runs.push_back({{"run_id", run.id},
                        {"status", status_name(s.status)},
                        {"parameters", run.values},
                        {"result", "runs/" + run.id + ".json"},
                        {"version", done ? jf::Json(s.version) : jf::Json()},
                        {"summary", done ? s.summary : jf::Json()},
                        {"error", s.status == RunStatus::Failed ? jf::Json(s.error) : jf::Json()}});
        csv += run.id + "," + status_name(s.status);
        for (const auto& p : spec.parameters) csv += "," + (run.values.contains(p) ? csv_cell(run.values[p]) : "");
        for (const auto& m : metrics) csv += "," + (done && s.summary.contains(m) ? csv_cell(s.summary[m]) : "");
        csv += "," + (s.status == RunStatus::Failed ? csv_cell(s.error) : "") + "\n";
    }
    jf::Json index = {{"schema", "dlsim.sweep-index/1"},
                      {"sweep", spec.name},
                      {"parameters", spec.parameters},
                      {"metrics", metrics},
                      {"runs", runs}};
    AtomicFile json_file(dir + "/index.json");
    json_file.print("{}\n", index.dump(1, ' ', false, jf::Json::error_handler_t::replace));
    json_file.commit();
    AtomicFile csv_file(dir + "/index.csv");
    csv_file.print("{}", csv);
    csv_file.commit();
}

}  // namespace dlsim
