#include "policies/rounds/fifo_share.hpp"

#include <algorithm>

namespace dlsim {

void FifoShare::give(const ShareInput& input, std::uint32_t i, std::uint32_t t) {
    x_[i * input.types() + t] = 1.0;
    room_[t] -= input.jobs[i].gang;
    if (!perf_) kept_type_[input.jobs[i].key] = static_cast<std::int32_t>(t);
}

void FifoShare::hand_over_finished(const ShareInput& input) {
    for (const auto& [arrival, key] : allocated_) {
        const std::uint32_t t = static_cast<std::uint32_t>(kept_type_[key]);
        const std::int32_t pos = key < position_.size() ? position_[key] : kNone;
        if (pos != kNone) {  // still active: keeps its type
            x_[static_cast<std::size_t>(pos) * input.types() + t] = 1.0;
            room_[t] -= input.jobs[static_cast<std::size_t>(pos)].gang;
            continue;
        }
        if (head_ < queue_.size()) {  // finished: its type goes to the head if it fits (else the head waits)
            const std::uint32_t i = queue_[head_++];
            // (Gavel does not check the throughput here; a job that cannot run there would hold X forever.)
            if (input.jobs[i].gang <= room_[t] && input.throughput(i, t) > 0) give(input, i, t);
        }
        kept_type_[key] = kNone;
    }
}

std::span<const double> FifoShare::allocate(const ShareInput& input, std::span<const Time> submit) {
    const std::size_t types = input.types(), n = input.jobs.size();
    if (type_order_.empty())
        for (std::uint32_t t = 0; t < types; ++t) type_order_.push_back(t);
    x_.assign(n * types, 0.0);
    room_.assign(input.capacities.begin(), input.capacities.end());
    const std::size_t keys = n == 0 ? 0 : input.jobs[n - 1].key + 1;  // keys ascend
    if (position_.size() < keys) position_.resize(std::max(keys, 2 * position_.size()), kNone);
    if (kept_type_.size() < keys) kept_type_.resize(std::max(keys, 2 * kept_type_.size()), kNone);
    for (std::uint32_t i = 0; i < n; ++i) position_[input.jobs[i].key] = static_cast<std::int32_t>(i);

    // The queue: jobs without a type, in arrival order.
    queue_.clear();
    for (std::uint32_t i = 0; i < n; ++i)
        if (perf_ || kept_type_[input.jobs[i].key] == kNone) queue_.push_back(i);
    std::sort(queue_.begin(), queue_.end(), [&](std::uint32_t a, std::uint32_t b) {
        return submit[a] != submit[b] ? submit[a] < submit[b] : input.jobs[a].key < input.jobs[b].key;
    });
    head_ = 0;
    if (!perf_) {
        if (pick_ == FifoPick::GavelCode) {
            hand_over_finished(input);
        } else {
            for (const auto& [arrival, key] : allocated_) {
                const std::int32_t pos = key < position_.size() ? position_[key] : kNone;
                if (pos == kNone) {
                    kept_type_[key] = kNone;
                    continue;
                }
                const std::uint32_t t = static_cast<std::uint32_t>(kept_type_[key]);
                x_[static_cast<std::size_t>(pos) * types + t] = 1.0;
                room_[t] -= input.jobs[static_cast<std::size_t>(pos)].gang;
            }
        }
    }

    if (pick_ == FifoPick::Intended) {
        while (head_ < queue_.size()) {
            const std::uint32_t i = queue_[head_++];
            fits_.clear();
            for (const std::uint32_t t : type_order_)
                if (room_[t] >= input.jobs[i].gang) fits_.push_back(t);
            if (fits_.empty()) break;  // strict: nobody overtakes a job that fits nowhere
            std::uint32_t t = fits_[0];
            if (perf_) {
                for (const std::uint32_t u : fits_)
                    if (input.throughput(i, u) > input.throughput(i, t)) t = u;
            } else {
                t = fits_[rng_.below(fits_.size())];
            }
            if (input.throughput(i, t) > 0) give(input, i, t);  // else: no allocation now
        }
    } else {
        listed_.clear();
        for (const std::uint32_t t : type_order_)
            if (room_[t] > 0) listed_.push_back(t);
        while (head_ < queue_.size() && !listed_.empty()) {
            const std::uint32_t i = queue_[head_++];
            fits_.clear();
            for (std::uint32_t k = 0; k < listed_.size(); ++k)
                if (room_[listed_[k]] >= input.jobs[i].gang) fits_.push_back(k);
            if (fits_.empty()) break;
            std::size_t drawn = 0;
            std::uint32_t t = listed_.back();  // the agnostic mode's pick: the filter loop's last variable
            if (perf_) {
                double best = -1;
                for (std::size_t k = 0; k < fits_.size(); ++k)
                    if (input.throughput(i, listed_[fits_[k]]) > best) {
                        best = input.throughput(i, listed_[fits_[k]]);
                        drawn = k;
                    }
                t = listed_[fits_[drawn]];
            } else {
                drawn = rng_.below(fits_.size());
            }
            if (!(input.throughput(i, t) > 0)) continue;
            give(input, i, t);
            if (room_[t] == 0) listed_.erase(listed_.begin() + fits_[drawn]);
        }
    }

    if (!perf_) {
        allocated_.clear();
        for (std::uint32_t i = 0; i < n; ++i)
            if (kept_type_[input.jobs[i].key] != kNone) allocated_.emplace_back(submit[i], input.jobs[i].key);
        std::sort(allocated_.begin(), allocated_.end());
    }
    for (std::uint32_t i = 0; i < n; ++i) position_[input.jobs[i].key] = kNone;
    return x_;
}

}  // namespace dlsim
