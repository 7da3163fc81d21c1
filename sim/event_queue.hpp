#pragma once
// The event queue: a binary heap of small POD events in total order (time, phase, seq).
// `phase` fixes the meaning of one instant: completions free GPUs before arrivals at the same time
// want them; `seq` is a global insertion counter, so ties never depend on heap layout.
#include "models/base/sim_time.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dlsim {

/// Rerate: a job's progress crossed a threshold its performance model asked for (PerformanceModel::rerate_when).
enum class Phase : std::uint8_t { Completion = 0, Rerate = 1, Failure = 2, Arrival = 3, Timer = 4 };

struct Event {
    Time time;
    std::uint64_t seq;
    std::uint32_t job;         ///< job index, or unused for timers
    std::uint32_t generation;  ///< stale (lazily cancelled) when it differs from the job's/timer's current one
    Phase phase;
};

class EventQueue {
public:
    void reserve(std::size_t n) { heap_.reserve(n); }
    bool empty() const { return heap_.empty(); }
    std::size_t size() const { return heap_.size(); }
    const Event& top() const { return heap_.front(); }

    void push(Time time, Phase phase, std::uint32_t job, std::uint32_t generation) {
        heap_.push_back(Event{time, next_seq_++, job, generation, phase});
        std::push_heap(heap_.begin(), heap_.end(), later);
    }
    Event pop() {
        std::pop_heap(heap_.begin(), heap_.end(), later);
        Event e = heap_.back();
        heap_.pop_back();
        return e;
    }

private:
    /// Heap comparator: true when a comes after b (std heaps keep the "largest" on top).
    static bool later(const Event& a, const Event& b) {
        if (a.time != b.time) return a.time > b.time;
        if (a.phase != b.phase) return a.phase > b.phase;
        return a.seq > b.seq;
    }
    std::vector<Event> heap_;
    std::uint64_t next_seq_ = 0;
};

}  // namespace dlsim
