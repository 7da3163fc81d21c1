#include "models/topology.hpp"

#include "models/base/input_error.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

namespace dlsim {

namespace {

struct EdgeProps {
    double bytes_per_s = kUnlimited;
};
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, boost::no_property, EdgeProps>;

/// The switch tree of a cluster, before capacities: parent per vertex (nodes first), switch latencies,
/// the height of each switch above the nodes, and the names `links` may use for a switch.
struct Shape {
    std::vector<VertexIdx> parent;
    std::vector<double> latency;
    std::vector<double> oversub;        // per switch: its uplinks' ratio (compact form: of the tier above)
    std::vector<double> uplink_fixed;   // per switch: > 0 = given capacity
    std::vector<std::uint32_t> height;  // per vertex: 0 for nodes
    std::map<std::string, VertexIdx> names;
    std::vector<std::string> tier_names;
};

Shape compact_shape(const Cluster& c) {
    Shape s;
    const auto n = static_cast<VertexIdx>(c.nodes.size());
    const std::vector<TierSpec> tiers = c.fabric.tiers.empty() ? std::vector<TierSpec>{{"switch", 1, 0}} : c.fabric.tiers;
    s.parent.assign(n, 0);
    s.latency.assign(n, 0);
    s.oversub.assign(n, 1);
    s.uplink_fixed.assign(n, -1);
    s.height.assign(n, 0);
    s.tier_names = {"nic"};
    auto add_switch = [&](std::size_t tier, std::size_t index) {
        const auto v = static_cast<VertexIdx>(s.parent.size());
        s.parent.push_back(v);
        s.latency.push_back(tiers[tier].latency_s);
        s.oversub.push_back(tier + 1 < tiers.size() ? tiers[tier + 1].oversub : 1);
        s.uplink_fixed.push_back(-1);
        s.height.push_back(static_cast<std::uint32_t>(tier + 1));
        s.names[fmt::format("{}:{}", tiers[tier].name, index)] = v;
        return v;
    };
    if (tiers.size() == 1) {
        const VertexIdx root = add_switch(0, 0);
        for (VertexIdx v = 0; v < n; ++v) s.parent[v] = root;
        return s;
    }
    // Leaf groups: racks, or runs of nodes_per_leaf_group consecutive nodes (rail-optimized SUs).
    std::vector<VertexIdx> leaf_of_group;
    std::map<std::uint32_t, std::vector<VertexIdx>> leaves_of_pod;
    for (VertexIdx v = 0; v < n; ++v) {
        const std::size_t group = c.fabric.nodes_per_leaf_group > 0
                                      ? v / static_cast<std::size_t>(c.fabric.nodes_per_leaf_group)
                                      : c.nodes[v].rack;
        while (leaf_of_group.size() <= group) {
            leaf_of_group.push_back(add_switch(0, leaf_of_group.size()));
            leaves_of_pod[c.nodes[v].pod].push_back(leaf_of_group.back());
        }
        s.parent[v] = leaf_of_group[group];
    }
    s.tier_names.push_back(tiers[0].name);
    if (tiers.size() == 2) {
        const VertexIdx root = add_switch(1, 0);
        for (VertexIdx leaf : leaf_of_group) s.parent[leaf] = root;
        return s;
    }
    s.tier_names.push_back(tiers[1].name);
    std::vector<VertexIdx> spines;
    for (const auto& [pod, leaves] : leaves_of_pod) {
        spines.push_back(add_switch(1, spines.size()));
        for (VertexIdx leaf : leaves) s.parent[leaf] = spines.back();
    }
    const VertexIdx root = add_switch(2, 0);
    for (VertexIdx spine : spines) s.parent[spine] = root;
    return s;
}

Shape explicit_shape(const Cluster& c) {
    Shape s;
    const auto n = static_cast<VertexIdx>(c.nodes.size());
    s.parent.assign(n, 0);
    s.latency.assign(n, 0);
    s.oversub.assign(n, 1);
    s.uplink_fixed.assign(n, -1);
    s.height.assign(n, 0);
    for (const SwitchSpec& sw : c.fabric.switches) {
        s.names[sw.name] = static_cast<VertexIdx>(s.parent.size());
        s.parent.push_back(0);
        s.latency.push_back(sw.latency_s);
        s.oversub.push_back(sw.oversub);
        s.uplink_fixed.push_back(sw.uplink_bytes_per_s);
        s.height.push_back(0);
    }
    for (std::size_t i = 0; i < c.fabric.switches.size(); ++i) {
        const SwitchSpec& sw = c.fabric.switches[i];
        const auto v = static_cast<VertexIdx>(n + i);
        s.parent[v] = sw.parent.empty() ? v : s.names.at(sw.parent);
    }
    for (VertexIdx v = 0; v < n; ++v) s.parent[v] = s.names.at(c.rack_switch[c.nodes[v].rack]);
    // Heights: a switch sits one above its highest child.
    std::uint32_t top = 0;
    for (VertexIdx v = 0; v < n; ++v) {
        std::uint32_t h = 0;
        for (VertexIdx u = v; s.parent[u] != u; u = s.parent[u]) {
            ++h;
            s.height[s.parent[u]] = std::max(s.height[s.parent[u]], h);
            top = std::max(top, h);
        }
    }
    s.tier_names = {"nic"};
    for (std::uint32_t h = 1; h < top; ++h) s.tier_names.push_back(fmt::format("level{}", h));
    return s;
}

bool explicit_form(const Cluster& c) { return !c.fabric.switches.empty(); }

/// The tree as a directed Boost graph: two edges per link (down from the parent, up to it), children in id order.
Graph build_graph(const std::vector<VertexIdx>& parent, const std::vector<Link>& links) {
    const auto nv = static_cast<VertexIdx>(parent.size());
    Graph g(nv);
    for (VertexIdx v = 0; v < nv; ++v)
        if (parent[v] != v) {
            boost::add_edge(parent[v], v, EdgeProps{links[Topology::down(v)].bytes_per_s}, g);
            boost::add_edge(v, parent[v], EdgeProps{links[Topology::up(v)].bytes_per_s}, g);
        }
    return g;
}

}  // namespace

void validate_fabric(const Cluster& c, const std::string& file) {
    if (explicit_form(c)) {
        std::map<std::string, std::size_t> index;
        for (std::size_t i = 0; i < c.fabric.switches.size(); ++i)
            if (!index.emplace(c.fabric.switches[i].name, i).second)
                throw InputError(fmt::format("{}: switches[{}].name: \"{}\" names two switches", file, i,
                                             c.fabric.switches[i].name));
        std::size_t roots = 0;
        for (std::size_t i = 0; i < c.fabric.switches.size(); ++i) {
            const SwitchSpec& sw = c.fabric.switches[i];
            if (sw.parent.empty()) {
                ++roots;
                continue;
            }
            if (!index.count(sw.parent))
                throw InputError(fmt::format("{}: switches[{}].parent: expected the name of a switch, got \"{}\"",
                                             file, i, sw.parent));
            // Walk up: a cycle never reaches a root.
            std::size_t u = i, steps = 0;
            while (!c.fabric.switches[u].parent.empty()) {
                u = index.at(c.fabric.switches[u].parent);
                if (++steps > c.fabric.switches.size())
                    throw InputError(fmt::format("{}: switches[{}].parent: the switches' parents form a cycle", file, i));
            }
        }
        if (roots != 1)
            throw InputError(fmt::format("{}: switches: expected exactly one root switch (without a parent), got {}",
                                         file, roots));
        for (std::uint32_t r = 0; r < c.num_racks; ++r)
            if (!index.count(c.rack_switch[r]))
                throw InputError(fmt::format("{}: racks: rack {} expected a \"switch\" naming one of switches, got \"{}\"",
                                             file, r, c.rack_switch[r]));
    } else {
        for (std::uint32_t r = 0; r < c.num_racks; ++r)
            if (!c.rack_switch[r].empty())
                throw InputError(fmt::format(
                    "{}: racks: rack {} names a switch, but the spec has no \"switches\" (the explicit form)", file, r));
    }
    const Shape s = explicit_form(c) ? explicit_shape(c) : compact_shape(c);
    for (std::size_t i = 0; i < c.fabric.links.size(); ++i) {
        auto it = s.names.find(c.fabric.links[i].name);
        if (it == s.names.end())
            throw InputError(fmt::format("{}: links[{}].switch: expected a switch as \"<tier>:<index>\" (e.g. \"{}\") "
                                         "or an explicit switch's name, got \"{}\"",
                                         file, i, s.names.begin()->first, c.fabric.links[i].name));
        if (s.parent[it->second] == it->second)
            throw InputError(fmt::format("{}: links[{}].switch: \"{}\" is the root: it has no uplink", file, i,
                                         c.fabric.links[i].name));
    }
}

Topology::Topology(const Cluster& c) : cluster_(&c) {
    Shape s = explicit_form(c) ? explicit_shape(c) : compact_shape(c);
    const auto nv = static_cast<VertexIdx>(s.parent.size());
    const auto nn = static_cast<VertexIdx>(c.nodes.size());
    parent_ = s.parent;
    tier_names_ = s.tier_names;
    switch_latency_ = s.latency;
    links_.assign(2 * static_cast<std::size_t>(nv), Link{});

    // Capacities bottom up: nodes' NIC bundles, then each switch from its children (by height).
    std::vector<double> below(nv, 0);
    for (VertexIdx v = 0; v < nn; ++v) {
        const NicSpec& nic = c.node_types[c.nodes[v].node_type].nic;
        const double cap = nic.count * nic.bytes_per_s;
        links_[up(v)] = links_[down(v)] = Link{cap, 0, 0};
        below[parent_[v]] += cap;
    }
    std::vector<VertexIdx> switches(nv - nn);
    for (VertexIdx i = 0; i < switches.size(); ++i) switches[i] = nn + i;
    std::stable_sort(switches.begin(), switches.end(), [&](VertexIdx a, VertexIdx b) { return s.height[a] < s.height[b]; });
    for (VertexIdx v : switches) {
        if (parent_[v] == v) continue;
        const double cap = s.uplink_fixed[v] > 0 ? s.uplink_fixed[v] : below[v] / s.oversub[v];
        const auto tier = static_cast<std::uint8_t>(s.height[v]);
        links_[up(v)] = links_[down(v)] = Link{cap, 0, tier};
        below[parent_[v]] += cap;
    }
    for (const LinkOverride& o : c.fabric.links) {
        const VertexIdx v = s.names.at(o.name);
        for (LinkIdx l : {up(v), down(v)}) {
            if (o.bytes_per_s != kUnlimited) links_[l].bytes_per_s = o.bytes_per_s;
            if (o.latency_s >= 0) links_[l].latency_s = o.latency_s;
        }
    }
    // Capacities set by `links` change what the tiers above see only through their own oversub: an
    // override is the bundle's capacity as built, the tiers above keep theirs.

    ideal_ = true;
    for (const Link& l : links_)
        if (l.bytes_per_s != kUnlimited || l.latency_s != 0) ideal_ = false;
    for (VertexIdx v = nn; v < nv; ++v)
        if (switch_latency_[v] != 0) ideal_ = false;
    for (const NodeType& t : c.node_types)
        if (t.intra.kind != IntraKind::Ideal || t.nic.latency_s != 0) ideal_ = false;

    // Tree order and depths with Boost.Graph: a depth-first visit from the root, children in id order.
    const Graph g = build_graph(parent_, links_);
    VertexIdx root = nv - 1;
    while (parent_[root] != root) root = parent_[root];
    depth_.assign(nv, 0);
    order_.assign(nv, 0);
    struct Visitor : boost::default_dfs_visitor {
        std::vector<std::uint32_t>* order;
        std::vector<std::uint32_t>* depth;
        std::uint32_t* next;
        void discover_vertex(Graph::vertex_descriptor v, const Graph&) const { (*order)[v] = (*next)++; }
        void tree_edge(Graph::edge_descriptor e, const Graph& g) const {
            (*depth)[boost::target(e, g)] = (*depth)[boost::source(e, g)] + 1;
        }
    };
    std::uint32_t next = 0;
    Visitor vis;
    vis.order = &order_;
    vis.depth = &depth_;
    vis.next = &next;
    std::vector<boost::default_color_type> color(nv, boost::white_color);
    boost::depth_first_visit(g, root, vis,
                             boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, g)));
}

