#include <clustertwin/sim/network.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <tuple>

namespace ct::sim::net {

namespace {
std::uint64_t mix(std::uint64_t x) {  // splitmix64
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
}  // namespace

/// Path cost of an arc: its latency in nanoseconds, then hops (so NVLink inside a node beats a detour
/// through the leaf, and equal fat-tree paths tie exactly for ECMP).
std::int64_t Router::cost(int a) const { return std::llround(t_.arc(a).latency_s * 1e9) * 1024 + 1; }

const std::vector<std::int64_t>& Router::distancesTo(int dst) {
    if (version_ != t_.version()) {
        dist_.clear();
        version_ = t_.version();
    }
    auto it = dist_.find(dst);
    if (it != dist_.end()) return it->second;
    // Dijkstra towards dst over reversed arcs. Hosts are reached but never expanded: they do not forward.
    std::vector<std::int64_t> d(static_cast<std::size_t>(t_.nodeCount()), -1);
    using Item = std::pair<std::int64_t, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> q;
    d[dst] = 0;
    q.emplace(0, dst);
    while (!q.empty()) {
        const auto [dv, v] = q.top();
        q.pop();
        if (dv != d[v]) continue;
        if (v != dst && t_.node(v).kind == NodeKind::Host) continue;
        for (int a : t_.out(v)) {
            const int back = a ^ 1;  // w → v
            if (!t_.arcUp(back)) continue;
            const int w = t_.arc(a).to;
            const std::int64_t nd = dv + cost(back);
            if (d[w] < 0 || nd < d[w]) {
                d[w] = nd;
                q.emplace(nd, w);
            }
        }
    }
    return dist_.emplace(dst, std::move(d)).first->second;
}

void Router::refreshBelow() {
    if (below_version_ == t_.version()) return;
    below_version_ = t_.version();
    const bool structural = below_all_.empty();
    const int n = t_.nodeCount();
    leaf_index_.assign(static_cast<std::size_t>(n), -1);
    int leaves = 0;
    for (int v = 0; v < n; ++v)
        if (t_.node(v).kind == NodeKind::Switch && t_.node(v).level == 1) leaf_index_[v] = leaves++;
    const std::size_t words = static_cast<std::size_t>((leaves + 63) / 64);
    below_.assign(static_cast<std::size_t>(n), {});
    int top = 1;
    for (int v = 0; v < n; ++v) top = std::max(top, t_.node(v).level);
    for (int v = 0; v < n; ++v)
        if (leaf_index_[v] >= 0) {
            below_[v].assign(words, 0);
            below_[v][leaf_index_[v] / 64] |= 1ull << (leaf_index_[v] % 64);
        }
    for (int level = 2; level <= top; ++level)
        for (int v = 0; v < n; ++v) {
            if (t_.node(v).kind != NodeKind::Switch || t_.node(v).level != level) continue;
            below_[v].assign(words, 0);
            for (int a : t_.out(v)) {
                const int w = t_.arc(a).to;
                if (!t_.arcUp(a) || t_.node(w).level != level - 1 || below_[w].empty()) continue;
                for (std::size_t i = 0; i < words; ++i) below_[v][i] |= below_[w][i];
            }
        }
    if (structural) {
        parents_.assign(static_cast<std::size_t>(n), 0);
        up_arcs_.assign(static_cast<std::size_t>(n), {});
        down_arcs_.assign(static_cast<std::size_t>(n), {});
        down_to_.assign(static_cast<std::size_t>(n), {});
        for (int v = 0; v < n; ++v) {
            if (t_.node(v).kind != NodeKind::Switch) continue;
            std::vector<int> up;  // the distinct switches above
            for (int a : t_.out(v)) {
                const int w = t_.arc(a).to;
                if (t_.node(w).kind != NodeKind::Switch) continue;
                if (t_.node(w).level == t_.node(v).level + 1) {
                    up_arcs_[v].push_back(a);
                    if (std::find(up.begin(), up.end(), w) == up.end()) up.push_back(w);
                }
                if (t_.node(w).level == t_.node(v).level - 1) {
                    down_arcs_[v].push_back(a);
                    down_to_[v].push_back(w);
                }
            }
            parents_[v] = static_cast<int>(up.size());
        }
        // The healthy fabric: computed once, with every link up (nothing has failed before the first route
        // unless a test fails links first; then the structure is what was left, still consistent).
        below_all_ = below_;
    }
}

namespace {
int addressOf(const Topology& t, int n) { return t.node(n).address >= 0 ? t.node(n).address : n; }
std::uint64_t pairHash(const Topology& t, int src, int dst) {
    return mix((static_cast<std::uint64_t>(addressOf(t, src)) << 32) ^ static_cast<std::uint32_t>(addressOf(t, dst)));
}
/// Same NVLink domain: the two arcs through their NVSwitch; empty when src and dst share none (or it is down).
std::vector<int> nvlinkPath(const Topology& t, int src, int dst) {
    for (int a : t.out(src)) {
        const int s = t.arc(a).to;
        if (t.node(s).kind != NodeKind::NvSwitch || !t.arcUp(a)) continue;
        for (int b : t.out(s))
            if (t.arc(b).to == dst && t.arcUp(b)) return {a, b};
    }
    return {};
}

}  // namespace

std::vector<int> Router::routeUpDown(int src, int dst) {
    refreshBelow();
    std::vector<int> path;
    const std::uint64_t h = pairHash(t_, src, dst);
    const bool dmodk = t_.routing() == Routing::DModK;
    const std::uint64_t addr = static_cast<std::uint64_t>(addressOf(t_, dst));
    if (auto nv = nvlinkPath(t_, src, dst); !nv.empty()) return nv;
    auto leafOf = [&](int host, bool outgoing) -> int {  // the arc host→leaf (or leaf→host)
        for (int a : t_.out(host)) {
            const int s = t_.arc(a).to;
            if (leaf_index_[s] >= 0 && t_.arcUp(a)) return outgoing ? a : (a ^ 1);
        }
        return -1;
    };
    const int up0 = leafOf(src, true), down_last = leafOf(dst, false);
    if (up0 < 0 || down_last < 0) return {};
    const int leaf_d = t_.arc(down_last).from, bit = leaf_index_[leaf_d];
    // A leaf reaches only itself (no bitset to read); above, the bitsets say.
    auto reaches = [&](int sw) {
        if (leaf_index_[sw] >= 0) return sw == leaf_d;
        return !below_[sw].empty() && (below_[sw][bit / 64] >> (bit % 64)) & 1ull;
    };
    auto reachesHealthy = [&](int sw) {
        if (leaf_index_[sw] >= 0) return sw == leaf_d;
        return !below_all_[sw].empty() && (below_all_[sw][bit / 64] >> (bit % 64)) & 1ull;
    };
    // The number of distinct switches above `sw` (its spines): parallel cables down to it are told apart by
    // the address digit above the one that chose the spine.
    auto parentsOf = [&](int sw) { return static_cast<std::uint64_t>(std::max(1, parents_[sw])); };
    // Choose among the next hops of the healthy fabric (D-mod-k: the destination address's digit for this
    // level; ECMP: the pair's hash); only if that one is down (or no longer leads to the destination) take the
    // next live member after it, so a failed member's pairs move together and the others stay.
    std::uint64_t digit = 1;  // D-mod-k going up: address / (product of the uplink counts below) mod uplinks
    std::vector<int> down_healthy, live, any;
    auto choose = [&](int u, bool up) -> int {
        // The switches one level up or down (up_arcs_, down_arcs_: the links to them, in the topology's order);
        // going down, those with the destination's leaf below them in the healthy fabric.
        const std::vector<int>& next = up ? up_arcs_[static_cast<std::size_t>(u)] : down_arcs_[static_cast<std::size_t>(u)];
        if (!up) {
            down_healthy.clear();
            const std::vector<int>& to = down_to_[static_cast<std::size_t>(u)];
            for (std::size_t i = 0; i < next.size(); ++i)
                if (reachesHealthy(to[i])) down_healthy.push_back(next[i]);
        }
        const std::vector<int>& healthy = up ? next : down_healthy;
        const std::uint64_t k = mix(h ^ static_cast<std::uint64_t>(u));
        if (!healthy.empty()) {
            std::size_t first = k % healthy.size();
            if (dmodk) {
                if (up) {
                    first = (addr / digit) % healthy.size();
                    digit *= healthy.size();
                } else {
                    first = (addr / parentsOf(t_.arc(healthy.front()).to)) % healthy.size();
                }
            }
            for (std::size_t i = 0; i < healthy.size(); ++i) {
                const int a = healthy[(first + i) % healthy.size()];
                if (t_.arcUp(a) && reaches(t_.arc(a).to)) return a;
            }
        }
        // No healthy next hop leads there any more (failures): any live one that does, else (going up) any live one.
        live.clear();
        any.clear();
        for (int a : next) {
            if (!t_.arcUp(a)) continue;
            if (reaches(t_.arc(a).to)) live.push_back(a);
            else if (up) any.push_back(a);
        }
        if (!live.empty()) return live[(dmodk ? addr : mix(k)) % live.size()];
        if (up && !any.empty()) return any[(dmodk ? addr : mix(k)) % any.size()];  // keep climbing
        return -1;
    };
    path.push_back(up0);
    int u = t_.arc(up0).to;
    // Up until a switch has the destination's leaf below it, then down towards that leaf.
    while (!reaches(u)) {
        const int a = choose(u, true);
        if (a < 0) return {};
        path.push_back(a);
        u = t_.arc(a).to;
    }
    while (u != leaf_d) {
        const int a = choose(u, false);
        if (a < 0) return {};
        path.push_back(a);
        u = t_.arc(a).to;
    }
    path.push_back(down_last);
    return path;
}

std::vector<int> Router::route(int src, int dst) {
    std::vector<int> path;
    if (src == dst) return path;
    if (t_.layered() && t_.node(src).kind == NodeKind::Host && t_.node(dst).kind == NodeKind::Host) {
        path = routeUpDown(src, dst);
        if (!path.empty()) return path;  // else: failures broke the up/down path; search
    }
    const std::vector<std::int64_t>& d = distancesTo(dst);
    if (d[src] < 0) return path;
    int u = src;
    const std::uint64_t h = pairHash(t_, src, dst);
    const std::uint64_t addr = static_cast<std::uint64_t>(addressOf(t_, dst));
    const bool dmodk = t_.routing() == Routing::DModK;
    std::uint64_t digit = 1;
    std::vector<int> next;
    while (u != dst) {
        next.clear();
        for (int a : t_.out(u)) {
            if (!t_.arcUp(a)) continue;
            const int w = t_.arc(a).to;
            if (d[w] >= 0 && d[w] + cost(a) == d[u] && (w == dst || t_.node(w).kind != NodeKind::Host)) next.push_back(a);
        }
        if (next.empty()) return {};
        std::size_t pick = mix(h ^ static_cast<std::uint64_t>(u)) % next.size();
        if (dmodk) {
            pick = (addr / digit) % next.size();
            digit *= next.size();
        }
        const int a = next[pick];
        path.push_back(a);
        u = t_.arc(a).to;
    }
    return path;
}

double Router::latency(const std::vector<int>& path) const {
    double s = 0;
    for (int a : path) s += t_.arc(a).latency_s;
    return s;
}

namespace {

/// Progressive filling over flows given by index (`path(f)`, `weight(f)`), its buffers kept from one call to
/// the next: a flow simulation recomputes the rates at every start and end of a flow, and copying every active
/// path and allocating the arrays each time cost ~5 % of a big collective's run (docs/performance.md). The
/// per-arc arrays span the fabric and are cleared after a call only where its flows went: a flow simulation
/// recomputes small parts of a 400k-arc fabric, and clearing every arc's entries took ~5 ms a call.
class MaxMin {
public:
    explicit MaxMin(const std::vector<double>& cap)
        : cap_(cap),
          count_(cap.size(), 0),
          start_(cap.size() + 1, 0),
          fill_(cap.size(), 0),
          fixed_(cap.size(), 0.0),
          n_(cap.size(), 0.0),
          ver_(cap.size(), 0) {}

