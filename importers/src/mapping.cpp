#include <clustertwin/importers/mapping.hpp>

#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/catalog.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>
#include <map>
#include <queue>
#include <regex>
#include <set>

namespace ct::importers {

struct EntityMapper::Impl {
    struct Rule {
        std::string label;
        std::regex re;
        std::string entity;
    };
    std::vector<Rule> rules;
    std::map<std::string, std::string> host_to_node;  // hostname, id, name, short hostname → node id
    std::map<std::string, std::string> uuid_to_gpu;
    std::set<std::string> ids;  // every mappable scenario id (racks, units, PDUs, ...)

    /// The first rule for `label` whose pattern matches all of `value`, with $1..$9 substituted.
    std::string rule(const std::string& label, const std::string& value) const {
        for (const auto& r : rules) {
            if (r.label != label) continue;
            std::smatch m;
            if (!std::regex_match(value, m, r.re)) continue;
            std::string out;
            for (std::size_t i = 0; i < r.entity.size(); ++i) {
                if (r.entity[i] == '$' && i + 1 < r.entity.size() && std::isdigit(static_cast<unsigned char>(r.entity[i + 1]))) {
                    const std::size_t g = static_cast<std::size_t>(r.entity[i + 1] - '0');
                    if (g < m.size()) out += m[g].str();
                    ++i;
                } else {
                    out += r.entity[i];
                }
            }
            return out;
        }
        return {};
    }
};

EntityMapper::EntityMapper(const model::Scenario& s) : impl_(std::make_unique<Impl>()) {
    for (std::size_t i = 0; i < s.telemetry_mapping.size(); ++i) {
        const auto& m = s.telemetry_mapping[i];
        try {
            impl_->rules.push_back({m.label, std::regex(m.pattern, std::regex::ECMAScript), m.entity});
        } catch (const std::regex_error& e) {
            throw ImportError("/telemetry_mapping/" + std::to_string(i) + "/pattern: not a regular expression: " + e.what());
        }
    }
    auto host = [&](const std::string& key, const std::string& node) {
        if (!key.empty()) impl_->host_to_node.emplace(key, node);
    };
    for (const auto& h : s.halls) {
        for (const auto& cu : h.cooling_units) impl_->ids.insert(cu.id);
        for (const auto& c : h.cdus) impl_->ids.insert(c.id);
        for (const auto& row : h.rows)
            for (const auto& rack : row.racks) {
                impl_->ids.insert(rack.id);
                for (const auto& p : rack.pdus) impl_->ids.insert(p.id);
                for (const auto& n : rack.nodes) {
                    impl_->ids.insert(n.id);
                    host(n.hostname, n.id);
                    host(n.hostname.substr(0, n.hostname.find('.')), n.id);
                    host(n.id, n.id);
                    host(n.name, n.id);
                    for (const auto& g : n.gpus)
                        if (!g.uuid.empty()) impl_->uuid_to_gpu[g.uuid] = model::gpuId(n.id, g.index);
                }
            }
    }
}

EntityMapper::~EntityMapper() = default;
EntityMapper::EntityMapper(EntityMapper&&) noexcept = default;

std::string EntityMapper::node(const std::string& hostname) const {
    if (std::string r = impl_->rule("hostname", hostname); !r.empty()) return r;
    if (auto it = impl_->host_to_node.find(hostname); it != impl_->host_to_node.end()) return it->second;
    if (auto it = impl_->host_to_node.find(hostname.substr(0, hostname.find('.'))); it != impl_->host_to_node.end()) return it->second;
    return {};
}

std::string EntityMapper::map(const ImportedEntity& e) const {
    auto label = [&](const char* k) {
        auto it = e.labels.find(k);
        return it == e.labels.end() ? std::string() : it->second;
    };
    // "<host>/<rest>": the host's node, the rest kept ("<node>/gpu3", "<node>/hca-1").
    auto underHost = [&](const std::string& id) -> std::string {
        const auto slash = id.find('/');
        const std::string n = node(id.substr(0, slash));
        if (n.empty()) return {};
        return slash == std::string::npos ? n : n + id.substr(slash);
    };
    if (e.kind == "gpu" || e.kind == "mig") {
        if (const std::string uuid = label("uuid"); !uuid.empty()) {
            if (std::string r = impl_->rule("gpu_uuid", uuid); !r.empty()) return r;
            if (auto it = impl_->uuid_to_gpu.find(uuid); it != impl_->uuid_to_gpu.end()) return it->second;
        }
        return underHost(e.id);
    }
    if (const std::string guid = label("guid"); !guid.empty())
        if (std::string r = impl_->rule("ib_guid", guid); !r.empty()) return r;
    if (const std::string chassis = label("chassis"); !chassis.empty()) {
        // A crawl saved per server names its host (the crawl's directory): "<host>/<chassis>/...". The chassis
        // id is tried first (a rule, a scenario id, a hostname), then the host.
        const std::string host = label("host");
        std::string base = impl_->rule("chassis", chassis);
        if (base.empty()) base = impl_->ids.count(chassis) ? chassis : node(chassis);
        if (base.empty() && !host.empty()) base = node(host);
        if (base.empty()) return {};
        // The chassis' own readings, or a sensor below it: keep the part after the chassis id.
        const std::string prefix = (host.empty() ? "" : host + "/") + chassis;
        const std::string rest = e.id.rfind(prefix, 0) == 0 ? e.id.substr(prefix.size()) : "";
        return base + rest;
    }
    if (e.kind == "node") return node(e.id);
    if (impl_->ids.count(e.id)) return e.id;
    return underHost(e.id);
}

MappingReport EntityMapper::apply(ParseResult& r) const {
    MappingReport rep;
    std::map<std::string, std::string> to;
    for (const auto& e : r.entities) {
        const std::string m = map(e);
        if (m.empty()) rep.unmatched.push_back(e.id);
        else {
            ++rep.matched;
            to[e.id] = m;
        }
    }
    auto rename = [&](std::string& id) {
        if (auto it = to.find(id); it != to.end()) id = it->second;
    };
    for (auto& e : r.entities) {
        rename(e.parent);
        rename(e.id);
    }
    for (auto& s : r.samples) rename(s.entity);
    for (auto& l : r.links) {
        rename(l.from);
        rename(l.to);
    }
    return rep;
}

ReplayJobs slurmToJobs(const std::vector<SlurmJob>& jobs, const EntityMapper& mapper, std::optional<double> t0_s, double utilization) {
    ReplayJobs out;
    if (t0_s) out.t0_s = *t0_s;
    else {
        out.t0_s = HUGE_VAL;
        for (const auto& j : jobs)
            if (j.start_s) out.t0_s = std::min(out.t0_s, *j.start_s);
        if (!std::isfinite(out.t0_s)) out.t0_s = 0;
    }
    std::set<std::string> ids;
    for (const auto& j : jobs) {
        if (!j.start_s) {
            out.skipped.push_back({j.id, "not_started", "job " + j.id + " never started (" + j.state + ")"});
            continue;
        }
        model::Job mj;
        mj.id = "slurm-" + j.id;
        for (int k = 2; !ids.insert(mj.id).second; ++k) mj.id = "slurm-" + j.id + "-" + std::to_string(k);
        mj.name = j.name;
        mj.start_s = std::max(0.0, *j.start_s - out.t0_s);
        if (j.end_s) mj.end_s = std::max(mj.start_s, *j.end_s - out.t0_s);
        mj.utilization = utilization * j.gpu_share;
        if (j.gpu_share < 1) mj.extra["gpu_share"] = nlohmann::json(j.gpu_share).dump();
        if (j.nodes.empty() && j.gpus == 0) {  // a CPU-only pod of a trace: nothing for the GPUs to do
            out.skipped.push_back({j.id, "no_gpus", "job " + j.id + " uses no GPUs"});
            continue;
        }
        if (j.nodes.empty() && j.gpus > 0) {  // a trace's job: GPUs wanted, placed by placeTraceJobs (or the engine)
            mj.gpus = j.gpus;
            mj.extra["trace_state"] = nlohmann::json(j.state).dump();
            out.jobs.push_back(std::move(mj));
            continue;
        }
        std::vector<std::string> missing;
        for (const auto& h : j.nodes) {
            const std::string n = mapper.node(h);
            if (n.empty()) missing.push_back(h);
            else if (std::find(mj.nodes.begin(), mj.nodes.end(), n) == mj.nodes.end()) mj.nodes.push_back(n);
        }
        if (mj.nodes.empty()) {
            out.skipped.push_back({j.id, "unmatched",
                                   "job " + j.id + ": none of its " + std::to_string(j.nodes.size()) + " node(s) is in the scenario" +
                                       (j.nodes.empty() ? "" : " (first: " + j.nodes.front() + ")")});
            continue;
        }
        if (!missing.empty())
            out.skipped.push_back(
                {j.id, "partial",
                 "job " + j.id + ": " + std::to_string(missing.size()) + " node(s) not in the scenario, e.g. " + missing.front()});
        mj.extra["slurm_state"] = nlohmann::json(j.state).dump();  // extra holds JSON text: escaped
        if (!j.user.empty()) mj.extra["slurm_user"] = nlohmann::json(j.user).dump();
        out.jobs.push_back(std::move(mj));
    }
    return out;
}

namespace {

/// A first-come-first-served scheduler over the scenario's GPU nodes: each job in order of arrival takes GPUs
/// on the first node with room (several whole nodes when it wants more than one has) and waits while none has.
class TracePlacer {
public:
    TracePlacer(ReplayJobs& rj, const model::Scenario& s, const model::Catalog& c) : rj_(rj), drop_(rj.jobs.size(), false) {
        for (const auto& h : s.halls)
            for (const auto& row : h.rows)
                for (const auto& r : row.racks)
                    for (const auto& n : r.nodes)
                        if (const auto* sm = c.server(n.model); sm && sm->gpu_count > 0) {
                            nodes_.push_back({n.id, sm->gpu_count, sm->gpu_count});
                            total_ += sm->gpu_count;
                        }
    }

