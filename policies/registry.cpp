#include "policies/registry.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace dlsim {

const std::string& Params::get(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) throw InternalError("undeclared parameter '" + name + "' read");
    if (it->second.first == ParamType::File) return file_path(name);
    return it->second.second;
}

const std::string& Params::file_path(const std::string& name) const {
    auto it = files_.find(name);
    if (it == files_.end()) throw InternalError("parameter '" + name + "' is not a file");
    return it->second;
}

long long Params::get_int(const std::string& name) const { return std::stoll(get(name)); }
double Params::get_double(const std::string& name) const { return std::stod(get(name)); }
bool Params::get_bool(const std::string& name) const { return get(name) == "true"; }
std::vector<double> Params::get_numbers(const std::string& name) const { return split_numbers(get(name)); }

namespace {

/// Calls `field(text)` for each comma-separated field, in order ("" is one empty field); stops early
/// when it returns false.
template <class Field>
void for_each_field(std::string_view text, Field field) {
    for (std::size_t start = 0; start <= text.size();) {
        const std::size_t cut = std::min(text.find(',', start), text.size());
        if (!field(text.substr(start, cut - start))) return;
        start = cut + 1;
    }
}

}  // namespace

std::vector<double> split_numbers(const std::string& text) {
    std::vector<double> out;
    for_each_field(text, [&](std::string_view f) {
        out.push_back(std::stod(std::string(f)));
        return true;
    });
    return out;
}

namespace {

/// A range bound as people write it: 1e9 and 1e-6 rather than 1000000000 and 1e-06.
std::string bound_text(double x) {
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    const double a = std::fabs(x);
    if (a == 0 || (a >= 1e-3 && a < 1e5)) return fmt::format("{}", x);
    std::string t = fmt::format("{:e}", x);  // 1.000000e+09
    const std::size_t e = t.find('e');
    std::string mantissa = t.substr(0, e);
    if (mantissa.find('.') != std::string::npos) {
        while (mantissa.back() == '0') mantissa.pop_back();
        if (mantissa.back() == '.') mantissa.pop_back();
    }
    const int exponent = std::stoi(t.substr(e + 1));
    return fmt::format("{}e{}", mantissa, exponent);
}

}  // namespace

bool contains(const ParamRange& r, double x) {
    return (r.lo_open ? x > r.lo : x >= r.lo) && (r.hi_open ? x < r.hi : x <= r.hi);
}

std::string to_string(const ParamRange& r) {
    if (std::isinf(r.hi)) return (r.lo_open ? "> " : ">= ") + bound_text(r.lo);
    return fmt::format("{}{}, {}{}", r.lo_open ? "(" : "[", bound_text(r.lo), bound_text(r.hi), r.hi_open ? ")" : "]");
}

namespace {

std::string check_value(const std::string& owner, const ParamSpec& spec, const std::string& v) {
    auto bad = [&](std::string_view expected) -> std::string {
        throw InputError(fmt::format("{}: parameter {}: expected {}, got '{}'", owner, spec.name, expected, v));
    };
    switch (spec.type) {
        case ParamType::Int: {
            long long x = 0;
            auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
            if (v.empty() || ec != std::errc() || p != v.data() + v.size()) return bad("an integer");
            return std::to_string(x);
        }
        case ParamType::Double: {
            double x = 0;
            auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
            if (v.empty() || ec != std::errc() || p != v.data() + v.size() || !std::isfinite(x)) return bad("a number");
            return fmt::format("{}", x);
        }
        case ParamType::Bool:
            if (v == "true" || v == "1") return "true";
            if (v == "false" || v == "0") return "false";
            return bad("true or false");
        case ParamType::Choice:
            for (const auto& c : spec.choices)
                if (c == v) return v;
            return bad(fmt::format("one of {}", fmt::join(spec.choices, ", ")));
        case ParamType::Numbers: {
            std::string canonical;
            bool ok = true;
            for_each_field(v, [&](std::string_view f) {
                double x = 0;
                const auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), x);
                ok = !f.empty() && ec == std::errc() && p == f.data() + f.size() && std::isfinite(x);
                if (ok) canonical += (canonical.empty() ? "" : ",") + fmt::format("{}", x);
                return ok;
            });
            if (!ok) return bad("a comma-separated list of numbers");
            return canonical;
        }
        case ParamType::Text:
        case ParamType::File:
            return v;
    }
    return v;
}

/// A File parameter's file must be readable before the run, whose identity hashes it.
void check_file(const std::string& owner, const std::string& name, const std::string& path) {
    if (path.empty()) return;
    std::error_code ec;
    const bool regular = std::filesystem::is_regular_file(path, ec);
    if (!regular || !std::ifstream(path, std::ios::binary))
        throw InputError(fmt::format("{}: parameter {}: cannot read file '{}'", owner, name, path));
}

}  // namespace

Params resolve_params(const std::string& owner, const std::vector<ParamSpec>& specs,
                      const std::map<std::string, std::string>& raw, const std::string& files_dir) {
    Params p;
    for (const auto& [name, value] : raw) {
        const ParamSpec* spec = nullptr;
        for (const auto& s : specs)
            if (s.name == name) spec = &s;
        if (spec == nullptr) {
            std::vector<std::string> names;
            for (const auto& s : specs) names.push_back(s.name);
            throw InputError(
                fmt::format("{}: unknown parameter '{}' (valid: {})", owner, name,
                            names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
        }
        std::string canonical = check_value(owner, *spec, value);
        if (spec->range) {
            const double x = std::stod(canonical);
            if (!contains(*spec->range, x)) {
                const std::string range = to_string(*spec->range);
                throw InputError(fmt::format("{}: parameter {}: expected {}{}{}, got {}", owner, name,
                                             spec->range->noun, range[0] == '>' ? " " : " in ", range, canonical));
            }
        }
        p.values_[name] = {spec->type, std::move(canonical)};
    }
    for (const auto& s : specs)
        if (!p.values_.count(s.name)) p.values_[s.name] = {s.type, s.default_value};
    for (const auto& [name, typed] : p.values_) {
        if (typed.first != ParamType::File) continue;
        std::string path = typed.second;
        if (!path.empty() && !files_dir.empty() && std::filesystem::path(path).is_relative())
            path = files_dir + "/" + path;
        check_file(owner, name, path);
        p.files_[name] = std::move(path);
    }
    return p;
}

template <class T>
const RegistryEntry<T>& Registry<T>::find(const std::string& name) const {
    for (const auto& e : entries_)
        if (e.name == name) return e;
    std::vector<std::string> names;
    for (const auto& e : entries_) names.push_back(e.name);
    throw InputError(fmt::format("unknown {} '{}' (valid: {})", kind_, name, fmt::join(names, ", ")));
}

template class Registry<Policy>;
template class Registry<Placer>;

const PolicyRegistry& builtin_policies() {
    static const PolicyRegistry registry = [] {
        PolicyRegistry r("policy");
        register_builtin_policies(r);
        return r;
    }();
    return registry;
}

const PlacerRegistry& builtin_placers() {
    static const PlacerRegistry registry = [] {
        PlacerRegistry r("placement");
        register_builtin_placers(r);
        return r;
    }();
    return registry;
}

}  // namespace dlsim