    template <class Path, class Weight>
    const std::vector<double>& rates(std::size_t F, const Path& path, const Weight& weight) {
        rate_.assign(F, std::numeric_limits<double>::infinity());
        listFlowsByArc(F, path, weight);
        // Each arc saturates when the common rate of its unfrozen flows reaches (cap − fixed) / n: take the arcs
        // in that order, freezing their flows at that rate. Freezing a flow at the lowest level never lowers
        // another arc's level, so an arc's key in the heap stays a lower bound after its flows change: it is
        // brought up to date only when it comes to the top (versions say whether it changed), not at every
        // freeze (a heap push for every arc of every frozen flow was most of a 100k-flow pass).
        heap_.clear();
        auto push = [&](double level, int a) {
            heap_.emplace_back(level, a, ver_[static_cast<std::size_t>(a)]);
            std::push_heap(heap_.begin(), heap_.end(), std::greater<Item>());
        };
        for (std::size_t a = 0; a < cap_.size(); ++a)  // in the arcs' order: the heap stays close to sorted
            if (n_[a] > 0) push(cap_[a] / n_[a], static_cast<int>(a));
        while (!heap_.empty()) {
            std::pop_heap(heap_.begin(), heap_.end(), std::greater<Item>());
            const auto [level, a, v] = heap_.back();
            heap_.pop_back();
            const auto ua = static_cast<std::size_t>(a);
            if (n_[ua] <= 0) continue;
            if (v != ver_[ua]) {
                push((cap_[ua] - fixed_[ua]) / n_[ua], a);
                continue;
            }
            freeze(std::max(0.0, level), ua, path, weight);
        }
        if (dense_) {
            std::fill(count_.begin(), count_.end(), 0);
            std::fill(fixed_.begin(), fixed_.end(), 0.0);
            std::fill(n_.begin(), n_.end(), 0.0);
            std::fill(ver_.begin(), ver_.end(), 0u);
        } else {
            for (int a : arcs_) {
                const auto ua = static_cast<std::size_t>(a);
                count_[ua] = 0;
                fixed_[ua] = 0;
                n_[ua] = 0;
                ver_[ua] = 0;
            }
        }
        return rate_;
    }

private:
    using Item = std::tuple<double, int, std::uint32_t>;