    std::size_t run() {
        std::vector<std::size_t> order;
        for (std::size_t i = 0; i < rj_.jobs.size(); ++i)
            if (rj_.jobs[i].nodes.empty() && rj_.jobs[i].gpus > 0) order.push_back(i);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return rj_.jobs[a].start_s < rj_.jobs[b].start_s; });
        for (std::size_t ji : order) {
            const model::Job& j = rj_.jobs[ji];
            if (j.gpus > total_) {
                rj_.skipped.push_back(
                    {j.id, "too_big",
                     "job " + j.id + " wants " + std::to_string(j.gpus) + " GPUs; the scenario has " + std::to_string(total_)});
                drop_[ji] = true;
                continue;
            }
            release(j.start_s);
            if (!waiting_.empty() || !tryPlace(ji, j.start_s)) waiting_.push_back(ji);
        }
        release(HUGE_VAL);
        for (std::size_t ji : waiting_) {  // behind a job that never ends
            rj_.skipped.push_back({rj_.jobs[ji].id, "never_placed", "job " + rj_.jobs[ji].id + ": its GPUs never came free"});
            drop_[ji] = true;
        }
        if (delayed_ > 0)
            rj_.skipped.push_back(
                {"placement", "note",
                 std::to_string(delayed_) +
                     " job(s) waited for GPUs (the scenario has fewer than the trace's cluster); extra queued_s says how long"});
        std::vector<model::Job> kept;
        for (std::size_t i = 0; i < rj_.jobs.size(); ++i)
            if (!drop_[i]) kept.push_back(std::move(rj_.jobs[i]));
        rj_.jobs = std::move(kept);
        return placed_;
    }

private:
    struct Node {
        std::string id;
        int gpus = 0, free = 0;
    };
    struct Release {
        double t;
        std::vector<std::pair<std::size_t, int>> gpus;  // node, GPUs
        bool operator>(const Release& o) const { return t > o.t; }
    };

