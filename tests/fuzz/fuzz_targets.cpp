#include "tests/fuzz/fuzz_targets.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"
#include "models/cluster.hpp"
#include "models/profile.hpp"
#include "policies/foreign/pipe_policy.hpp"
#include "sim/app/cli.hpp"
#include "sim/app/resolved_run.hpp"
#include "sim/app/run_config.hpp"
#include "sim/app/sweep_spec.hpp"
#include "traces/readers/trace_format.hpp"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace dlsim::fuzz {

namespace {

namespace jf = json_fields;

/// Small valid inputs a run config or sweep spec may name by these relative paths, so that mutations of a
/// valid seed get past "no such file" to the checks behind it.
void write_fixtures(const std::string& dir) {
    std::ofstream(dir + "/cluster.json")
        << R"({"gpu_types": {"g": {}}, "node_types": {"n": {"gpu_type": "g", "gpus": 2}},
 "racks": [{"node_type": "n", "nodes": 2}]})";
    std::ofstream(dir + "/profiles.json") << R"({"schema": "dlsim.profile/1", "units": "iterations/s",
 "models": {"m": {"params": 1000000, "throughput": {"g": 1}}}})";
    std::ofstream(dir + "/trace.csv") << "job_id,submit_time,num_gpus,duration,model\n0,0,1,100,m\n1,5,2,50,m\n";
}

/// The one folder targets write to: readers take a path, so each input is written there first.
const std::string& scratch_dir() {
    static const std::string dir = [] {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/dlsim-fuzz-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr) std::abort();
        write_fixtures(pattern);
        return pattern;
    }();
    return dir;
}

std::string write_input(std::string_view text, const std::string& name) {
    const std::string path = scratch_dir() + "/" + name;
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(text.data(), static_cast<std::streamsize>(text.size()));
    return path;
}

/// True when a string in `doc` names a policy that runs foreign code (`exec:` starts a program, `py:` loads
/// a Python file): the fuzzer must not run whatever command its mutations spell. Iterative: `doc` is at
/// most kMaxJsonDepth deep anyway.
bool names_foreign_code(const jf::Json& doc) {
    std::vector<const jf::Json*> todo{&doc};
    while (!todo.empty()) {
        const jf::Json* v = todo.back();
        todo.pop_back();
        if (v->is_string()) {
            const auto& s = v->get_ref<const std::string&>();
            if (s.find("exec:") != std::string::npos || s.find("py:") != std::string::npos) return true;
        } else if (v->is_structured()) {
            for (const auto& [key, child] : v->items()) {
                if (key.find("exec:") != std::string::npos || key.find("py:") != std::string::npos) return true;
                todo.push_back(&child);
            }
        }
    }
    return false;
}

/// A parsed document, or null when the text is not JSON (the target then lets the parser under test fail).
std::optional<jf::Json> try_parse(std::string_view text) {
    try {
        return jf::parse_text(std::string(text), "fuzz.json");
    } catch (const InputError&) {
        return std::nullopt;
    }
}

/// Sweep specs with more runs than this are left out: expanding 10 keys of 10 values is slow by design,
/// and load_sweep_spec's own cap on runs is what refuses them.
constexpr double kMaxFuzzRuns = 1000;

bool sweep_too_big(const jf::Json& doc) {
    if (!doc.is_object() || !doc.contains("grid") || !doc["grid"].is_object()) return false;
    double runs = 1;
    for (const auto& [key, values] : doc["grid"].items()) runs *= values.is_array() ? double(values.size()) : 1;
    return runs > kMaxFuzzRuns;
}

void trace(const char* format, std::string_view text) {
    const std::string path = write_input(text, "trace");
    ReadOptions options;
    // Odd-sized inputs skip bad rows, even-sized ones stop at the first: both paths are exercised.
    if (text.size() % 2 == 1) options.on_bad_line = BadLinePolicy::Skip;
    (void)find_trace_format(format).read(path, options);
}

void run_config(std::string_view text) {
    const auto doc = try_parse(text);
    if (!doc || names_foreign_code(*doc)) return;
    RunConfig c = default_run_config();
    c.out.clear();
    apply_config_json(c, *doc, "fuzz.json", scratch_dir());  // relative paths: the fixtures
    (void)resolve(c);
}

void sweep_spec(std::string_view text) {
    const auto doc = try_parse(text);
    if (doc && (names_foreign_code(*doc) || sweep_too_big(*doc))) return;
    (void)load_sweep_spec(write_input(text, "spec.json"));
}

void validate(std::string_view text) {
    // Text that starts like JSON is checked as a .json file (cluster, profile or run config), the rest as a
    // canonical trace.
    const auto first = text.find_first_not_of(" \t\r\n");
    const bool json = first != std::string_view::npos && (text[first] == '{' || text[first] == '[');
    if (json) {
        const auto doc = try_parse(text);
        if (doc && names_foreign_code(*doc)) return;
    }
    (void)validate_file(write_input(text, json ? "input.json" : "input.csv"));
}

void pipe_reply(std::string_view text) {
    Decisions out;
    // One reply line: the child's reader splits at '\n', so a line never holds one.
    (void)parse_pipe_reply(text.substr(0, text.find('\n')), out, 16, 3);
}

struct Target {
    std::string_view name;
    void (*run)(std::string_view);
};

constexpr std::array kTargets{
    Target{"trace_philly", [](std::string_view t) { trace("philly", t); }},
    Target{"trace_gavel", [](std::string_view t) { trace("gavel", t); }},
    Target{"trace_tiresias", [](std::string_view t) { trace("tiresias", t); }},
    Target{"trace_muri", [](std::string_view t) { trace("muri", t); }},
    Target{"trace_alibaba_openb", [](std::string_view t) { trace("alibaba-openb", t); }},
    Target{"trace_alibaba_pai2020", [](std::string_view t) { trace("alibaba-pai2020", t); }},
    Target{"trace_helios", [](std::string_view t) { trace("helios", t); }},
    Target{"trace_acme", [](std::string_view t) { trace("acme", t); }},
    Target{"trace_pollux", [](std::string_view t) { trace("pollux", t); }},
    Target{"trace_csv", [](std::string_view t) { trace("csv", t); }},
    Target{"cluster", [](std::string_view t) { (void)parse_cluster(std::string(t), "fuzz.json"); }},
    Target{"profiles", [](std::string_view t) { (void)parse_profiles(std::string(t), "fuzz.json"); }},
    Target{"run_config", run_config},
    Target{"sweep_spec", sweep_spec},
    Target{"pipe_reply", pipe_reply},
    Target{"validate", validate},
};

constexpr auto kNames = [] {
    std::array<std::string_view, kTargets.size()> names{};
    for (std::size_t i = 0; i < kTargets.size(); ++i) names[i] = kTargets[i].name;
    return names;
}();

}  // namespace

std::span<const std::string_view> target_names() { return kNames; }

bool run_target(std::string_view name, const std::uint8_t* data, std::size_t size) {
    for (const Target& t : kTargets) {
        if (t.name != name) continue;
        try {
            t.run(std::string_view(reinterpret_cast<const char*>(data), size));
        } catch (const InputError&) {
            // the expected outcome of bad input
        }
        return true;
    }
    return false;
}

}  // namespace dlsim::fuzz
