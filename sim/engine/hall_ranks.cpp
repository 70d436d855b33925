// A campus's halls over ranks (hall_ranks.hpp, docs/scale-out.md): which rank steps which hall's air, and what
// goes between them: once, every hall's grid and its racks' levels; at every step, what each hall's air gives
// the site; at a frame with air, every hall's field to rank 0. Values travel as their bytes, so every rank
// holds exactly what the hall's own rank computed.
#include "engine/engine_impl.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <type_traits>

namespace ct::sim {

namespace {

/// A hall's weight in a rank's load: an empty grid still costs a little.
std::uint64_t loadOf(std::uint64_t weight) { return std::max<std::uint64_t>(weight, 1); }

/// The halls' indices, largest weight first (the lower index among equals).
std::vector<std::size_t> largestFirst(const std::vector<std::uint64_t>& weights) {
    std::vector<std::size_t> order(weights.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return weights[a] > weights[b]; });
    return order;
}

/// Each rank's load when each hall's weight is shared evenly by its members (halls with none yet left out).
std::vector<double> loads(const std::vector<std::uint64_t>& weights, const std::vector<std::vector<int>>& members, int ranks) {
    std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
    for (std::size_t h = 0; h < weights.size(); ++h)
        for (int r : members[h])
            load[static_cast<std::size_t>(r)] += static_cast<double>(loadOf(weights[h])) / static_cast<double>(members[h].size());
    return load;
}

double busiest(const std::vector<std::uint64_t>& weights, const std::vector<std::vector<int>>& members, int ranks) {
    const std::vector<double> load = loads(weights, members, ranks);
    return load.empty() ? 0.0 : *std::max_element(load.begin(), load.end());
}

/// No more ranks than halls, the halls not dividing among them (H = q·N + r, 0 < r): the q·N largest whole by
/// assignHalls, the r smallest each split over a group of N/r consecutive ranks (all N when r does not divide
/// N), the largest first to the group whose busiest rank has least. Empty when a hall to split cannot take that
/// many slabs.
std::vector<std::vector<int>> wholeAndShared(const std::vector<std::uint64_t>& weights, const std::vector<int>& max_slabs, int ranks) {
    const std::size_t halls = weights.size(), n = static_cast<std::size_t>(ranks);
    const std::size_t r = halls % n;
    const std::vector<std::size_t> order = largestFirst(weights);
    const std::size_t whole = halls - r;
    std::vector<std::uint64_t> whole_w;
    for (std::size_t k = 0; k < whole; ++k) whole_w.push_back(weights[order[k]]);
    const std::vector<int> owner = assignHalls(whole_w, ranks);
    std::vector<std::vector<int>> members(halls);
    for (std::size_t k = 0; k < whole; ++k) members[order[k]] = {owner[k]};
    std::vector<double> load = loads(weights, members, ranks);
    const std::size_t group = n % r == 0 ? n / r : n, groups = n / group;
    for (std::size_t k = whole; k < halls; ++k) {
        const std::size_t h = order[k];
        if (max_slabs[h] < static_cast<int>(group)) return {};
        std::size_t best = 0;
        double best_load = 0;
        for (std::size_t g = 0; g < groups; ++g) {
            const double most = *std::max_element(load.begin() + static_cast<std::ptrdiff_t>(g * group),
                                                  load.begin() + static_cast<std::ptrdiff_t>((g + 1) * group));
            if (g == 0 || most < best_load) {
                best = g;
                best_load = most;
            }
        }
        for (std::size_t q = 0; q < group; ++q) {
            members[h].push_back(static_cast<int>(best * group + q));
            load[best * group + q] += static_cast<double>(loadOf(weights[h])) / static_cast<double>(group);
        }
    }
    return members;
}

}  // namespace