    /// Each arc's flows (CSR in the arcs' order) and their weight on it; `arcs_` the arcs the flows cross.
    template <class Path, class Weight>
    void listFlowsByArc(std::size_t F, const Path& path, const Weight& weight) {
        arcs_.clear();
        for (std::size_t f = 0; f < F; ++f)
            for (int a : path(f))
                if (count_[static_cast<std::size_t>(a)]++ == 0) arcs_.push_back(a);
        for (std::size_t a = 0; a < cap_.size(); ++a) start_[a + 1] = start_[a] + count_[a];
        dense_ = arcs_.size() > cap_.size() / 8;  // most of the fabric: whole arrays beat arc by arc
        if (dense_) std::copy(start_.begin(), start_.end() - 1, fill_.begin());
        else
            for (int a : arcs_) fill_[static_cast<std::size_t>(a)] = start_[static_cast<std::size_t>(a)];
        on_.resize(static_cast<std::size_t>(start_.back()));
        frozen_.assign(F, 0);
        for (std::size_t f = 0; f < F; ++f) {
            if (path(f).empty()) frozen_[f] = 1;
            for (int a : path(f)) {
                on_[static_cast<std::size_t>(fill_[static_cast<std::size_t>(a)]++)] = static_cast<int>(f);
                n_[static_cast<std::size_t>(a)] += weight(f);
            }
        }
    }