double Topology::path_latency(NodeIdx a, NodeIdx b) const {
    const NicSpec& na = cluster_->node_types[cluster_->nodes[a].node_type].nic;
    const NicSpec& nb = cluster_->node_types[cluster_->nodes[b].node_type].nic;
    double lat = std::max(na.latency_s, nb.latency_s);
    // Climb to the common ancestor: the links on the way, and every switch reached (the ancestor once).
    VertexIdx u = a, v = b;
    while (u != v) {
        if (depth_[u] >= depth_[v]) {
            lat += links_[up(u)].latency_s;
            u = parent_[u];
            lat += switch_latency_[u];
        } else {
            lat += links_[down(v)].latency_s;
            v = parent_[v];
            if (v != u) lat += switch_latency_[v];
        }
    }
    return lat;
}

double Topology::path_bottleneck(NodeIdx a, NodeIdx b) const {
    double cap = kUnlimited;
    VertexIdx u = a, v = b;
    while (u != v) {
        if (depth_[u] >= depth_[v]) {
            cap = std::min(cap, links_[up(u)].bytes_per_s);
            u = parent_[u];
        } else {
            cap = std::min(cap, links_[down(v)].bytes_per_s);
            v = parent_[v];
        }
    }
    return cap;
}

double Topology::widest_path(NodeIdx a, NodeIdx b) const {
    const Graph g = build_graph(parent_, links_);
    std::vector<double> width(parent_.size(), 0);
    // Widest path: maximise the minimum capacity (compare = greater, combine = min, inf = 0, zero = +inf).
    boost::dijkstra_shortest_paths(
        g, static_cast<Graph::vertex_descriptor>(a),
        boost::weight_map(boost::get(&EdgeProps::bytes_per_s, g))
            .distance_map(boost::make_iterator_property_map(width.begin(), boost::get(boost::vertex_index, g)))
            .distance_compare(std::greater<double>())
            .distance_combine([](double d, double w) { return std::min(d, w); })
            .distance_inf(0.0)
            .distance_zero(kUnlimited));
    return width[b];
}

}  // namespace dlsim