    /// Places job ji at `now` if its GPUs are free: delayed to now when it waited, its utilization its share
    /// of each node's GPUs (jobs sharing a node add up).
    bool tryPlace(std::size_t ji, double now) {
        model::Job& j = rj_.jobs[ji];
        Release rel;
        int need = j.gpus;
        auto fits = std::find_if(nodes_.begin(), nodes_.end(), [&](const Node& n) { return n.free >= need; });
        if (fits != nodes_.end()) {
            rel.gpus.emplace_back(static_cast<std::size_t>(fits - nodes_.begin()), need);
        } else {
            for (std::size_t k = 0; k < nodes_.size() && need > 0; ++k)
                if (nodes_[k].free == nodes_[k].gpus) {
                    rel.gpus.emplace_back(k, nodes_[k].gpus);
                    need -= nodes_[k].gpus;
                }
            if (need > 0) return false;
        }
        const double wait = now - j.start_s;
        if (wait > 0) {
            j.extra["queued_s"] = nlohmann::json(wait).dump();
            if (j.end_s) j.end_s = *j.end_s + wait;
            j.start_s = now;
            ++delayed_;
        }
        double share = 0;
        for (const auto& [k, g] : rel.gpus) {
            nodes_[k].free -= g;
            j.nodes.push_back(nodes_[k].id);
            share = std::max(share, static_cast<double>(g) / nodes_[k].gpus);
        }
        j.utilization *= share;
        j.extra["trace_gpus"] = std::to_string(j.gpus);  // placed: the nodes say where, this how many it held
        j.gpus = 0;
        rel.t = j.end_s.value_or(HUGE_VAL);
        running_.push(std::move(rel));
        ++placed_;
        return true;
    }

    /// Frees the GPUs of the jobs ended by `upto`, placing waiting jobs as they fit.
    void release(double upto) {
        while (!running_.empty() && running_.top().t <= upto) {
            const double t = running_.top().t;
            for (const auto& [k, g] : running_.top().gpus) nodes_[k].free += g;
            running_.pop();
            while (!waiting_.empty() && tryPlace(waiting_.front(), t)) waiting_.pop_front();
        }
    }

    ReplayJobs& rj_;
    std::vector<Node> nodes_;
    int total_ = 0;
    std::priority_queue<Release, std::vector<Release>, std::greater<>> running_;
    std::deque<std::size_t> waiting_;
    std::vector<bool> drop_;
    std::size_t placed_ = 0, delayed_ = 0;
};

}  // namespace

std::size_t placeTraceJobs(ReplayJobs& rj, const model::Scenario& s, const model::Catalog& c) { return TracePlacer(rj, s, c).run(); }

}  // namespace ct::importers
