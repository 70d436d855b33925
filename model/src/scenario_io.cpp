#include <clustertwin/model/scenario_io.hpp>

#include "json_util.hpp"
#include "scenario_io_parts.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>

namespace ct::model {

using detail::json;
using detail::num;
using detail::ObjReader;
using detail::ojson;
using detail::putExtras;
using detail::putIfNotEmpty;
using detail::readList;
using detail::readNetwork;
using detail::vec2;
using detail::writeNetwork;

namespace {

// ---------------------------------------------------------------- reading

void read(ObjReader& r, PowerChain& pc, Diagnostics& d) {
    readList(r, "feeds", false, pc.feeds, d, [](ObjReader& x, UtilityFeed& f) {
        x.get("id", f.id, true);
        x.get("name", f.name);
        x.get("capacity_w", f.capacity_w, true);
        x.get("ramp_limit_w_per_s", f.ramp_limit_w_per_s);
    });
    readList(r, "transformers", false, pc.transformers, d, [](ObjReader& x, Transformer& t) {
        x.get("id", t.id, true);
        x.get("name", t.name);
        x.get("feed", t.feed, true);
        x.get("capacity_w", t.capacity_w, true);
        x.get("efficiency", t.efficiency);
    });
    readList(r, "ups", false, pc.ups, d, [](ObjReader& x, Ups& u) {
        x.get("id", u.id, true);
        x.get("name", u.name);
        x.get("model", u.model, true);
        x.get("feed", u.feed, true);
        x.get("modules", u.modules);
    });
    readList(r, "pdus", false, pc.pdus, d, [](ObjReader& x, Pdu& p) {
        x.get("id", p.id, true);
        x.get("name", p.name);
        x.get("ups", p.ups, true);
        x.get("capacity_w", p.capacity_w, true);
    });
}

void readProfile(ObjReader& r, UtilizationProfile& p) {
    r.get("kind", p.kind, true);
    r.get("level", p.level);
    r.get("mean", p.mean);
    r.get("amplitude", p.amplitude);
    r.get("period_s", p.period_s);
    r.get("phase_s", p.phase_s);
    if (const json* pts = r.member("points")) {
        bool ok = pts->is_array();
        std::vector<std::pair<double, double>> v;
        for (std::size_t i = 0; ok && i < pts->size(); ++i) {
            const json& e = (*pts)[i];
            ok = e.is_array() && e.size() == 2 && e[0].is_number() && e[1].is_number();
            if (ok) v.emplace_back(e[0].get<double>(), e[1].get<double>());
        }
        if (ok) p.points = std::move(v);
        else r.error(r.pointer("points"), "expected [[time_s, utilization], ...]");
    }
}

ojson writeProfile(const UtilizationProfile& p) {
    ojson o;
    o["kind"] = p.kind;
    if (p.kind == "constant") o["level"] = num(p.level);
    if (p.kind == "diurnal") {
        o["mean"] = num(p.mean);
        o["amplitude"] = num(p.amplitude);
        o["period_s"] = num(p.period_s);
        o["phase_s"] = num(p.phase_s);
    }
    if (p.kind == "steps" || p.kind == "list") {
        ojson a = ojson::array();
        for (const auto& [t, u] : p.points) a.push_back(ojson::array({num(t), num(u)}));
        o["points"] = std::move(a);
    }
    putExtras(o, p.extra);
    return o;
}

void readTraining(ObjReader& r, TrainingSpec& t) {
    r.get("model_params", t.model_params, true);
    r.get("tokens_per_step", t.tokens_per_step, true);
    r.get("tensor_parallel", t.tensor_parallel);
    r.get("pipeline_parallel", t.pipeline_parallel);
    r.get("efficiency", t.efficiency);
    r.get("comm_overlap", t.comm_overlap);
    r.get("bytes_per_param", t.bytes_per_param);
    r.get("hidden_size", t.hidden_size);
    r.get("layers", t.layers);
    r.get("context_parallel", t.context_parallel);
    r.get("expert_parallel", t.expert_parallel);
    r.get("seq_len", t.seq_len);
    r.get("micro_batch", t.micro_batch);
    r.get("virtual_stages", t.virtual_stages);
    r.get("zero_stage", t.zero_stage);
    r.get("heads", t.heads);
    r.get("kv_heads", t.kv_heads);
    r.get("experts", t.experts);
    r.get("top_k", t.top_k);
    r.get("active_params", t.active_params);
    r.get("recompute", t.recompute);
    r.get("rank_order", t.rank_order);
    r.get("attention_efficiency", t.attention_efficiency);
    r.get("ffn_hidden_size", t.ffn_hidden_size);
    r.get("vocab_size", t.vocab_size);
    r.get("mlp", t.mlp);
    r.get("checkpoint_interval_s", t.checkpoint_interval_s);
    r.get("checkpoint_bytes", t.checkpoint_bytes);
    r.get("storage_gbytes_per_s", t.storage_gbytes_per_s);
    r.get("detection_s", t.detection_s);
    r.get("restart_s", t.restart_s);
}

ojson writeTraining(const TrainingSpec& t) {
    ojson o;
    o["model_params"] = num(t.model_params);
    o["tokens_per_step"] = num(t.tokens_per_step);
    o["tensor_parallel"] = t.tensor_parallel;
    o["pipeline_parallel"] = t.pipeline_parallel;
    if (t.efficiency) o["efficiency"] = num(t.efficiency);
    o["comm_overlap"] = num(t.comm_overlap);
    o["bytes_per_param"] = num(t.bytes_per_param);
    if (t.hidden_size) o["hidden_size"] = t.hidden_size;
    if (t.layers) o["layers"] = t.layers;
    const TrainingSpec d;  // the rest only when not the default
    if (t.context_parallel != d.context_parallel) o["context_parallel"] = t.context_parallel;
    if (t.expert_parallel != d.expert_parallel) o["expert_parallel"] = t.expert_parallel;
    if (t.seq_len) o["seq_len"] = t.seq_len;
    if (t.micro_batch != d.micro_batch) o["micro_batch"] = t.micro_batch;
    if (t.virtual_stages != d.virtual_stages) o["virtual_stages"] = t.virtual_stages;
    if (t.zero_stage != d.zero_stage) o["zero_stage"] = t.zero_stage;
    if (t.heads) o["heads"] = t.heads;
    if (t.kv_heads) o["kv_heads"] = t.kv_heads;
    if (t.experts) o["experts"] = t.experts;
    if (t.top_k != d.top_k) o["top_k"] = t.top_k;
    if (t.active_params) o["active_params"] = num(t.active_params);
    if (t.recompute) o["recompute"] = num(t.recompute);
    if (t.rank_order != d.rank_order) o["rank_order"] = t.rank_order;
    if (t.attention_efficiency) o["attention_efficiency"] = num(t.attention_efficiency);
    if (t.ffn_hidden_size) o["ffn_hidden_size"] = t.ffn_hidden_size;
    if (t.vocab_size) o["vocab_size"] = t.vocab_size;
    if (t.mlp != d.mlp) o["mlp"] = t.mlp;
    if (t.checkpoint_interval_s) o["checkpoint_interval_s"] = num(t.checkpoint_interval_s);
    if (t.checkpoint_bytes) o["checkpoint_bytes"] = num(t.checkpoint_bytes);
    if (t.storage_gbytes_per_s != d.storage_gbytes_per_s) o["storage_gbytes_per_s"] = num(t.storage_gbytes_per_s);
    if (t.detection_s != d.detection_s) o["detection_s"] = num(t.detection_s);
    if (t.restart_s != d.restart_s) o["restart_s"] = num(t.restart_s);
    putExtras(o, t.extra);
    return o;
}

void readInference(ObjReader& r, InferenceSpec& i) {
    r.get("model_params", i.model_params, true);
    r.get("requests_per_s", i.requests_per_s, true);
    r.get("tokens_per_request", i.tokens_per_request, true);
    r.get("efficiency", i.efficiency);
    r.get("prompt_tokens", i.prompt_tokens);
    r.get("serving", i.serving);
    r.get("tensor_parallel", i.tensor_parallel);
    r.get("prefill_gpus", i.prefill_gpus);
    r.get("max_batch", i.max_batch);
    r.get("layers", i.layers);
    r.get("hidden_size", i.hidden_size);
    r.get("heads", i.heads);
    r.get("kv_heads", i.kv_heads);
    r.get("bytes_per_param", i.bytes_per_param);
    r.get("memory_efficiency", i.memory_efficiency);
    r.get("arrivals", i.arrivals);
    if (const json* a = r.member("arrival_times_s")) {
        if (!a->is_array()) r.error(r.pointer("arrival_times_s"), "expected an array of times in seconds");
        else
            for (std::size_t k = 0; k < a->size(); ++k) {
                if ((*a)[k].is_number()) i.arrival_times_s.push_back((*a)[k].get<double>());
                else r.error(r.pointer("arrival_times_s") + "/" + std::to_string(k), "expected a number (seconds)");
            }
    }
}

ojson writeInference(const InferenceSpec& i) {
    ojson o;
    o["model_params"] = num(i.model_params);
    o["requests_per_s"] = num(i.requests_per_s);
    o["tokens_per_request"] = num(i.tokens_per_request);
    o["efficiency"] = num(i.efficiency);
    const InferenceSpec d;
    if (i.prompt_tokens) o["prompt_tokens"] = num(i.prompt_tokens);
    if (i.serving != d.serving) o["serving"] = i.serving;
    if (i.tensor_parallel != d.tensor_parallel) o["tensor_parallel"] = i.tensor_parallel;
    if (i.prefill_gpus) o["prefill_gpus"] = i.prefill_gpus;
    if (i.max_batch != d.max_batch) o["max_batch"] = i.max_batch;
    if (i.layers) o["layers"] = i.layers;
    if (i.hidden_size) o["hidden_size"] = i.hidden_size;
    if (i.heads) o["heads"] = i.heads;
    if (i.kv_heads) o["kv_heads"] = i.kv_heads;
    if (i.bytes_per_param != d.bytes_per_param) o["bytes_per_param"] = num(i.bytes_per_param);
    if (i.memory_efficiency != d.memory_efficiency) o["memory_efficiency"] = num(i.memory_efficiency);
    if (i.arrivals != d.arrivals) o["arrivals"] = i.arrivals;
    if (!i.arrival_times_s.empty()) {
        ojson a = ojson::array();
        for (double t : i.arrival_times_s) a.push_back(num(t));
        o["arrival_times_s"] = std::move(a);
    }
    putExtras(o, i.extra);
    return o;
}

void readJob(ObjReader& x, Job& j, Diagnostics& d) {
    x.get("id", j.id, true);
    x.get("name", j.name);
    x.get("kind", j.kind);
    x.get("nodes", j.nodes);
    x.get("gpus", j.gpus);
    x.get("placement", j.placement);
    x.get("start_s", j.start_s);
    x.get("end_s", j.end_s);
    x.get("utilization", j.utilization);
    if (const json* pj = x.member("profile")) {
        ObjReader pr(*pj, x.pointer("profile"), d);
        if (pr.valid()) {
            UtilizationProfile p;
            readProfile(pr, p);
            p.extra = pr.finish();
            j.profile = std::move(p);
        }
    }
    if (const json* tj = x.member("training")) {
        ObjReader tr(*tj, x.pointer("training"), d);
        if (tr.valid()) {
            TrainingSpec t;
            readTraining(tr, t);
            t.extra = tr.finish();
            j.training = std::move(t);
        }
    }
    if (const json* ij = x.member("inference")) {
        ObjReader ir(*ij, x.pointer("inference"), d);
        if (ir.valid()) {
            InferenceSpec i;
            readInference(ir, i);
            i.extra = ir.finish();
            j.inference = std::move(i);
        }
    }
}

void readEvent(ObjReader& x, Event& e) {
    x.get("time_s", e.time_s, true);
    x.get("kind", e.kind, true);
    x.get("target", e.target, true);
    x.get("value", e.value);
}

template <class T>
void readObject(ObjReader& parent, const char* key, T& out, Diagnostics& d, void (*fn)(ObjReader&, T&, Diagnostics&)) {
    if (const json* j = parent.member(key)) {
        ObjReader r(*j, parent.pointer(key), d);
        if (!r.valid()) return;
        fn(r, out, d);
        out.extra = r.finish();
    }
}

// ---------------------------------------------------------------- writing

ojson write(const PowerChain& pc) {
    ojson o;
    ojson feeds = ojson::array();
    for (const auto& f : pc.feeds) {
        ojson x;
        x["id"] = f.id;
        putIfNotEmpty(x, "name", f.name);
        x["capacity_w"] = num(f.capacity_w);
        if (f.ramp_limit_w_per_s > 0) x["ramp_limit_w_per_s"] = num(f.ramp_limit_w_per_s);
        putExtras(x, f.extra);
        feeds.push_back(std::move(x));
    }
    o["feeds"] = std::move(feeds);
    if (!pc.transformers.empty()) {
        ojson txs = ojson::array();
        for (const auto& t : pc.transformers) {
            ojson x;
            x["id"] = t.id;
            putIfNotEmpty(x, "name", t.name);
            x["feed"] = t.feed;
            x["capacity_w"] = num(t.capacity_w);
            x["efficiency"] = num(t.efficiency);
            putExtras(x, t.extra);
            txs.push_back(std::move(x));
        }
        o["transformers"] = std::move(txs);
    }
    ojson ups = ojson::array();
    for (const auto& u : pc.ups) {
        ojson x;
        x["id"] = u.id;
        putIfNotEmpty(x, "name", u.name);
        x["model"] = u.model;
        x["feed"] = u.feed;
        x["modules"] = u.modules;
        putExtras(x, u.extra);
        ups.push_back(std::move(x));
    }
    o["ups"] = std::move(ups);
    ojson pdus = ojson::array();
    for (const auto& p : pc.pdus) {
        ojson x;
        x["id"] = p.id;
        putIfNotEmpty(x, "name", p.name);
        x["ups"] = p.ups;
        x["capacity_w"] = num(p.capacity_w);
        putExtras(x, p.extra);
        pdus.push_back(std::move(x));
    }
    o["pdus"] = std::move(pdus);
    putExtras(o, pc.extra);
    return o;
}

}  // namespace

LoadResult parseScenario(std::string_view text, const std::string& file) {
    LoadResult res;
    Diagnostics& d = res.diagnostics;
    Scenario& s = res.scenario;
    const json doc = detail::parseJson(text, file);
    ObjReader r(doc, "", d);
    if (!r.valid()) return res;

    std::string format;
    if (r.get("format", format, true) && format != kScenarioFormatName)
        r.error("/format", "expected \"" + std::string(kScenarioFormatName) + "\", got \"" + format + "\"");
    if (r.get("version", s.version, true) && s.version != kScenarioFormatVersion) {
        r.error("/version", "unsupported format version " + std::to_string(s.version) + " (this program reads " +
                                std::to_string(kScenarioFormatVersion) + ")");
    }
    r.get("id", s.id, true);
    r.get("name", s.name);
    r.get("description", s.description);
    readObject<Site>(r, "site", s.site, d, [](ObjReader& x, Site& site, Diagnostics&) {
        x.get("id", site.id, true);
        x.get("name", site.name);
        x.get("location", site.location);
    });
    readList(r, "halls", true, s.halls, d, [&](ObjReader& hr, Hall& h) { detail::readHall(hr, h, d); });
    readObject<PowerChain>(r, "power", s.power, d, [](ObjReader& x, PowerChain& pc, Diagnostics& dd) { read(x, pc, dd); });
    readObject<Plant>(r, "plant", s.plant, d, [](ObjReader& x, Plant& p, Diagnostics& dd) {
        x.get("chiller_cop", p.chiller_cop);
        x.get("pump_power_w", p.pump_power_w);
        x.get("facility_water_temp_c", p.facility_water_temp_c);
        readList(x, "loops", false, p.loops, dd, [](ObjReader& lr, WaterLoop& l) {
            lr.get("id", l.id, true);
            lr.get("name", l.name);
            lr.get("supply_temp_c", l.supply_temp_c);
            lr.get("capacity_w", l.capacity_w);
        });
    });
    readObject<SimulationSettings>(r, "simulation", s.simulation, d, [](ObjReader& x, SimulationSettings& o, Diagnostics&) {
        x.get("air", o.air);
        x.get("unit_airflow_margin", o.unit_airflow_margin);
    });
    readObject<Network>(r, "network", s.network, d, [](ObjReader& x, Network& n, Diagnostics& dd) { readNetwork(x, n, dd); });
    readList(r, "jobs", false, s.jobs, d, [&](ObjReader& x, Job& j) { readJob(x, j, d); });
    readList(r, "events", false, s.events, d, readEvent);
    readList(r, "telemetry_mapping", false, s.telemetry_mapping, d, [](ObjReader& x, MappingRule& m) {
        x.get("label", m.label);
        x.get("pattern", m.pattern, true);
        x.get("entity", m.entity, true);
    });
    if (const json* c = r.member("catalog")) {
        if (c->is_object()) s.catalog_json = c->dump();
        else r.error("/catalog", "expected an object, got " + detail::typeName(*c));
    }
    if (const json* c = r.member("calibration")) {
        if (c->is_object()) s.calibration_json = c->dump();
        else r.error("/calibration", "expected an object, got " + detail::typeName(*c));
    }
    s.extra = r.finish();
    s.linkParents();
    return res;
}

std::string scenarioHash(const Scenario& s) {
    std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a, 64 bit
    for (unsigned char c : scenarioToJson(s)) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    static const char* hex = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = hex[h & 15];
    return out;
}

/// The scenario as its file format writes it, field by field in the schema's order (docs/scenario-format.md). Over 80
/// lines on purpose: one line per top-level field, in the order the file shows them; splitting it would scatter
/// the format's field list.
std::string scenarioToJson(const Scenario& s) {
    ojson o;
    o["format"] = kScenarioFormatName;
    o["version"] = s.version;
    o["id"] = s.id;
    putIfNotEmpty(o, "name", s.name);
    putIfNotEmpty(o, "description", s.description);
    {
        ojson site;
        site["id"] = s.site.id;
        putIfNotEmpty(site, "name", s.site.name);
        putIfNotEmpty(site, "location", s.site.location);
        putExtras(site, s.site.extra);
        o["site"] = std::move(site);
    }
    {
        ojson plant;
        plant["chiller_cop"] = num(s.plant.chiller_cop);
        plant["pump_power_w"] = num(s.plant.pump_power_w);
        plant["facility_water_temp_c"] = num(s.plant.facility_water_temp_c);
        if (!s.plant.loops.empty()) {
            ojson loops = ojson::array();
            for (const auto& l : s.plant.loops) {
                ojson x;
                x["id"] = l.id;
                putIfNotEmpty(x, "name", l.name);
                x["supply_temp_c"] = num(l.supply_temp_c);
                x["capacity_w"] = num(l.capacity_w);
                putExtras(x, l.extra);
                loops.push_back(std::move(x));
            }
            plant["loops"] = std::move(loops);
        }
        putExtras(plant, s.plant.extra);
        o["plant"] = std::move(plant);
    }
    if (!s.simulation.air.empty() || s.simulation.unit_airflow_margin || !s.simulation.extra.empty()) {
        ojson sim;
        putIfNotEmpty(sim, "air", s.simulation.air);
        if (s.simulation.unit_airflow_margin) sim["unit_airflow_margin"] = num(*s.simulation.unit_airflow_margin);
        putExtras(sim, s.simulation.extra);
        o["simulation"] = std::move(sim);
    }
    o["power"] = write(s.power);
    o["network"] = writeNetwork(s.network);
    ojson halls = ojson::array();
    for (const auto& h : s.halls) halls.push_back(detail::writeHall(h));
    o["halls"] = std::move(halls);
    if (!s.jobs.empty()) {
        ojson jobs = ojson::array();
        for (const auto& j : s.jobs) {
            ojson x;
            x["id"] = j.id;
            putIfNotEmpty(x, "name", j.name);
            x["kind"] = j.kind;
            if (!j.nodes.empty() || j.gpus == 0) x["nodes"] = j.nodes;
            if (j.gpus) x["gpus"] = j.gpus;
            if (j.placement != "packed") x["placement"] = j.placement;
            x["start_s"] = num(j.start_s);
            if (j.end_s) x["end_s"] = num(*j.end_s);
            x["utilization"] = num(j.utilization);
            if (j.profile) x["profile"] = writeProfile(*j.profile);
            if (j.training) x["training"] = writeTraining(*j.training);
            if (j.inference) x["inference"] = writeInference(*j.inference);
            putExtras(x, j.extra);
            jobs.push_back(std::move(x));
        }
        o["jobs"] = std::move(jobs);
    }
    if (!s.events.empty()) {
        ojson events = ojson::array();
        for (const auto& e : s.events) {
            ojson x;
            x["time_s"] = num(e.time_s);
            x["kind"] = e.kind;
            x["target"] = e.target;
            if (e.value) x["value"] = num(*e.value);
            putExtras(x, e.extra);
            events.push_back(std::move(x));
        }
        o["events"] = std::move(events);
    }
    if (!s.telemetry_mapping.empty()) {
        ojson rules = ojson::array();
        for (const auto& m : s.telemetry_mapping) {
            ojson x;
            x["label"] = m.label;
            x["pattern"] = m.pattern;
            x["entity"] = m.entity;
            putExtras(x, m.extra);
            rules.push_back(std::move(x));
        }
        o["telemetry_mapping"] = std::move(rules);
    }
    if (!s.catalog_json.empty()) o["catalog"] = ojson::parse(s.catalog_json);
    if (!s.calibration_json.empty()) o["calibration"] = ojson::parse(s.calibration_json);
    putExtras(o, s.extra);
    return o.dump(2) + "\n";
}

EventsResult parseEvents(std::string_view text, const std::string& file) {
    EventsResult res;
    const json doc = detail::parseJson(text, file);
    if (doc.is_array()) {
        for (std::size_t i = 0; i < doc.size(); ++i) {
            ObjReader x(doc[i], detail::ptrJoin("", i), res.diagnostics);
            if (!x.valid()) continue;
            Event e;
            readEvent(x, e);
            e.extra = x.finish();
            res.events.push_back(std::move(e));
        }
        return res;
    }
    ObjReader r(doc, "", res.diagnostics);
    if (!r.valid()) return res;
    res.pointer_prefix = "/events";
    readList(r, "events", true, res.events, res.diagnostics, readEvent);
    r.finish();
    return res;
}

JobsResult parseJobs(std::string_view text, const std::string& file) {
    JobsResult res;
    const json doc = detail::parseJson(text, file);
    auto one = [&](const json& e, const std::string& ptr) {
        ObjReader x(e, ptr, res.diagnostics);
        if (!x.valid()) return;
        Job j;
        readJob(x, j, res.diagnostics);
        j.extra = x.finish();
        res.jobs.push_back(std::move(j));
    };
    if (doc.is_array()) {
        for (std::size_t i = 0; i < doc.size(); ++i) one(doc[i], detail::ptrJoin("", i));
        return res;
    }
    ObjReader r(doc, "", res.diagnostics);
    if (!r.valid()) return res;
    res.pointer_prefix = "/jobs";
    r.forEach("jobs", true, one);
    r.finish();
    return res;
}

}  // namespace ct::model
