#include "models/restart_model.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>

namespace dlsim {

std::optional<RestartSpec::Kind> parse_restart_kind(std::string_view name) {
    if (name == "fixed") return RestartSpec::Kind::Fixed;
    if (name == "checkpoint") return RestartSpec::Kind::Checkpoint;
    if (name == "helios") return RestartSpec::Kind::Helios;
    if (name == "per_model") return RestartSpec::Kind::PerModel;
    return std::nullopt;
}

std::string_view restart_kind_name(RestartSpec::Kind kind) {
    switch (kind) {
        case RestartSpec::Kind::Fixed: return "fixed";
        case RestartSpec::Kind::Checkpoint: return "checkpoint";
        case RestartSpec::Kind::Helios: return "helios";
        case RestartSpec::Kind::PerModel: return "per_model";
    }
    return "?";
}

std::unique_ptr<RestartModel> make_restart_model(const RestartSpec& spec, const ProfileSet& profiles) {
    const Time fixed = to_time(spec.restart_cost);
    std::unique_ptr<RestartModel> model;
    std::vector<Time> first_per_model;  // per_model: a first start pays the model's cost too
    switch (spec.kind) {
        case RestartSpec::Kind::Fixed: model = std::make_unique<FixedRestart>(fixed); break;
        case RestartSpec::Kind::Helios: model = std::make_unique<HeliosRestart>(); break;
        case RestartSpec::Kind::Checkpoint: {
            // Rounded once per model to whole microseconds, so every restart of a model costs the same.
            std::vector<Time> per_model;
            per_model.reserve(profiles.models.size());
            for (const ModelProfile& m : profiles.models) {
                const double bytes = static_cast<double>(m.params) * spec.checkpoint_bytes_per_param;
                const double seconds = spec.restart_cost + 2 * bytes / (spec.storage_bandwidth * 1e9);
                // The same bound as restart_cost's: every job must still finish within engine time.
                if (!(seconds <= 1e12))
                    throw InputError(fmt::format("restart_model checkpoint: model '{}': a restart would take {:g} s "
                                                 "(more than 1e12 s): check params, checkpoint_bytes_per_param and "
                                                 "storage_bandwidth",
                                                 m.name, seconds));
                per_model.push_back(to_time(seconds));
            }
            model = std::make_unique<CheckpointRestart>(std::move(per_model), fixed);
            break;
        }
        case RestartSpec::Kind::PerModel: {
            for (const auto& [name, seconds] : spec.restart_costs) {
                bool known = false;
                for (const ModelProfile& m : profiles.models) known = known || m.name == name;
                if (!known)
                    throw InputError(fmt::format("restart_costs: model '{}' is not in the profiles (names are exact)",
                                                 name));
            }
            std::vector<Time> per_model;
            per_model.reserve(profiles.models.size());
            for (const ModelProfile& m : profiles.models) {
                const auto it = spec.restart_costs.find(m.name);
                per_model.push_back(it != spec.restart_costs.end() ? to_time(it->second) : fixed);
            }
            first_per_model = per_model;
            model = std::make_unique<CheckpointRestart>(std::move(per_model), fixed);
            break;
        }
    }
    if (spec.migration_cost) model = std::make_unique<WithMigrationCost>(std::move(model), to_time(*spec.migration_cost));
    if (spec.first_start)
        model = std::make_unique<WithFirstStartCost>(std::move(model), fixed, std::move(first_per_model));
    return model;
}

}  // namespace dlsim
