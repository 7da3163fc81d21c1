#include "sim/app/sweep.hpp"

#include "models/base/input_error.hpp"
#include "models/base/parse.hpp"
#include "sim/app/progress.hpp"
#include "sim/app/run.hpp"
#include "sim/app/sweep_index.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
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

/// One run, start to finish; failures become runs/<id>.error.json, never exceptions.
bool execute(const SweepRun& run, const std::string& dir) {
    std::string kind, message;
    try {
        const auto t0 = std::chrono::steady_clock::now();
        RunConfig c = run.config;
        c.out = result_path(dir, run);
        c.jobs_csv.clear();
        c.event_log.clear();
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
    fmt::print(stderr, "{}dlsim: sweep: run {} ({}) failed: {}\n", Progress::stderr_is_terminal() ? "\n" : "", run.id,
               describe_run(run), message);
    try {
        write_run_error(dir, run, kind, message);
    } catch (const InputError& e) {  // a worker thread must not throw: the run stays missing instead
        fmt::print(stderr, "dlsim: sweep: {}\n", e.what());
    }
    return false;
}

std::vector<RunState> read_states(const SweepSpec& spec, const std::string& dir) {
    std::vector<RunState> states;
    states.reserve(spec.runs.size());
    for (const SweepRun& run : spec.runs) states.push_back(read_run_state(dir, run));
    return states;
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
    return failed + missing == 0 ? 0 : 2;
}

}  // namespace

int run_sweep(const SweepSpec& spec, const SweepOptions& options) {
    const std::string dir = sweep_dir(spec, options.out_dir);
    std::error_code ec;
    std::filesystem::create_directories(dir + "/runs", ec);
    if (ec) throw InputError(fmt::format("{}/runs: cannot create the results folder ({})", dir, ec.message()));

    // What is left to do in this shard. Finished runs' states are kept for the index.
    std::vector<RunState> states(spec.runs.size());
    std::vector<std::size_t> todo;
    std::size_t selected = 0, already = 0, other_version = 0;
    for (std::size_t i = 0; i < spec.runs.size(); ++i) {
        if (!options.shard.selects(spec.runs[i].position)) continue;
        ++selected;
        if (options.resume) {
            const RunState& state = states[i] = read_run_state(dir, spec.runs[i]);
            if (state.status == RunStatus::Done) {
                ++already;
                other_version += state.version != dlsim_version();
                continue;
            }
            if (!state.error.empty() && state.status == RunStatus::Missing)
                fmt::print(stderr, "dlsim: sweep: {}\n", state.error);
        }
        todo.push_back(i);
    }
    if (other_version > 0)
        fmt::print(stderr,
                   "dlsim: sweep: {} finished results were made by another dlsim version than {}; "
                   "--no-resume runs them again\n",
                   other_version, dlsim_version());

    unsigned threads = options.jobs > 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, todo.size()));
    const std::string label = options.shard.count > 1 ? fmt::format("sweep {} shard {}/{}", spec.name,
                                                                    options.shard.index, options.shard.count)
                                                      : fmt::format("sweep {}", spec.name);
    fmt::print(
        stderr, "dlsim: {}: {} runs, {} already done, {} -> {}\n", label, selected, already,
        todo.empty() ? std::string("nothing to run") : fmt::format("{} to run on {} threads", todo.size(), threads),
        dir);

    Progress progress(label, selected, already);
    std::mutex progress_mutex;
    std::atomic<std::size_t> next{0};
    std::size_t done = already, failed = 0;
    auto worker = [&] {
        for (std::size_t i = next++; i < todo.size(); i = next++) {
            const bool ok = execute(spec.runs[todo[i]], dir);
            const std::lock_guard lock(progress_mutex);
            ++done;
            failed += !ok;
            progress.update(done, failed ? fmt::format("{} failed", failed) : "");
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
    if (threads > 0) worker();
    for (auto& t : pool) t.join();
    progress.finish(done, failed ? fmt::format("{} failed", failed) : "");

    if (options.shard.count > 1) {
        fmt::print(stderr,
                   "dlsim: {}: {} runs done, {} failed; when every shard is done: dlsim sweep merge {} --out {}\n",
                   label, done - failed, failed, spec.path, dir);
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
