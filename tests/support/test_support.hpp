#pragma once
// Helpers for tests: inputs built from text in memory, runs without files, and running the CLI.
#include "models/cluster.hpp"
#include "models/profile.hpp"
#include "sim/app/run.hpp"
#include "traces/readers/canonical_csv.hpp"
#include "traces/readers/trace_format.hpp"

#include <sys/wait.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace dlsim::test {

/// A homogeneous cluster of `nodes` nodes with `gpus` GPUs each, of one type "g".
inline std::string homogeneous_cluster_json(int nodes, int gpus) {
    return "{\"gpu_types\": {\"g\": {}}, \"node_types\": {\"n\": {\"gpu_type\": \"g\", \"gpus\": " +
           std::to_string(gpus) + "}}, \"racks\": [{\"node_type\": \"n\", \"nodes\": " + std::to_string(nodes) + "}]}";
}

/// A profile with one model that is never used (jobs without a model run at 1 unit/s per GPU).
inline const char* kUnusedProfile = R"({"models": {"unused": {"throughput": {"g": 1}}}})";

inline RunInputs inputs_from_text(const std::string& cluster_json, const std::string& profile_json,
                                  const std::string& trace_csv) {
    RunInputs in;
    in.cluster = parse_cluster(cluster_json, "cluster.json");
    in.profiles = parse_profiles(profile_json, "profile.json");
    in.trace = parse_canonical_csv(trace_csv, "trace.csv");
    return in;
}

/// Runs `policy` with no output files.
inline RunOutcome run_policy(const RunInputs& in, const std::string& policy, const std::string& params = "") {
    RunConfig c;
    c.policy = policy;
    if (!params.empty()) add_param(c, params);
    c.out.clear();
    return simulate(in, c);
}

/// Seconds of a job's start/finish, for exact comparisons (times are whole microseconds).
inline double start_s(const RunOutcome& o, std::size_t j) { return to_seconds(o.jobs[j].first_start); }
inline double finish_s(const RunOutcome& o, std::size_t j) { return to_seconds(o.jobs[j].finish); }

struct CliResult {
    int exit_code;
    std::string err;  ///< stderr
    std::string out;  ///< stdout
};

inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

/// Runs the dlsim binary with arguments (shell-quoted by the caller) and captures its output.
inline CliResult run_cli(const std::string& args) {
    static int counter = 0;
    const auto dir = std::filesystem::temp_directory_path() / "dlsim-tests";
    std::filesystem::create_directories(dir);
    const std::string base = (dir / ("cli-" + std::to_string(::getpid()) + "-" + std::to_string(counter++))).string();
    const std::string cmd = std::string(DLSIM_BINARY) + " " + args + " >" + base + ".out 2>" + base + ".err";
    const int status = std::system(cmd.c_str());
    CliResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(base + ".err"), slurp(base + ".out")};
    std::filesystem::remove(base + ".out");
    std::filesystem::remove(base + ".err");
    return r;
}

/// Read options that count malformed rows by reason and go on, instead of failing.
inline ReadOptions skip_bad() {
    ReadOptions o;
    o.on_bad_line = BadLinePolicy::Skip;
    return o;
}

/// Splits a line at `sep` (no quoting: the fixtures and published files read this way have none).
inline std::vector<std::string> split(const std::string& line, char sep = ',') {
    std::vector<std::string> out;
    for (std::size_t start = 0;;) {
        const std::size_t cut = line.find(sep, start);
        out.push_back(line.substr(start, cut == std::string::npos ? cut : cut - start));
        if (cut == std::string::npos) return out;
        start = cut + 1;
    }
}

/// The non-blank lines of a file (CR stripped) split at `sep`, optionally after its first line.
inline std::vector<std::vector<std::string>> read_rows(const std::string& path, char sep = ',',
                                                       bool skip_header = false) {
    std::ifstream in(path);
    std::vector<std::vector<std::string>> rows;
    std::string line;
    if (skip_header) std::getline(in, line);
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty()) rows.push_back(split(line, sep));
    }
    return rows;
}

/// A fresh temporary file path with the given name.
inline std::string temp_path(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / ("dlsim-tests-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

inline std::string write_temp(const std::string& name, const std::string& text) {
    const std::string p = temp_path(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

}  // namespace dlsim::test
