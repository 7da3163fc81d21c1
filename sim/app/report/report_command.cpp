#include "sim/app/report/report_command.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"
#include "sim/app/atomic_file.hpp"
#include "sim/app/report/report_data.hpp"
#include "sim/app/report/report_page.hpp"

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>

namespace dlsim {

namespace po = boost::program_options;
namespace fs = std::filesystem;
namespace jf = json_fields;

namespace {

/// Writes a page through an atomic file in pieces of at most 1 MiB (the buffer stays small).
void write_page(const std::string& path, const std::function<void(const report::Sink&)>& page) {
    AtomicFile f(path);
    page([&](std::string_view piece) {
        while (!piece.empty()) {
            const std::size_t n = std::min<std::size_t>(piece.size(), 1u << 20);
            f.buffer().append(piece.data(), piece.data() + n);
            f.flush_if_full();
            piece.remove_prefix(n);
        }
    });
    f.commit();
}

/// The report of one result file; with an event log its Gantt shows GPUs, else job lifetimes by type.
void run_report(const std::string& result, const std::string& event_log, const std::string& out) {
    report::ReportData data = report::read_result(result);
    if (event_log.empty())
        report::lifetime_gantt(data);
    else
        report::read_event_log(event_log, data);
    write_page(out, [&](const report::Sink& sink) { report::run_page(data, sink); });
}

/// A sweep's folder: its index.json, and per run the link to runs/<id>.html when that report exists
/// (written first with --run-reports), relative to the page.
void sweep_report(const std::string& dir, const std::string& out, bool run_reports) {
    const std::string index_path = (fs::path(dir) / "index.json").string();
    if (!fs::exists(index_path))
        throw InputError(
            fmt::format("{}: no index.json in this folder (expected a sweep's results folder, as "
                        "`dlsim sweep` writes it, or a result file)",
                        dir));
    const jf::Json index = jf::parse_file(index_path);
    jf::require_object(index, index_path, "(top level)");
    if (jf::string_member(index, "schema") != "dlsim.sweep-index/1")
        jf::fail(index_path, "schema", "\"dlsim.sweep-index/1\"",
                 index.contains("schema") ? &index["schema"] : nullptr);
    for (const char* key : {"parameters", "metrics", "runs"})
        if (!index.contains(key) || !index[key].is_array())
            jf::fail(index_path, key, "an array", index.contains(key) ? &index[key] : nullptr);
    const fs::path page_dir = fs::absolute(fs::path(out)).parent_path();
    std::vector<std::string> links;
    for (std::size_t i = 0; i < index["runs"].size(); ++i) {
        const jf::Json& run = index["runs"][i];
        const std::string where = fmt::format("runs[{}]", i);
        jf::require_object(run, index_path, where);
        const std::string id =
            jf::string(run.contains("run_id") ? run["run_id"] : jf::Json(), index_path, where + ".run_id");
        const fs::path result = fs::path(dir) / "runs" / (id + ".json");
        const fs::path html = fs::path(dir) / "runs" / (id + ".html");
        if (run_reports && jf::string_member(run, "status") == "done") run_report(result.string(), "", html.string());
        links.push_back(fs::exists(html) ? fs::absolute(html).lexically_relative(page_dir).generic_string() : "");
    }
    write_page(out, [&](const report::Sink& sink) { report::sweep_page(dir, index, links, sink); });
}

}  // namespace

int cmd_report(int argc, char** argv) {
    po::options_description desc(
        "dlsim report RESULT.json [--event-log E.jsonl] -o report.html | dlsim report SWEEP_DIR -o sweep.html: "
        "one self-contained HTML page (sim/app/report/README.md)");
    std::string input, event_log, out;
    desc.add_options()("help,h", "show this help")("input", po::value<std::string>(&input),
                                                   "a result file (dlsim run --out) or a sweep's results folder")(
        "event-log", po::value<std::string>(&event_log),
        "the run's event log (dlsim run --event-log): the Gantt shows GPUs and each job's timeline its lines")(
        "out,o", po::value<std::string>(&out), "the HTML file to write")(
        "run-reports", "with a sweep folder: write runs/<run_id>.html for every finished run too, and link them");
    po::positional_options_description pos;
    pos.add("input", 1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc, argv).options(desc).positional(pos).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw InputError(std::string("report: ") + e.what() + " (see --help)");
    }
    if (vm.count("help")) {
        std::cout << desc << "\n";
        return 0;
    }
    if (input.empty()) throw InputError("report: expected a RESULT.json or a SWEEP_DIR (see --help)");
    if (out.empty()) throw InputError("report: expected -o FILE.html, the page to write");
    if (fs::is_directory(input)) {
        if (!event_log.empty())
            throw InputError("--event-log: only with a result file (a sweep's runs have no event logs)");
        sweep_report(input, out, vm.count("run-reports") > 0);
    } else {
        if (vm.count("run-reports")) throw InputError("--run-reports: only with a sweep's folder");
        run_report(input, event_log, out);
    }
    fmt::print("report       {}\n", out);
    return 0;
}

}  // namespace dlsim