std::vector<int> assignHalls(const std::vector<std::uint64_t>& weights, int ranks) {
    std::vector<int> owner(weights.size(), 0);
    if (ranks <= 1) return owner;
    std::vector<std::uint64_t> load(static_cast<std::size_t>(ranks), 0);
    for (std::size_t h : largestFirst(weights)) {
        const auto least = std::min_element(load.begin(), load.end());  // the first of equals: the lower rank
        owner[h] = static_cast<int>(least - load.begin());
        *least += loadOf(weights[h]);
    }
    return owner;
}

std::vector<std::vector<int>> assignHallRanks(const std::vector<std::uint64_t>& weights, const std::vector<int>& max_slabs, int ranks) {
    const std::size_t halls = weights.size();
    std::vector<std::vector<int>> members(halls);
    const bool splits = std::any_of(max_slabs.begin(), max_slabs.end(), [](int m) { return m > 1; });
    if (ranks <= static_cast<int>(halls) || !splits) {
        const std::vector<int> owner = assignHalls(weights, ranks);
        for (std::size_t h = 0; h < halls; ++h) members[h] = {owner[h]};
        if (!splits || ranks <= 1 || halls % static_cast<std::size_t>(ranks) == 0) return members;
        // Halls that do not divide among the ranks (three on two): the odd ones shared, if that takes the busiest
        // rank's load down by a tenth or more (a split hall's slabs exchange rows every lattice step and sub-step).
        auto shared = wholeAndShared(weights, max_slabs, ranks);
        if (!shared.empty() && busiest(weights, shared, ranks) <= 0.9 * busiest(weights, members, ranks)) return shared;
        return members;
    }
    std::vector<int> count(halls, 1);
    for (int spare = ranks - static_cast<int>(halls); spare > 0; --spare) {
        std::size_t best = halls;
        for (std::size_t h = 0; h < halls; ++h) {
            if (count[h] >= std::max(1, max_slabs[h])) continue;
            // weight / count, compared without division: w_h · c_best > w_best · c_h
            if (best == halls || static_cast<double>(weights[h]) * count[best] > static_cast<double>(weights[best]) * count[h]) best = h;
        }
        if (best == halls) break;
        ++count[best];
    }
    int next = 0;
    for (std::size_t h : largestFirst(weights))
        for (int k = 0; k < count[h]; ++k) members[h].push_back(next++);
    return members;
}

bool anyRank(const HallRanks* ranks, bool mine) {
    if (!ranks || ranks->size() <= 1) return mine;
    for (const auto& s : ranks->allGather(mine ? "1" : "0"))
        if (s == "1") return true;
    return false;
}

