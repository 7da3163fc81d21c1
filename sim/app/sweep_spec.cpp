#include "sim/app/sweep_spec.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"
#include "sim/app/file_hash.hpp"
#include "sim/app/progress.hpp"
#include "sim/app/run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>

namespace dlsim {

namespace jf = json_fields;

namespace {

/// Keys a sweep controls itself: every run writes runs/<id>.json.
constexpr const char* kOutputKeys[] = {"out", "jobs_csv", "event_log", "timeline"};

/// Turns flat "params.K" keys into {"params": {"K": v}} for the config reader; rejects output keys.
jf::Json to_config(const jf::Json& values, const std::string& origin) {
    jf::Json config = jf::Json::object();
    for (const auto& [key, value] : values.items()) {
        for (const char* out : kOutputKeys)
            if (key == out)
                throw InputError(
                    fmt::format("{}: \"{}\" cannot be set in a sweep: each run writes "
                                "<out>/runs/<run id>.json",
                                origin, key));
        if (key.rfind("params.", 0) == 0)
            config["params"][key.substr(7)] = value;
        else if (key == "params" && value.is_object())
            for (const auto& [k, v] : value.items()) config["params"][k] = v;
        else
            config[key] = value;
    }
    return config;
}

/// Flattens "params": {K: v} into "params.K" so each policy parameter is its own index column.
jf::Json flatten(const jf::Json& values) {
    jf::Json flat = jf::Json::object();
    for (const auto& [key, value] : values.items()) {
        if (key == "params" && value.is_object())
            for (const auto& [k, v] : value.items()) flat["params." + k] = v;
        else
            flat[key] = value;
    }
    return flat;
}

std::string folder_name_ok(const std::string& name, const std::string& path) {
    const bool ok = !name.empty() && name != "." && name != ".." &&
                    name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
                        std::string::npos;
    if (!ok) jf::fail(path, "name", "a folder name of letters, digits, '.', '_' and '-'");
    return name;
}

}  // namespace

std::string describe_run(const SweepRun& run) {
    std::string out;
    for (const auto& [key, value] : run.values.items())
        out += fmt::format("{}{}={}", out.empty() ? "" : ", ", key,
                           value.is_string() ? value.get<std::string>() : value.dump());
    return out.empty() ? "the base run" : out;
}

namespace {

/// A spec read and checked but not expanded: enough to count its runs and to build any one of them.
struct SpecSource {
    std::string path, name, base_dir;
    RunConfig base;
    std::vector<std::pair<std::string, jf::Json>> grid;  ///< key -> its values, first key outermost
    bool has_grid = false;
    std::vector<jf::Json> explicit_runs;
    std::uint64_t grid_runs = 0;  ///< the grid's product (saturating)
    bool saturated = false;       ///< the product does not fit in 64 bits
    std::uint64_t total = 1;      ///< every run (saturating)
};

SpecSource read_source(const std::string& path) {
    SpecSource src;
    const jf::Json doc = jf::parse_file(path);
    jf::require_object(doc, path, "(top level)");
    jf::check_keys(doc, path, "", {"name", "description", "base", "grid", "runs"});
    src.path = path;
    src.name = doc.contains("name") ? folder_name_ok(jf::string(doc["name"], path, "name"), path)
                                    : std::filesystem::path(path).stem().string();
    src.base_dir = std::filesystem::absolute(path).parent_path().lexically_normal().string();
    src.base = default_run_config();
    src.base.out.clear();
    if (doc.contains("base"))
        apply_config_json(src.base, to_config(doc["base"], path + ": base"), path + ": base", src.base_dir);
    if (doc.contains("grid")) {
        const jf::Json& grid = jf::require_object(doc["grid"], path, "grid");
        src.has_grid = true;
        src.grid_runs = 1;
        for (const auto& [key, values] : grid.items()) {
            if (!values.is_array() || values.empty())
                jf::fail(path, "grid." + key, "a non-empty array of values", &values);
            if (src.grid_runs > std::numeric_limits<std::uint64_t>::max() / values.size()) src.saturated = true;
            src.grid_runs = src.saturated ? std::numeric_limits<std::uint64_t>::max() : src.grid_runs * values.size();
            src.grid.emplace_back(key, values);
        }
    }
    if (doc.contains("runs")) {
        const jf::Json& runs = doc["runs"];
        if (!runs.is_array()) jf::fail(path, "runs", "an array of run-config objects", &runs);
        for (std::size_t i = 0; i < runs.size(); ++i) {
            jf::require_object(runs[i], path, fmt::format("runs[{}]", i));
            src.explicit_runs.push_back(runs[i]);
        }
    }
    const std::uint64_t listed = src.explicit_runs.size();
    src.total = src.grid_runs > std::numeric_limits<std::uint64_t>::max() - listed
                    ? std::numeric_limits<std::uint64_t>::max()
                    : src.grid_runs + listed;
    if (src.total == 0) src.total = 1;  // no grid, no runs: the base alone
    return src;
}

/// The values of run `i`: the grid's point i (its last key varies fastest), then the explicit runs.
jf::Json overrides_at(const SpecSource& src, std::uint64_t i) {
    if (!src.has_grid && src.explicit_runs.empty()) return jf::Json::object();
    if (i >= src.grid_runs) return src.explicit_runs[i - src.grid_runs];
    std::vector<std::size_t> digit(src.grid.size());
    for (std::size_t k = src.grid.size(); k-- > 0;) {
        const std::size_t n = src.grid[k].second.size();
        digit[k] = static_cast<std::size_t>(i % n);
        i /= n;
    }
    jf::Json values = jf::Json::object();
    for (std::size_t k = 0; k < src.grid.size(); ++k) values[src.grid[k].first] = src.grid[k].second[digit[k]];
    return values;
}

/// Hashes each input file once.
class InputHasher {
public:
    const std::string& operator()(const std::string& file) {
        auto it = hashes_.find(file);
        if (it == hashes_.end()) it = hashes_.emplace(file, sha256_file(file)).first;
        return it->second;
    }

private:
    std::map<std::string, std::string> hashes_;  // path -> sha256
};

SweepRun make_run(const SpecSource& src, std::uint64_t i, InputHasher& hash) {
    SweepRun run;
    run.position = static_cast<std::size_t>(i);
    const jf::Json values = overrides_at(src, i);
    run.values = flatten(values);
    const std::string origin = fmt::format("{}: run {} ({})", src.path, i, describe_run(run));
    run.config = src.base;
    apply_config_json(run.config, to_config(values, origin), origin, src.base_dir);
    try {
        run.id =
            run_id(resolve(run.config), {hash(run.config.trace), hash(run.config.cluster), hash(run.config.profiles)});
    } catch (const InputError& e) {
        throw InputError(fmt::format("{}: {}", origin, e.what()));
    }
    return run;
}

/// "grid 10 x 20 x 5 + 3 explicit runs", for the cap's message.
std::string describe_size(const SpecSource& src) {
    std::string out;
    for (const auto& [key, values] : src.grid)
        out += fmt::format("{}{} {}", out.empty() ? "grid: " : " x ", values.size(), key);
    if (!src.explicit_runs.empty())
        out += fmt::format("{}{} explicit runs", out.empty() ? "" : " + ", src.explicit_runs.size());
    return out;
}

}  // namespace

SweepSpec load_sweep_spec(const std::string& path, std::uint64_t max_runs) {
    const SpecSource src = read_source(path);
    // Counted before anything is expanded: a spec of a billion runs is refused at once.
    if (src.total > max_runs)
        throw InputError(fmt::format(
            "{}: the spec expands to {} runs ({}), more than the cap of {} runs; give --max-runs N to allow more", path,
            src.saturated ? std::string("more than 1.8e19") : std::to_string(src.total), describe_size(src), max_runs));
    SweepSpec spec;
    spec.path = path;
    spec.name = src.name;
    const bool large = src.total > kExpansionProgressRuns;
    if (large) fmt::print(stderr, "dlsim: {}: expanding {} runs\n", path, src.total);
    Progress progress(fmt::format("expanding {}", path), src.total);
    InputHasher hash;
    std::map<std::string, std::size_t> seen;  // run id -> position
    spec.runs.reserve(static_cast<std::size_t>(src.total));
    for (std::uint64_t i = 0; i < src.total; ++i) {
        SweepRun run = make_run(src, i, hash);
        for (const auto& [key, value] : run.values.items())
            if (std::find(spec.parameters.begin(), spec.parameters.end(), key) == spec.parameters.end())
                spec.parameters.push_back(key);
        if (auto [it, fresh] = seen.emplace(run.id, run.position); !fresh)
            throw InputError(fmt::format("{}: runs {} and {} are the same run (id {}): remove one", path, it->second,
                                         run.position, run.id));
        spec.runs.push_back(std::move(run));
        if (large) progress.update(i + 1, "runs");
    }
    if (large) progress.finish(src.total, "runs");
    return spec;
}

SweepRun load_sweep_run(const std::string& path, std::size_t position) {
    const SpecSource src = read_source(path);
    if (position >= src.total)
        throw InputError(fmt::format("{}: no run {}: the spec has {} runs", path, position, src.total));
    InputHasher hash;
    return make_run(src, position, hash);
}

}  // namespace dlsim