    /// Freezes the unfrozen flows of arc a at rate r a unit of weight.
    template <class Path, class Weight>
    void freeze(double r, std::size_t a, const Path& path, const Weight& weight) {
        for (int i = start_[a]; i < start_[a + 1]; ++i) {
            const auto f = static_cast<std::size_t>(on_[static_cast<std::size_t>(i)]);
            if (frozen_[f]) continue;
            frozen_[f] = 1;
            const double wf = weight(f);
            rate_[f] = r * wf;
            for (int b : path(f)) {
                const auto ub = static_cast<std::size_t>(b);
                fixed_[ub] += r * wf;
                n_[ub] -= wf;
                ++ver_[ub];
            }
        }
    }

    const std::vector<double>& cap_;
    std::vector<int> count_, start_, fill_;  ///< per arc of the fabric; count_ is 0 outside a call
    std::vector<double> fixed_, n_;          ///< per arc; 0 outside a call
    std::vector<std::uint32_t> ver_;         ///< per arc; 0 outside a call
    std::vector<int> arcs_, on_;
    bool dense_ = false;  ///< this call's flows cross most of the fabric: fill and clear whole arrays
    std::vector<double> rate_;
    std::vector<char> frozen_;
    std::vector<Item> heap_;
};

}  // namespace

std::vector<double> maxMinRates(const std::vector<std::vector<int>>& paths, const std::vector<double>& cap,
                                const std::vector<double>* weights) {
    MaxMin mm(cap);
    return mm.rates(
        paths.size(), [&](std::size_t f) -> const std::vector<int>& { return paths[f]; },
        [&](std::size_t f) { return weights ? (*weights)[f] : 1.0; });
}

namespace {

/// The active flows whose rates a change can move: every flow connected, through arcs they share, to an arc on
/// which a flow started or ended. Max-min sharing splits exactly into such parts (a part's rates depend on its
/// own flows and arcs alone), so a flow simulation recomputes only the parts a change touched: in a 16k-rank
/// all-reduce most ends of flows touch one of ~4,000 parts.
class Touched {
public:
    Touched(const std::vector<Flow>& flows, std::size_t arcs) : flows_(flows), seen_arc_(arcs, 0), in_(flows.size(), 0) {
        start_.assign(arcs + 1, 0);
        for (const Flow& f : flows)
            for (int a : f.path) ++start_[static_cast<std::size_t>(a) + 1];
        for (std::size_t a = 0; a < arcs; ++a) start_[a + 1] += start_[a];
        on_.resize(static_cast<std::size_t>(start_[arcs]));
        std::vector<int> fill(start_.begin(), start_.end() - 1);
        for (std::size_t f = 0; f < flows.size(); ++f)
            for (int a : flows[f].path) on_[static_cast<std::size_t>(fill[static_cast<std::size_t>(a)]++)] = static_cast<int>(f);
    }