namespace {

/// Values into bytes, in order.
class Packer {
public:
    template <class T>
    void put(T v) {
        static_assert(std::is_trivially_copyable_v<T>);
        bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    void text(const std::string& s) {
        put<std::uint64_t>(s.size());
        bytes_ += s;
    }
    void floats(const std::vector<float>& v) {
        put<std::uint64_t>(v.size());
        bytes_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
    }
    std::string take() { return std::move(bytes_); }

private:
    std::string bytes_;
};

/// Values out of bytes, in the order Packer put them; a message that ends early is a SimError.
class Unpacker {
public:
    Unpacker(const std::string& bytes, int from) : bytes_(bytes), from_(from) {}
    template <class T>
    T get() {
        static_assert(std::is_trivially_copyable_v<T>);
        T v;
        std::memcpy(&v, take(sizeof v), sizeof v);
        return v;
    }
    std::string text() {
        const auto n = static_cast<std::size_t>(get<std::uint64_t>());
        return std::string(take(n), n);
    }
    std::vector<float> floats() {
        const auto n = static_cast<std::size_t>(get<std::uint64_t>());
        std::vector<float> v(n);
        if (n > 0) std::memcpy(v.data(), take(n * sizeof(float)), n * sizeof(float));
        return v;
    }
    bool done() const { return at_ == bytes_.size(); }

private:
    const char* take(std::size_t n) {
        if (n > bytes_.size() - at_)
            throw SimError("rank " + std::to_string(from_) + " sent a hall's air short (" + std::to_string(bytes_.size()) + " bytes)");
        const char* p = bytes_.data() + at_;
        at_ += n;
        return p;
    }
    const std::string& bytes_;
    std::size_t at_ = 0;
    int from_;
};

/// One hall's record in a rank's message: its index, then its bytes (so a rank that holds the hall itself,
/// a slab of its lattice, passes over it).
void putHall(Packer& out, std::size_t h, Packer& record) {
    out.put<std::int32_t>(static_cast<std::int32_t>(h));
    out.text(record.take());
}

/// Each rank's message but `skip`'s (this rank's own, which it holds already; −1: none), unpacked hall by
/// hall: `read(h, in)` for every hall it names that `held(h)` does not say this rank holds already.
template <class Held, class Read>
void eachHall(const std::vector<std::string>& messages, std::size_t halls, int skip, Held&& held, Read&& read) {
    for (std::size_t r = 0; r < messages.size(); ++r) {
        if (static_cast<int>(r) == skip) continue;
        Unpacker in(messages[r], static_cast<int>(r));
        while (!in.done()) {
            const auto h = static_cast<std::size_t>(in.get<std::int32_t>());
            if (h >= halls)
                throw SimError("rank " + std::to_string(r) + " sent hall " + std::to_string(h) + " of " + std::to_string(halls));
            const std::string record = in.text();
            if (held(h)) continue;
            Unpacker rec(record, static_cast<int>(r));
            read(h, rec);
            if (!rec.done()) throw SimError("rank " + std::to_string(r) + " sent hall " + std::to_string(h) + "'s air long");
        }
    }
}

}  // namespace

std::vector<std::string> Engine::Impl::allGather(const std::string& mine) {
    auto all = opt.hall_ranks->allGather(mine);
    for (std::size_t r = 0; r < all.size(); ++r)
        if (static_cast<int>(r) != my_rank) stats.exchanged_bytes += all[r].size();
    return all;
}

void Engine::Impl::assignRanks() {
    my_rank = spread() ? opt.hall_ranks->rank() : 0;
    std::vector<std::uint64_t> weights;
    std::vector<int> max_slabs;
    for (const auto& hall : scenario.halls) {
        weights.push_back(airSolverBytes(air_solver, AirGridSpec{hall.width_m, hall.depth_m, hall.height_m, opt.cell_m, opt.kappa_m2s}));
        // The lattice splits along y into slabs of at least two rows (one is all edge: nothing left to overlap),
        // on the CPU or one GPU a rank (there the heat is not split: every rank's device steps the whole hall's).
        const int rows = std::max(1, static_cast<int>(std::lround(hall.depth_m / opt.cell_m)));
        max_slabs.push_back(air_solver == "lbm" ? rows / 2 : 1);
    }
    hall_members = assignHallRanks(weights, max_slabs, spread() ? opt.hall_ranks->size() : 1);
    hall_rank.clear();
    for (const auto& m : hall_members) hall_rank.push_back(m.front());
    if (!spread()) return;
    for (std::size_t h = 0; h < halls.size(); ++h)  // a collective, hall by hall: every rank asks for every split hall
        if (hall_members[h].size() > 1) halls[h].slabs = opt.hall_ranks->slabs(hall_members[h]);
}

namespace {

/// Hall h's grid and its racks' levels (and each node's share of them), as built.
void writeLayout(Packer& out, const Site& site, std::size_t h) {
    const HallRt& hr = site.halls[h];
    out.put(hr.cells);
    out.put(hr.solids);
    out.put(hr.cell_m);
    out.put(hr.approximate);
    out.text(hr.summary);
    out.put<std::uint64_t>(hr.unsealed.size());
    for (const auto& id : hr.unsealed) out.text(id);
    out.put<std::uint64_t>(hr.sensor_cells.size());
    for (int ri : hr.racks) {
        const RackRt& rr = site.racks[static_cast<std::size_t>(ri)];
        out.put<std::uint64_t>(rr.levels.size());
        for (const auto& lv : rr.levels) out.put(lv.z_m);
        for (int ni : rr.nodes) {
            const auto& lv = site.nodes[static_cast<std::size_t>(ni)].levels;
            out.put<std::uint64_t>(lv.size());
            for (const auto& [level, share] : lv) {
                out.put<std::int32_t>(level);
                out.put(share);
            }
        }
    }
}

void readLayout(Unpacker& in, Site& site, std::size_t h) {
    HallRt& hr = site.halls[h];
    hr.cells = in.get<std::uint64_t>();
    hr.solids = in.get<std::uint64_t>();
    hr.cell_m = in.get<double>();
    hr.approximate = in.get<bool>();
    hr.summary = in.text();
    hr.unsealed.resize(static_cast<std::size_t>(in.get<std::uint64_t>()));
    for (auto& id : hr.unsealed) id = in.text();
    hr.sensor_c.assign(static_cast<std::size_t>(in.get<std::uint64_t>()), std::nan(""));
    for (int ri : hr.racks) {
        RackRt& rr = site.racks[static_cast<std::size_t>(ri)];
        rr.levels.assign(static_cast<std::size_t>(in.get<std::uint64_t>()), RackLevel{});
        for (auto& lv : rr.levels) lv.z_m = in.get<double>();
        for (int ni : rr.nodes) {
            auto& lv = site.nodes[static_cast<std::size_t>(ni)].levels;
            lv.resize(static_cast<std::size_t>(in.get<std::uint64_t>()));
            for (auto& [level, share] : lv) {
                level = in.get<std::int32_t>();
                share = in.get<double>();
            }
        }
    }
}

}  // namespace

void Engine::Impl::shareLayout() {
    Packer all;
    for (std::size_t h : ownHalls()) {
        if (!leads(h)) continue;  // the hall's first rank speaks for its slabs, which hold the same hall
        Packer out;
        out.text(halls[h].error);
        if (halls[h].error.empty()) writeLayout(out, *this, h);  // nothing else was built
        putHall(all, h, out);
    }
    eachHall(
        allGather(all.take()), halls.size(), my_rank, [&](std::size_t h) { return mine(h); },
        [&](std::size_t h, Unpacker& in) {
            halls[h].error = in.text();
            if (halls[h].error.empty()) readLayout(in, *this, h);
        });
    for (std::size_t h = 0; h < halls.size(); ++h)
        if (!halls[h].error.empty()) throw SimError(halls[h].error + " (on rank " + std::to_string(hall_rank[h]) + ")");
}

namespace {

void putStats(Packer& out, const AirSolverStats& s) {
    out.put(s.flow_solves);
    out.put(s.flow_iterations);
    out.put(s.lattice_steps);
    out.put(s.lattice_restarts);
    out.put(s.lattice_rescales);
    out.put(s.lattice_seconds);
    out.put(s.max_speed_ms);
    out.put(s.max_mach);
    out.put(s.last_flow_residual);
    out.put(s.max_divergence_error);
    out.put(s.flow_seconds);
}

AirSolverStats getStats(Unpacker& in) {
    AirSolverStats s;
    s.flow_solves = in.get<std::int64_t>();
    s.flow_iterations = in.get<std::int64_t>();
    s.lattice_steps = in.get<std::int64_t>();
    s.lattice_restarts = in.get<int>();
    s.lattice_rescales = in.get<int>();
    s.lattice_seconds = in.get<double>();
    s.max_speed_ms = in.get<double>();
    s.max_mach = in.get<double>();
    s.last_flow_residual = in.get<double>();
    s.max_divergence_error = in.get<double>();
    s.flow_seconds = in.get<double>();
    return s;
}

}  // namespace

void Engine::Impl::shareAir() {
    Packer all;
    for (std::size_t h : ownHalls()) {
        if (!leads(h)) continue;
        const HallRt& hr = halls[h];
        Packer out;
        out.text(hr.error);
        out.put(hr.substeps);
        putStats(out, hr.stats);
        out.put(hr.return_c);
        out.put(hr.plenum_c);
        for (double c : hr.sensor_c) out.put(c);
        for (int ri : hr.racks) {
            const RackRt& rr = racks[static_cast<std::size_t>(ri)];
            out.put(rr.door_at_capacity);
            out.put(rr.door_accum_j);
            for (const auto& lv : rr.levels) {
                for (double v : {lv.leak_m3s, lv.air_in_c, lv.inlet_c, lv.exhaust_c, lv.capture}) out.put(v);
            }
        }
        for (int ui : hr.units) {
            const UnitRt& ur = units[static_cast<std::size_t>(ui)];
            for (double v : {ur.q_m3s, ur.return_c, ur.supply_c, ur.load_accum_j, ur.control_supply_c}) out.put(v);
            out.put(ur.over_capacity);
        }
        putHall(all, h, out);
    }
    eachHall(
        allGather(all.take()), halls.size(), my_rank, [&](std::size_t h) { return mine(h); },
        [&](std::size_t h, Unpacker& in) {
            HallRt& hr = halls[h];
            hr.error = in.text();
            hr.substeps = in.get<int>();
            hr.stats = getStats(in);
            hr.return_c = in.get<double>();
            hr.plenum_c = in.get<double>();
            for (double& c : hr.sensor_c) c = in.get<double>();
            for (int ri : hr.racks) {
                RackRt& rr = racks[static_cast<std::size_t>(ri)];
                rr.door_at_capacity = in.get<bool>();
                rr.door_accum_j = in.get<double>();
                for (auto& lv : rr.levels)
                    for (double* v : {&lv.leak_m3s, &lv.air_in_c, &lv.inlet_c, &lv.exhaust_c, &lv.capture}) *v = in.get<double>();
            }
            for (int ui : hr.units) {
                UnitRt& ur = units[static_cast<std::size_t>(ui)];
                for (double* v : {&ur.q_m3s, &ur.return_c, &ur.supply_c, &ur.load_accum_j, &ur.control_supply_c}) *v = in.get<double>();
                ur.over_capacity = in.get<bool>();
            }
        });
}

void Engine::Impl::gatherAirFields(model::Frame& f) {
    Packer all;
    for (std::size_t h : ownHalls()) {
        if (!leads(h)) continue;
        const model::AirField a = hallAirField(h);
        Packer out;
        for (int n : {a.nx, a.ny, a.nz}) out.put(n);
        out.put(a.cell_m);
        out.floats(a.temp_c);
        out.floats(a.velocity_ms);
        out.floats(a.supply_points_m);
        putHall(all, h, out);
    }
    const auto messages = opt.hall_ranks->gather(all.take());
    if (messages.empty()) return;  // not rank 0: its frames carry no field
    for (std::size_t r = 1; r < messages.size(); ++r) stats.exchanged_bytes += messages[r].size();
    std::vector<std::optional<model::AirField>> fields(halls.size());
    eachHall(
        messages, halls.size(), -1, [](std::size_t) { return false; }, [&](std::size_t h, Unpacker& in) {  // rank 0's own too
            model::AirField a;
            a.nx = in.get<int>();
            a.ny = in.get<int>();
            a.nz = in.get<int>();
            a.cell_m = in.get<double>();
            a.temp_c = in.floats();
            a.velocity_ms = in.floats();
            a.supply_points_m = in.floats();
            a.hall = static_cast<int>(h);
            fields[h] = std::move(a);
        });
    for (std::size_t h = 0; h < halls.size(); ++h) {
        if (!fields[h]) throw SimError("no rank sent hall " + scenario.halls[h].id + "'s air field");
        if (h == 0) f.air = std::move(*fields[h]);
        else f.other_halls_air.push_back(std::move(*fields[h]));
    }
}

}  // namespace ct::sim
