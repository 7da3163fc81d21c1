// The placers register here: each maps a start onto concrete GPUs of the chosen type.
#include "policies/placement/register.hpp"

#include "policies/placement/consolidated_placer.hpp"
#include "policies/placement/random_placer.hpp"
#include "policies/placement/spread_placer.hpp"
#include "policies/placement/strict_locality_placer.hpp"
#include "policies/placement/topology_aware_placer.hpp"

namespace dlsim {

void register_placers(PlacerRegistry& r) {
    r.add({placer_choice_name(PlacerChoice::Consolidated),
           "fewest nodes (best fit), then fewest racks; ties to the lowest node id",
           {},
           [](const Params&) { return std::make_unique<ConsolidatedPlacer>(); }});
    r.add({placer_choice_name(PlacerChoice::Spread),
           "as many nodes and racks as possible: one GPU per node, round-robin over racks, ids in order; then "
           "again",
           {},
           [](const Params&) { return std::make_unique<SpreadPlacer>(); }});
    r.add({"random",
           "a uniformly random set of free GPUs of the type, from the run seed's 'placement' stream",
           {},
           [](const Params&, const MakeContext& context) { return std::make_unique<RandomPlacer>(context.seed); }});
    r.add({placer_choice_name(PlacerChoice::StrictLocality),
           "Philly YARN-CS: one node (best fit) if the job fits one, else ceil(n/node size) entirely free nodes in "
           "one rack (best-fit rack); otherwise the job waits",
           {},
           [](const Params&) { return std::make_unique<StrictLocalityPlacer>(); }});
    r.add({placer_choice_name(PlacerChoice::TopologyAware),
           "of consolidated and each rack's and pod's fewest-nodes fill, the placement where the job's predicted "
           "rate (network model, current link loads) is highest; ties to consolidated",
           {},
           [](const Params&) { return std::make_unique<TopologyAwarePlacer>(); }});
}

}  // namespace dlsim