    /// A flow started or ended: its arcs' flows may change rate.
    void change(int f) {
        for (int a : flows_[static_cast<std::size_t>(f)].path) mark(a);
    }

    /// The active flows connected to the changed arcs, in the order of `active`; clears the changes.
    const std::vector<int>& collect(const std::vector<int>& active, const std::vector<char>& is_active) {
        for (std::size_t i = 0; i < stack_.size(); ++i) {
            const auto a = static_cast<std::size_t>(stack_[i]);
            for (int k = start_[a]; k < start_[a + 1]; ++k) {
                const auto f = static_cast<std::size_t>(on_[static_cast<std::size_t>(k)]);
                if (!is_active[f] || in_[f]) continue;
                in_[f] = 1;
                for (int b : flows_[f].path) mark(b);
            }
        }
        part_.clear();
        for (int f : active)
            if (in_[static_cast<std::size_t>(f)]) {
                part_.push_back(f);
                in_[static_cast<std::size_t>(f)] = 0;
            }
        for (int a : stack_) seen_arc_[static_cast<std::size_t>(a)] = 0;
        stack_.clear();
        return part_;
    }

private:
    void mark(int a) {
        char& s = seen_arc_[static_cast<std::size_t>(a)];
        if (!s) {
            s = 1;
            stack_.push_back(a);
        }
    }

