#pragma once
// Policies and placers by name: a one-line description, typed parameters with defaults and ranges,
// and a factory. Shared by the CLI and run configs; an unknown name lists the valid ones.
#include "policies/policy.hpp"
#include "policies/tenants.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace dlsim {

/// Numbers: a non-empty comma-separated list of finite numbers (e.g. queue thresholds "3250,7200").
/// Text: any string, checked by the factory (a "name:weight" list); "" = not given.
/// File: a file's path, "" = not given. resolve_params checks that the file can be read (an InputError
/// naming the owner, parameter and path), and the run identity holds the file's content as well as its
/// path: the echoed params carry `<name>` (the path) and `<name>_sha256` (omitted when not given), so a
/// sweep does not reuse a result computed from an older version of the file. (No parameter may be
/// named `<name>_sha256` next to a File parameter `<name>`.) A relative path given in a config file or
/// sweep spec is read relative to that file's folder (as trace paths are); the echo keeps it as given.
enum class ParamType { Int, Double, Bool, Choice, Numbers, Text, File };

/// The values an Int or Double parameter may take: from lo to hi, each end closed unless marked open; hi may
/// be infinite. resolve_params checks a given value against it, so a factory reads only values in range.
struct ParamRange {
    double lo;
    double hi;
    bool lo_open = false;
    bool hi_open = false;
    const char* noun = "a number";  ///< what the error and `dlsim policies` call a value: "seconds", "an integer"
};

/// The range as `dlsim policies`, `dlsim run --help` and the errors show it: "[0, 1e9]", "[0, 1)", "(0, 1e6]",
/// ">= 0".
std::string to_string(const ParamRange& range);
/// Whether x lies in the range.
bool contains(const ParamRange& range, double x);

struct ParamSpec {
    std::string name;
    ParamType type;
    std::string default_value;
    std::string description;
    std::vector<std::string> choices;      ///< for ParamType::Choice
    std::optional<ParamRange> range = {};  ///< for ParamType::Int and Double; none: any finite value
};

/// The numbers of a validated ParamType::Numbers value ("3250,7200").
std::vector<double> split_numbers(const std::string& canonical);

/// Parameter values after validation: every declared parameter present, each checked against its type.
class Params {
public:
    const std::string& get(const std::string& name) const;
    long long get_int(const std::string& name) const;
    double get_double(const std::string& name) const;
    bool get_bool(const std::string& name) const;
    std::vector<double> get_numbers(const std::string& name) const;
    /// name -> (type, canonical text), in name order: what the result's config echoes (a File parameter's
    /// path as given).
    const std::map<std::string, std::pair<ParamType, std::string>>& values() const { return values_; }
    /// The path a File parameter's file is read from ("" = not given); get() returns the same.
    const std::string& file_path(const std::string& name) const;

private:
    friend Params resolve_params(const std::string&, const std::vector<ParamSpec>&,
                                 const std::map<std::string, std::string>&, const std::string&);
    std::map<std::string, std::pair<ParamType, std::string>> values_;
    std::map<std::string, std::string> files_;  // File parameters: the path read
};

/// Checks raw k=v values against the specs (unknown names, bad values and values out of a spec's range
/// are InputErrors naming `owner`, the parameter and what was expected) and fills in defaults. A relative File path is
/// read relative to `files_dir` when that is not empty (the folder of the config file that gave it).
Params resolve_params(const std::string& owner, const std::vector<ParamSpec>& specs,
                      const std::map<std::string, std::string>& raw, const std::string& files_dir = "");

/// What a factory may use besides its parameters: facts of the run that are not parameters of the
/// policy or placer (so they are not echoed twice in the run identity, which holds them already).
struct MakeContext {
    std::uint64_t seed = 0;            ///< the run's seed: a random placer draws from Rng(seed, "placement")
    const Cluster* cluster = nullptr;  ///< the run's cluster (null where a factory is called without a run)
    /// The trace's users and VCs (names behind JobInfo::user, vc; null: none recorded), for the sharing
    /// policies' parameters that name them (drf weights, vc-quota quotas).
    const Tenants* tenants = nullptr;
    /// The run's profiles and single-job rates (null where a factory is called without a run): a policy run
    /// outside dlsim (exec:) is sent them once when it starts.
    const ProfileSet* profiles = nullptr;
    const RateModel* rates = nullptr;
    /// Jobs in the run (every JobIdx is below it; 0 without a run): a policy outside dlsim (py:, exec:) checks
    /// the indices it is given against it.
    std::size_t num_jobs = 0;
};

/// A factory taking (Params) or (Params, MakeContext): most entries need only their parameters.
template <class T>
class Factory {
public:
    template <class F>
    requires(!std::is_same_v<F, Factory> && std::is_invocable_v<const F&, const Params&, const MakeContext&>)
        Factory(F f)
        : fn_(std::move(f)) {}  // implicit: entries are brace-initialised with a lambda
    template <class F>
    requires(!std::is_same_v<F, Factory> && !std::is_invocable_v<const F&, const Params&, const MakeContext&> &&
             std::is_invocable_v<const F&, const Params&>) Factory(F f)
        : fn_([f = std::move(f)](const Params& p, const MakeContext&) { return f(p); }) {}
    std::unique_ptr<T> operator()(const Params& p, const MakeContext& context = {}) const { return fn_(p, context); }

private:
    std::function<std::unique_ptr<T>(const Params&, const MakeContext&)> fn_;
};

template <class T>
struct RegistryEntry {
    std::string name;
    std::string description;
    std::vector<ParamSpec> params;
    Factory<T> make;
};

template <class T>
class Registry {
public:
    explicit Registry(std::string kind) : kind_(std::move(kind)) {}
    void add(RegistryEntry<T> e) { entries_.push_back(std::move(e)); }
    /// The entry, or an InputError naming the valid ones.
    const RegistryEntry<T>& find(const std::string& name) const;
    const std::vector<RegistryEntry<T>>& entries() const { return entries_; }

private:
    std::string kind_;
    std::vector<RegistryEntry<T>> entries_;
};

using PolicyRegistry = Registry<Policy>;
using PlacerRegistry = Registry<Placer>;

/// Explicit registration (static self-registration is silently dropped from static libraries).
void register_builtin_policies(PolicyRegistry& registry);
void register_builtin_placers(PlacerRegistry& registry);

/// Both registries with every built-in entry.
const PolicyRegistry& builtin_policies();
const PlacerRegistry& builtin_placers();

}  // namespace dlsim
