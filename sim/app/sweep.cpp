#include "sim/app/sweep.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_out.hpp"
#include "models/base/parse.hpp"
#include "sim/app/progress.hpp"
#include "sim/app/run.hpp"
#include "sim/app/sweep_index.hpp"
#include "sim/app/worker_pool.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <new>
#include <thread>

namespace dlsim {

Shard parse_shard(const std::string& text) {
    const auto slash = text.find('/');
    const auto i = slash == std::string::npos ? std::nullopt : parse_integer(text.substr(0, slash));
    const auto n = slash == std::string::npos ? std::nullopt : parse_integer(text.substr(slash + 1));
    if (!i || !n || *n < 1 || *i < 0 || *i >= *n)
        throw InputError(fmt::format("--shard: expected i/N with 0 <= i < N (e.g. 0/4), got '{}'", text));
    return {static_cast<std::size_t>(*i), static_cast<std::size_t>(*n)};
}

std::string sweep_dir(const SweepSpec& spec, const std::string& out) {
    return out.empty() ? "results/" + spec.name : out;
}

namespace {

/// A worker's exit code when its run failed and it wrote runs/<id>.error.json itself.
constexpr int kRunFailedRecorded = 3;
/// Lines of a dead worker's output kept in its error record.
constexpr std::size_t kTailLines = 20;

/// One run, start to finish; failures become runs/<id>.error.json, never exceptions.
bool execute(const SweepRun& run, const std::string& dir) {
    std::string kind, message;
    try {
        const auto t0 = std::chrono::steady_clock::now();
        RunConfig c = run.config;
        c.out = result_path(dir, run);
        c.jobs_csv.clear();
        c.event_log.clear();
        c.timeline.clear();
        const ResolvedRun resolved = resolve(c);
        const RunInputs inputs = load_inputs(c);
        const RunOutcome outcome = simulate(inputs, resolved);
        RunSelfProfile self;
        self.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        self.peak_rss_mb = peak_rss_mb();
        write_outputs(inputs, c, outcome, self);
        std::error_code ignored;
        std::filesystem::remove(error_path(dir, run), ignored);  // an earlier attempt's failure
        return true;
    } catch (const InputError& e) {
        kind = "input";
        message = e.what();
    } catch (const InternalError& e) {
        kind = "internal";
        message = e.what();
    } catch (const std::bad_alloc&) {
        kind = "internal";
        message = "out of memory";
    } catch (const std::exception& e) {
        kind = "internal";
        message = e.what();
    }
    try {
        write_run_error(dir, run, kind, message);
    } catch (const InputError& e) {  // the run stays without a record: the sweep says how it ended
        fmt::print(stderr, "dlsim: sweep: {}\n", e.what());
    }
    return false;
}

/// Bytes outside printable ASCII as \xNN: a run's output may hold anything, the record and the
/// terminal get text.
std::string printable(std::string_view text) {
    std::string out;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c < 0x7f)
            out += ch;
        else if (c == '\t')
            out += ' ';
        else
            out += fmt::format("\\x{:02x}", c);
    }
    return out;
}

/// The last non-empty lines of a worker's output, made printable.
std::vector<std::string> tail_lines(const std::string& output) {
    std::vector<std::string> lines;
    std::size_t end = output.size();
    while (end > 0 && lines.size() < kTailLines) {
        const std::size_t begin = output.rfind('\n', end - 1);
        const std::size_t from = begin == std::string::npos ? 0 : begin + 1;
        if (from < end) lines.push_back(printable(std::string_view(output).substr(from, end - from)));
        if (begin == std::string::npos) break;
        end = begin;
    }
    std::reverse(lines.begin(), lines.end());
    return lines;
}

