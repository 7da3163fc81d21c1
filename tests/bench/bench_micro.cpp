// Micro-benchmarks of the engine's hot structures (Google Benchmark).
#include "models/base/random.hpp"
#include "models/cluster.hpp"
#include "sim/cluster_state.hpp"
#include "sim/event_queue.hpp"

#include <benchmark/benchmark.h>

using namespace dlsim;

// Steady state: pop one event, push one later event, at a given number of pending events.
static void BM_EventQueuePopPush(benchmark::State& state) {
    EventQueue q;
    Rng rng(1);
    const auto pending = static_cast<std::size_t>(state.range(0));
    for (std::size_t i = 0; i < pending; ++i) q.push(static_cast<Time>(rng.below(1'000'000)), Phase::Completion, 0, 0);
    for (auto _ : state) {
        const Event e = q.pop();
        q.push(e.time + 1 + static_cast<Time>(rng.below(1'000'000)), Phase::Completion, e.job, e.generation);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueuePopPush)->Arg(1'000)->Arg(100'000);

// Best-fit lookup plus allocate/release of a 1-GPU job on a 1,024-GPU cluster kept half full.
static void BM_BestFitAllocateRelease(benchmark::State& state) {
    const Cluster c = parse_cluster(R"({"gpu_types": {"g": {}}, "node_types": {"n": {"gpu_type": "g", "gpus": 8}},
        "racks": [{"node_type": "n", "nodes": 128}]})",
                                    "bench.json");
    ClusterState s(c);
    GpuIdx heads[64];
    for (JobIdx j = 0; j < 64; ++j) {
        heads[j] = ClusterState::kNoGpu;
        s.allocate(j * 2, 8, j, heads[j]);
    }
    for (auto _ : state) {
        NodeIdx node = kNoNode;
        for (int k = 1; k <= 8 && node == kNoNode; ++k) node = s.node_with_free(0, k);
        GpuIdx head = ClusterState::kNoGpu;
        s.allocate(node, 1, 1000, head);
        benchmark::DoNotOptimize(s.release(head, 1000));
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BestFitAllocateRelease);

BENCHMARK_MAIN();
