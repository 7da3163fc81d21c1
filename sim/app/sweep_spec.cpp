#include "sim/app/sweep_spec.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"
#include "sim/app/file_hash.hpp"
#include "sim/app/run.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>

namespace dlsim {

namespace jf = json_fields;

namespace {

/// Keys a sweep controls itself: every run writes runs/<id>.json.
constexpr const char* kOutputKeys[] = {"out", "jobs_csv", "event_log"};

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

SweepSpec load_sweep_spec(const std::string& path) {
    const jf::Json doc = jf::parse_file(path);
    jf::require_object(doc, path, "(top level)");
    jf::check_keys(doc, path, "", {"name", "description", "base", "grid", "runs"});
    SweepSpec spec;
    spec.path = path;
    spec.name = doc.contains("name") ? folder_name_ok(jf::string(doc["name"], path, "name"), path)
                                     : std::filesystem::path(path).stem().string();
    const std::string base_dir = std::filesystem::absolute(path).parent_path().lexically_normal().string();

    RunConfig base = default_run_config();
    base.out.clear();
    if (doc.contains("base"))
        apply_config_json(base, to_config(doc["base"], path + ": base"), path + ": base", base_dir);

    // The runs' own values, in order: the grid's product, then the explicit list.
    std::vector<jf::Json> overrides;
    if (doc.contains("grid")) {
        const jf::Json& grid = jf::require_object(doc["grid"], path, "grid");
        overrides.push_back(jf::Json::object());
        for (const auto& [key, values] : grid.items()) {
            if (!values.is_array() || values.empty())
                jf::fail(path, "grid." + key, "a non-empty array of values", &values);
            std::vector<jf::Json> crossed;
            for (const jf::Json& partial : overrides)
                for (const jf::Json& v : values) {
                    jf::Json next = partial;
                    next[key] = v;
                    crossed.push_back(std::move(next));
                }
            overrides = std::move(crossed);
        }
    }
    if (doc.contains("runs")) {
        const jf::Json& runs = doc["runs"];
        if (!runs.is_array()) jf::fail(path, "runs", "an array of run-config objects", &runs);
        for (std::size_t i = 0; i < runs.size(); ++i) {
            jf::require_object(runs[i], path, fmt::format("runs[{}]", i));
            overrides.push_back(runs[i]);
        }
    }
    if (overrides.empty()) overrides.push_back(jf::Json::object());  // no grid, no runs: the base alone

    std::map<std::string, std::string> hashes;  // path -> sha256, each file hashed once
    auto hash = [&](const std::string& file) -> const std::string& {
        auto it = hashes.find(file);
        if (it == hashes.end()) it = hashes.emplace(file, sha256_file(file)).first;
        return it->second;
    };
    std::map<std::string, std::size_t> seen;  // run id -> position
    for (std::size_t i = 0; i < overrides.size(); ++i) {
        SweepRun run;
        run.position = i;
        run.values = flatten(overrides[i]);
        for (const auto& [key, value] : run.values.items())
            if (std::find(spec.parameters.begin(), spec.parameters.end(), key) == spec.parameters.end())
                spec.parameters.push_back(key);
        const std::string origin = fmt::format("{}: run {} ({})", path, i, describe_run(run));
        run.config = base;
        apply_config_json(run.config, to_config(overrides[i], origin), origin, base_dir);
        try {
            run.id = run_id(resolve(run.config),
                            {hash(run.config.trace), hash(run.config.cluster), hash(run.config.profiles)});
        } catch (const InputError& e) {
            throw InputError(fmt::format("{}: {}", origin, e.what()));
        }
        if (auto [it, fresh] = seen.emplace(run.id, i); !fresh)
            throw InputError(
                fmt::format("{}: runs {} and {} are the same run (id {}): remove one", path, it->second, i, run.id));
        spec.runs.push_back(std::move(run));
    }
    return spec;
}

}  // namespace dlsim