    const std::vector<Flow>& flows_;
    std::vector<int> start_, on_;  ///< each arc's flows (CSR)
    std::vector<char> seen_arc_, in_;
    std::vector<int> stack_, part_;
};

}  // namespace

FlowSimResult simulateFlows(const Topology& t, Router& r, std::vector<Flow>& flows) {
    FlowSimResult res;
    res.arc_bytes.assign(static_cast<std::size_t>(t.arcCount()), 0.0);
    std::vector<double> cap(static_cast<std::size_t>(t.arcCount()));
    for (int a = 0; a < t.arcCount(); ++a) cap[a] = t.arcUp(a) ? t.arc(a).capacity_Bps : 0.0;
    struct Pending {
        double t;
        int f;
        bool operator>(const Pending& o) const { return t > o.t || (t == o.t && f > o.f); }
    };
    std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending;
    for (std::size_t i = 0; i < flows.size(); ++i) {
        Flow& f = flows[i];
        if (!(f.bytes >= 0)) throw SimError("network: flow sizes must be >= 0");
        res.bytes_sent += f.bytes;
        if (f.path.empty() && f.src != f.dst) f.path = r.route(f.src, f.dst);
        if (f.path.empty() && f.src != f.dst) {
            f.stalled = true;
            ++res.stalled;
            continue;
        }
        pending.push({f.start_s + r.latency(f.path), static_cast<int>(i)});
    }
    MaxMin mm(cap);
    Touched touched(flows, cap.size());
    std::vector<int> active, still;
    std::vector<double> left(flows.size(), 0.0), rate(flows.size(), 0.0);
    std::vector<char> rated(flows.size(), 0), is_active(flows.size(), 0);
    double now = 0;
    while (!pending.empty() || !active.empty()) {
        if (active.empty()) now = std::max(now, pending.top().t);
        while (!pending.empty() && pending.top().t <= now) {
            const int f = pending.top().f;
            pending.pop();
            if (flows[f].bytes <= 0 || flows[f].path.empty()) {
                flows[f].finish_s = now;
                continue;
            }
            left[f] = flows[f].bytes;
            active.push_back(f);
            is_active[static_cast<std::size_t>(f)] = 1;
            touched.change(f);
        }
        if (active.empty()) continue;
        const std::vector<int>& part = touched.collect(active, is_active);
        if (!part.empty()) {
            const std::vector<double>& part_rate = mm.rates(
                part.size(), [&](std::size_t i) -> const std::vector<int>& { return flows[static_cast<std::size_t>(part[i])].path; },
                [&](std::size_t i) { return flows[static_cast<std::size_t>(part[i])].weight; });
            for (std::size_t i = 0; i < part.size(); ++i) rate[static_cast<std::size_t>(part[i])] = part_rate[i];
        }
        ++res.rate_recomputations;
        double dt = std::numeric_limits<double>::infinity();
        for (int f : active)
            if (rate[f] > 0) dt = std::min(dt, left[f] / rate[f]);
        if (!pending.empty()) dt = std::min(dt, pending.top().t - now);
        if (!std::isfinite(dt)) throw SimError("network: flows cannot progress (zero capacity on their path)");
        now += dt;
        still.clear();
        for (int f : active) {
            Flow& fl = flows[static_cast<std::size_t>(f)];
            left[f] -= std::min(left[f], rate[f] * dt);
            if (!rated[f]) fl.first_rate_Bps = rate[f];
            rated[f] = 1;
            fl.rate_Bps = rate[f];
            if (left[f] <= 1e-9 * fl.bytes + 1e-6) {
                fl.finish_s = now;
                const double moved = fl.bytes - left[f];
                res.bytes_delivered += moved;
                for (int a : fl.path) res.arc_bytes[a] += moved;
                left[f] = 0;
                is_active[static_cast<std::size_t>(f)] = 0;
                touched.change(f);
            } else {
                still.push_back(f);
            }
        }
        active.swap(still);
    }
    for (const Flow& f : flows)
        if (!f.stalled) res.end_s = std::max(res.end_s, f.finish_s);
    return res;
}

}  // namespace ct::sim::net
