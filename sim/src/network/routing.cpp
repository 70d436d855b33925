#include <clustertwin/sim/network.hpp>

#include <algorithm>
#include <cmath>
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
        for (int v = 0; v < n; ++v) {
            std::vector<int> seen;
            for (int a : t_.out(v)) {
                const int w = t_.arc(a).to;
                if (t_.node(v).kind == NodeKind::Switch && t_.node(w).kind == NodeKind::Switch &&
                    t_.node(w).level == t_.node(v).level + 1 && std::find(seen.begin(), seen.end(), w) == seen.end())
                    seen.push_back(w);
            }
            parents_[v] = static_cast<int>(seen.size());
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
    auto reaches = [&](int sw) { return !below_[sw].empty() && (below_[sw][bit / 64] >> (bit % 64)) & 1ull; };
    auto reachesHealthy = [&](int sw) { return !below_all_[sw].empty() && (below_all_[sw][bit / 64] >> (bit % 64)) & 1ull; };
    // The number of distinct switches above `sw` (its spines): parallel cables down to it are told apart by
    // the address digit above the one that chose the spine.
    auto parentsOf = [&](int sw) { return static_cast<std::uint64_t>(std::max(1, parents_[sw])); };
    // Choose among the next hops of the healthy fabric (D-mod-k: the destination address's digit for this
    // level; ECMP: the pair's hash); only if that one is down (or no longer leads to the destination) take the
    // next live member after it, so a failed member's pairs move together and the others stay.
    std::uint64_t digit = 1;  // D-mod-k going up: address / (product of the uplink counts below) mod uplinks
    std::vector<int> healthy, live, any;
    auto choose = [&](int u, bool up) -> int {
        healthy.clear();
        live.clear();
        any.clear();
        for (int a : t_.out(u)) {
            const int w = t_.arc(a).to;
            if (t_.node(w).kind != NodeKind::Switch || t_.node(w).level != t_.node(u).level + (up ? 1 : -1)) continue;
            if (up || reachesHealthy(w)) healthy.push_back(a);
            if (!t_.arcUp(a)) continue;
            if (reaches(w)) live.push_back(a);
            else if (up) any.push_back(a);
        }
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

std::vector<double> maxMinRates(const std::vector<std::vector<int>>& paths, const std::vector<double>& cap,
                                const std::vector<double>* weights) {
    const std::size_t F = paths.size(), A = cap.size();
    std::vector<double> rate(F, std::numeric_limits<double>::infinity());
    std::vector<double> fixed(A, 0.0);
    std::vector<double> n(A, 0.0);  ///< the unfrozen flows' weight on each arc
    auto w = [&](std::size_t f) { return weights ? (*weights)[f] : 1.0; };
    // Flows per arc (CSR).
    std::vector<int> start(A + 1, 0);
    for (const auto& p : paths)
        for (int a : p) ++start[a + 1];
    for (std::size_t a = 0; a < A; ++a) start[a + 1] += start[a];
    std::vector<int> on(static_cast<std::size_t>(start[A]));
    {
        std::vector<int> fill(start.begin(), start.end() - 1);
        for (std::size_t f = 0; f < F; ++f)
            for (int a : paths[f]) on[fill[a]++] = static_cast<int>(f);
    }
    for (std::size_t f = 0; f < F; ++f)
        for (int a : paths[f]) n[static_cast<std::size_t>(a)] += w(f);
    std::vector<char> frozen(F, 0);
    for (std::size_t f = 0; f < F; ++f)
        if (paths[f].empty()) frozen[f] = 1;
    // Each arc saturates when the common rate of its unfrozen flows reaches (cap − fixed) / n: take the arcs in
    // that order, freezing their flows at that rate (lazy heap with versions).
    std::vector<std::uint32_t> ver(A, 0);
    using Item = std::tuple<double, int, std::uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    for (std::size_t a = 0; a < A; ++a)
        if (n[a] > 0) heap.emplace(cap[a] / n[a], static_cast<int>(a), 0u);
    while (!heap.empty()) {
        const auto [level, a, v] = heap.top();
        heap.pop();
        if (v != ver[a] || n[a] <= 0) continue;
        const double r = std::max(0.0, level);
        for (int i = start[a]; i < start[a + 1]; ++i) {
            const int f = on[i];
            if (frozen[f]) continue;
            frozen[f] = 1;
            const double wf = w(static_cast<std::size_t>(f));
            rate[f] = r * wf;
            for (int b : paths[f]) {
                fixed[b] += r * wf;
                n[b] -= wf;
                ++ver[b];
                if (n[b] > 0) heap.emplace((cap[b] - fixed[b]) / n[b], b, ver[b]);
            }
        }
    }
    return rate;
}

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
    std::vector<int> active;
    std::vector<double> left(flows.size(), 0.0);
    std::vector<char> rated(flows.size(), 0);
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
        }
        if (active.empty()) continue;
        std::vector<std::vector<int>> paths;
        std::vector<double> weights;
        paths.reserve(active.size());
        weights.reserve(active.size());
        bool weighted = false;
        for (int f : active) {
            paths.push_back(flows[f].path);
            weights.push_back(flows[f].weight);
            weighted = weighted || flows[f].weight != 1;
        }
        const std::vector<double> rate = maxMinRates(paths, cap, weighted ? &weights : nullptr);
        ++res.rate_recomputations;
        double dt = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < active.size(); ++i)
            if (rate[i] > 0) dt = std::min(dt, left[active[i]] / rate[i]);
        if (!pending.empty()) dt = std::min(dt, pending.top().t - now);
        if (!std::isfinite(dt)) throw SimError("network: flows cannot progress (zero capacity on their path)");
        now += dt;
        std::vector<int> still;
        for (std::size_t i = 0; i < active.size(); ++i) {
            const int f = active[i];
            const double moved = std::min(left[f], rate[i] * dt);
            left[f] -= moved;
            if (!rated[f]) flows[f].first_rate_Bps = rate[i];
            rated[f] = 1;
            flows[f].rate_Bps = rate[i];
            for (int a : flows[f].path) res.arc_bytes[a] += moved;
            if (left[f] <= 1e-9 * flows[f].bytes + 1e-6) {
                flows[f].finish_s = now;
                res.bytes_delivered += flows[f].bytes - left[f];
                left[f] = 0;
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