/// What became of a run whose worker has ended: true when its result is there. A run that failed
/// on its own terms has its record already; one whose process died, exited without a result or ran
/// out of time gets one here, with the end of what it printed.
bool settle(const SweepRun& run, const std::string& dir, const WorkerEnd& end, double run_timeout) {
    const RunState state = read_run_state(dir, run);
    const bool exited = end.how == WorkerEnd::How::Exited;
    // A result that passes its checksum is complete, however the process ended after writing it.
    if (state.status == RunStatus::Done) return true;
    std::string kind, message;
    if (exited && end.code == kRunFailedRecorded && state.status == RunStatus::Failed) {
        message = state.error;
    } else {
        switch (end.how) {
            case WorkerEnd::How::TimedOut:
                kind = "timeout";
                message = fmt::format("timed out: still running after {} s (--run-timeout), killed",
                                      json_out::number(run_timeout));
                break;
            case WorkerEnd::How::Signaled:
                kind = "signal";
                message = fmt::format("its process was killed by {} (signal {})", signal_name(end.code), end.code);
                break;
            case WorkerEnd::How::Exited:
                kind = "exit";
                message = fmt::format("its process exited with status {} without {}", end.code,
                                      state.error.empty() ? "writing a result" : "a usable result: " + state.error);
                break;
        }
        const std::vector<std::string> tail = tail_lines(end.output);
        if (!tail.empty()) message += "; its last output: " + tail.back();
        try {
            write_run_error(dir, run, kind, message, tail);
        } catch (const InputError& e) {
            fmt::print(stderr, "dlsim: sweep: {}\n", e.what());
        }
    }
    fmt::print(stderr, "{}dlsim: sweep: run {} ({}) failed: {}\n", Progress::stderr_is_terminal() ? "\n" : "", run.id,
               describe_run(run), message);
    return false;
}

std::vector<RunState> read_states(const SweepSpec& spec, const std::string& dir) {
    std::vector<RunState> states;
    states.reserve(spec.runs.size());
    for (const SweepRun& run : spec.runs) states.push_back(read_run_state(dir, run));
    return states;
}

/// Names the failed runs on stderr, at most 20 of them.
void name_failed(const SweepSpec& spec, const std::vector<RunState>& states) {
    constexpr std::size_t kShown = 20;
    std::size_t failed = 0;
    for (std::size_t i = 0; i < states.size(); ++i) {
        if (states[i].status != RunStatus::Failed) continue;
        if (failed++ < kShown)
            fmt::print(stderr, "  failed: run {} ({}): {}\n", spec.runs[i].id, describe_run(spec.runs[i]),
                       states[i].error);
    }
    if (failed > kShown) fmt::print(stderr, "  ... and {} more failed runs (see the index)\n", failed - kShown);
}

/// Writes the index; returns 0 when every run is done, else says what is not and returns 2.
int finish_index(const SweepSpec& spec, const std::string& dir, const std::vector<RunState>& states) {
    write_index(spec, dir, states);
    std::size_t failed = 0, missing = 0;
    for (const RunState& s : states) {
        failed += s.status == RunStatus::Failed;
        missing += s.status == RunStatus::Missing;
    }
    fmt::print(stderr, "dlsim: sweep {}: {} of {} runs done, {} failed, {} missing; index {}/index.csv\n", spec.name,
               states.size() - failed - missing, states.size(), failed, missing, dir);
    name_failed(spec, states);
    return failed + missing == 0 ? 0 : 2;
}

}  // namespace

int run_sweep_worker(const std::string& spec_path, std::size_t position, const std::string& id,
                     const std::string& dir) {
    SweepRun run;
    try {
        run = load_sweep_run(spec_path, position);
        if (run.id != id)
            throw InputError(
                fmt::format("{}: run {} is now run {}, not {}: the spec or an input changed while the "
                            "sweep ran (run the sweep again)",
                            spec_path, position, run.id, id));
    } catch (const InputError& e) {
        run.id = id;
        write_run_error(dir, run, "input", e.what());
        return kRunFailedRecorded;
    }
    return execute(run, dir) ? 0 : kRunFailedRecorded;
}

int run_sweep(const SweepSpec& spec, const SweepOptions& options) {
    const std::string dir = sweep_dir(spec, options.out_dir);
    std::error_code ec;
    std::filesystem::create_directories(dir + "/runs", ec);
    if (ec) throw InputError(fmt::format("{}/runs: cannot create the results folder ({})", dir, ec.message()));

    // What is left to do in this shard. Finished runs' states are kept for the index.
    std::vector<RunState> states(spec.runs.size());
    std::vector<std::size_t> todo;
    std::size_t selected = 0, already = 0, other_version = 0, kept_failed = 0;
    for (std::size_t i = 0; i < spec.runs.size(); ++i) {
        if (!options.shard.selects(spec.runs[i].position)) continue;
        ++selected;
        const SweepRun& run = spec.runs[i];
        if (options.resume) {
            const RunState& state = states[i] = read_run_state(dir, run);
            if (state.status == RunStatus::Done) {
                ++already;
                other_version += state.version != dlsim_version();
                continue;
            }
            if (state.status == RunStatus::Failed && !options.retry_failed) {
                ++kept_failed;
                continue;
            }
            if (!state.error.empty() && state.status == RunStatus::Missing) {
                fmt::print(stderr, "dlsim: sweep: {}\n", state.error);
                std::filesystem::remove(result_path(dir, run), ec);  // not a result: out of the way
            }
        }
        // A failure record stays only as long as the failure is the run's last word; with --no-resume,
        // an earlier result must not pass for this attempt's.
        std::filesystem::remove(error_path(dir, run), ec);
        if (!options.resume) std::filesystem::remove(result_path(dir, run), ec);
        todo.push_back(i);
    }
    if (other_version > 0)
        fmt::print(stderr,
                   "dlsim: sweep: {} finished results were made by another dlsim version than {}; "
                   "--no-resume runs them again\n",
                   other_version, dlsim_version());
    if (kept_failed > 0)
        fmt::print(stderr,
                   "dlsim: sweep: {} runs failed in an earlier attempt and are kept as failed (their records are "
                   "in {}/runs/<run id>.error.json); --retry-failed runs them again\n",
                   kept_failed, dir);

    const unsigned slots = static_cast<unsigned>(std::min<std::size_t>(
        options.jobs > 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency()), todo.size()));
    const std::string label = options.shard.count > 1 ? fmt::format("sweep {} shard {}/{}", spec.name,
                                                                    options.shard.index, options.shard.count)
                                                      : fmt::format("sweep {}", spec.name);
    fmt::print(stderr, "dlsim: {}: {} runs, {} already done{}, {} -> {}\n", label, selected, already,
               kept_failed ? fmt::format(", {} failed before", kept_failed) : std::string(),
               todo.empty() ? std::string("nothing to run")
                            : fmt::format("{} to run, {} at a time, each in its own process", todo.size(), slots),
               dir);

    Progress progress(label, selected, already + kept_failed);
    std::size_t done = already + kept_failed, failed = kept_failed;
    if (!todo.empty()) {
        // Each run in a process of its own: a crash, an exit or a hang in a run ends that run only.
        const std::string exe = options.worker_binary.empty() ? self_executable() : options.worker_binary;
        WorkerPool pool(slots, options.run_timeout);
        std::size_t next = 0;
        while (next < todo.size() || !pool.idle()) {
            for (; next < todo.size() && pool.has_free_slot(); ++next) {
                const SweepRun& run = spec.runs[todo[next]];
                pool.start(todo[next], {exe, "sweep-worker", spec.path, std::to_string(run.position), run.id, dir});
            }
            const auto [i, end] = pool.wait_any();
            const bool ok = settle(spec.runs[i], dir, end, options.run_timeout);
            ++done;
            failed += !ok;
            progress.update(done, failed ? fmt::format("{} failed", failed) : "");
        }
    }
    progress.finish(done, failed ? fmt::format("{} failed", failed) : "");

    if (options.shard.count > 1) {
        fmt::print(stderr,
                   "dlsim: {}: {} runs done, {} failed; when every shard is done: dlsim sweep merge {} --out {}\n",
                   label, done - failed, failed, spec.path, dir);
        if (failed > 0) {
            std::vector<RunState> shard_states(spec.runs.size());
            for (std::size_t i = 0; i < spec.runs.size(); ++i)
                if (options.shard.selects(spec.runs[i].position)) shard_states[i] = read_run_state(dir, spec.runs[i]);
            name_failed(spec, shard_states);
        }
        return failed == 0 ? 0 : 2;
    }
    // Unsharded, every run was selected: those run now are read back from their files like the rest.
    for (std::size_t i : todo) states[i] = read_run_state(dir, spec.runs[i]);
    return finish_index(spec, dir, states);
}

int merge_sweep(const SweepSpec& spec, const std::string& out_dir) {
    const std::string dir = sweep_dir(spec, out_dir);
    if (!std::filesystem::is_directory(dir + "/runs"))
        throw InputError(fmt::format("{}/runs: no such folder: nothing to merge (give the sweep's --out)", dir));
    return finish_index(spec, dir, read_states(spec, dir));
}

}  // namespace dlsim
