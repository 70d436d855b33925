// The fabric routed as real fabrics are (issue 20): exact oversubscription and size checks, D-mod-k and ECMP
// routing that depend only on where hosts are cabled, explicit fabrics with parallel cables and overrides,
// and the `flows` and `collective` commands against docs/reference/network.md.
#include <QJsonArray>
#include <QString>

#include "cli_run.hpp"
#include "sim_fixtures.hpp"

#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/fabric.hpp>
#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/jobs.hpp>
#include <clustertwin/sim/nccl.hpp>

#include <QFile>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include "test_paths.hpp"

using namespace ct;
using namespace ct::sim::net;

namespace {
constexpr double GB = 1e9;
bool within(double got, double want, double rel) { return std::fabs(got - want) <= rel * std::fabs(want); }

/// The sample with every list that a file may order differently reversed: rows, racks in rows, nodes in racks.
model::Scenario reordered(model::Scenario s) {
    for (auto& h : s.halls) {
        std::reverse(h.rows.begin(), h.rows.end());
        for (auto& row : h.rows) {
            std::reverse(row.racks.begin(), row.racks.end());
            for (auto& r : row.racks) std::reverse(r.nodes.begin(), r.nodes.end());
        }
    }
    s.linkParents();
    return s;
}

std::vector<int> packedRanks(const ScenarioFabric& f) {
    std::vector<int> ranks;
    for (int n : f.cabling_order) ranks.insert(ranks.end(), f.gpus_of_node[n].begin(), f.gpus_of_node[n].end());
    return ranks;
}

/// Bytes per link direction by its name, for comparing fabrics built from different files.
std::map<std::string, double> bytesByLink(const Topology& t, const std::vector<double>& arc_bytes) {
    std::map<std::string, double> m;
    for (int a = 0; a < t.arcCount(); ++a)
        if (arc_bytes[a] > 0) m[t.node(t.arc(a).from).id + "->" + t.node(t.arc(a).to).id] += arc_bytes[a];
    return m;
}

/// A scenario of 16 DGX H100 nodes (2 rows of 2 racks of 4) whose fabric is `links` between `switches`.
model::Scenario explicitScenario(std::vector<model::NetworkSwitch> switches, std::vector<model::NetworkLink> links) {
    model::HallParams p;
    p.rows = 2;
    p.racks_per_row = 2;
    p.nodes_per_rack = 4;
    p.topology = "none";
    model::Scenario s = model::buildHall(p);
    s.network.topology = "explicit";
    s.network.switches = std::move(switches);
    s.network.links = std::move(links);
    return s;
}

std::vector<std::string> nodeIds(const model::Scenario& s) {
    std::vector<std::string> ids;
    for (const auto& ref : model::nodesInCablingOrder(s)) ids.push_back(s.halls[ref.hall].rows[ref.row].racks[ref.rack].nodes[ref.node].id);
    return ids;
}

QString save(const QTemporaryDir& dir, const char* name, const model::Scenario& s) {
    const QString path = dir.filePath(name);
    model::saveScenarioFile(s, path.toStdString());
    return path;
}

QString write(const QTemporaryDir& dir, const char* name, const QByteArray& text) {
    const QString path = dir.filePath(name);
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(text);
    return path;
}
}  // namespace

class TstFabric : public QObject {
    Q_OBJECT
private slots:
    void oversubscriptionIsExact();
    void fabricSizeIsValidated();
    void dmodkIsContentionFreeDownwards();
    void dmodkRingsRunAtTheIdealTime();
    void routesIgnoreTheFileOrder();
    void collectiveAndJobsAgree();
    void flowsCommandMatchesTheReference();
    void ringOnAnExplicitFatTreeMatchesSimGrid();
    void parallelCablesAndOverrides();
    void badFabricsAreClearErrors();
    void importedFabricRoutesAsCabled();
    void inNetworkReductionNeedsEverySwitch();
};

void TstFabric::oversubscriptionIsExact() {
    auto s = model::fatTreeShape(64, 2, 2);
    QVERIFY(s.error.empty());
    QCOMPARE(s.down, 42);
    QCOMPARE(s.up, 21);
    QCOMPARE(s.max_hosts, 64LL * 42);
    s = model::fatTreeShape(64, 2, 1);
    QCOMPARE(s.down, 32);
    QCOMPARE(s.up, 32);
    s = model::fatTreeShape(64, 3, 1.5);
    QCOMPARE(s.down, 36);
    QCOMPARE(s.up, 24);
    QCOMPARE(s.max_hosts, 64LL * 32 * 36);
    s = model::fatTreeShape(64, 2, 1.37);
    QVERIFY2(!s.error.empty() && QString::fromStdString(s.error).contains("radix-64"), s.error.c_str());
    // Built: every leaf splits 42 down and 21 up; 64 nodes of 8 GPUs fill 12 leaves and 8 hosts of the 13th.
    ClusterParams p;
    p.nodes = 64;
    p.gpus_per_node = 8;
    p.topology = "fat-tree";
    p.oversubscription = 2;
    const Topology t = buildCluster(p);
    for (int l = 0; l < 13; ++l) {
        const int leaf = t.find("leaf" + std::to_string(l));
        QVERIFY(leaf >= 0);
        int hosts = 0, up = 0;
        for (int a : t.out(leaf)) (t.node(t.arc(a).to).kind == NodeKind::Host ? hosts : up)++;
        QCOMPARE(up, 21);
        QCOMPARE(hosts, l < 12 ? 42 : 512 - 12 * 42);
    }
    QCOMPARE(t.find("leaf13"), -1);
}

void TstFabric::fabricSizeIsValidated() {
    // 16,384 GPUs need three levels of radix-64 switches: asked for two, the builder and the validator say so.
    model::HallParams p;
    p.gpus = 16384;
    p.fat_tree_levels = 2;
    try {
        model::buildHall(p);
        QFAIL("a two-level radix-64 tree for 16,384 GPUs was built");
    } catch (const model::ModelError& e) {
        QVERIFY2(QString(e.what()).contains("connects at most 2048"), e.what());
    }
    p.fat_tree_levels = 0;  // the fewest that connect them
    const model::Scenario s = model::buildHall(p);
    QCOMPARE(s.network.levels, 3);
    QVERIFY(!model::hasErrors(model::validateScenario(s, model::Catalog::builtin())));
    // A sample made too big for its radix fails validation at the field, before any command builds it.
    auto l = fixtures::sample("superpod-h100-su");
    l.scenario.network.radix = 16;
    bool found = false;
    for (const auto& d : model::validateScenario(l.scenario, l.catalog))
        found = found || (d.severity == model::Severity::Error && d.location == "/network/levels" &&
                          d.message.find("connects at most 128") != std::string::npos);
    QVERIFY(found);
}

void TstFabric::dmodkIsContentionFreeDownwards() {
    // A full-bisection 2-level tree: under D-mod-k every spine→leaf link carries the traffic of one destination,
    // whatever the permutation; hashing cannot promise that.
    ClusterParams p;
    p.nodes = 32;
    p.gpus_per_node = 4;
    p.topology = "fat-tree";
    p.radix = 16;
    Topology t = buildCluster(p);
    Router r(t);
    const auto hosts = t.hosts();
    std::mt19937 rng(11);
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<int> perm(hosts.size());
        for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(i);
        std::shuffle(perm.begin(), perm.end(), rng);
        std::map<int, std::set<int>> dests_on;
        for (std::size_t i = 0; i < hosts.size(); ++i) {
            if (perm[i] == static_cast<int>(i)) continue;
            for (int a : r.route(hosts[i], hosts[perm[i]]))
                if (t.node(t.arc(a).from).level == 2) dests_on[a].insert(perm[i]);
        }
        for (const auto& [a, d] : dests_on) QCOMPARE(d.size(), std::size_t(1));
    }
}

void TstFabric::dmodkRingsRunAtTheIdealTime() {
    // Rings in strided rank orders on 32 hosts of a radix-8 tree (4 down, 4 up): D-mod-k gives each a
    // contention-free path, so a ring all-reduce takes 2(n−1) steps of (S/n)/B plus the 4-link latency; ECMP's
    // hash collides on some and is never faster.
    Topology t = smallFatTree(4, 8, 4, 50 * GB, 1e-6);
    Topology e = smallFatTree(4, 8, 4, 50 * GB, 1e-6);
    e.setRouting(Routing::Ecmp);
    Router rd(t), re(e);
    const int n = 32;
    const double S = std::pow(2.0, 30);
    const double ideal = 2.0 * (n - 1) * (S / n / (50 * GB) + 4e-6);
    double worst_ecmp = 0;
    for (int k : {1, 2, 4, 8, 16}) {
        std::vector<int> ranks;
        for (int j = 0; j < k; ++j)
            for (int i = j; i < n; i += k) ranks.push_back(t.find("h" + std::to_string(i)));
        const double td = runCollective(t, rd, CollectiveOp::AllReduce, ranks, S).time_s;
        const double te = runCollective(e, re, CollectiveOp::AllReduce, ranks, S).time_s;
        qInfo("stride %2d: dmodk %.6f s, ecmp %.6f s, ideal %.6f s", k, td, te, ideal);
        QVERIFY2(within(td, ideal, 1e-6), qPrintable(QString("stride %1: %2 s").arg(k).arg(td)));
        QVERIFY(te >= td * (1 - 1e-9));
        worst_ecmp = std::max(worst_ecmp, te / td);
    }
    QVERIFY(worst_ecmp > 1.2);  // the problem D-mod-k removes
}

void TstFabric::routesIgnoreTheFileOrder() {
    const auto l = fixtures::sample("superpod-h100-su");
    for (const char* routing : {"dmodk", "ecmp"}) {
        model::Scenario a = l.scenario;
        a.network.routing = routing;
        const model::Scenario b = reordered(a);
        QVERIFY(!model::hasErrors(model::validateScenario(b, l.catalog)));
        ScenarioFabric fa = buildScenarioFabric(a, l.catalog), fb = buildScenarioFabric(b, l.catalog);
        for (const auto& id : fa.node_ids)
            for (int g = 0; g < 8; ++g) {
                const std::string gpu = id + "/gpu" + std::to_string(g);
                QCOMPARE(fa.topology.node(fa.topology.find(gpu)).address, fb.topology.node(fb.topology.find(gpu)).address);
            }
        Router ra(fa.topology), rb(fb.topology);
        const std::vector<int> ranks_a = packedRanks(fa), ranks_b = packedRanks(fb);
        for (std::size_t i = 0; i < ranks_a.size(); ++i) QCOMPARE(fa.topology.node(ranks_a[i]).id, fb.topology.node(ranks_b[i]).id);
        const double S = std::pow(2.0, 28);
        for (int stride : {1, 8, 32}) {  // rings that cross the spines
            std::vector<int> oa, ob;
            for (int j = 0; j < stride; ++j)
                for (std::size_t i = static_cast<std::size_t>(j); i < ranks_a.size(); i += stride) {
                    oa.push_back(ranks_a[i]);
                    ob.push_back(ranks_b[i]);
                }
            const auto x = runCollective(fa.topology, ra, CollectiveOp::AllReduce, oa, S);
            const auto y = runCollective(fb.topology, rb, CollectiveOp::AllReduce, ob, S);
            QCOMPARE(x.time_s, y.time_s);
            QVERIFY(bytesByLink(fa.topology, x.arc_bytes) == bytesByLink(fb.topology, y.arc_bytes));
        }
    }
}

void TstFabric::collectiveAndJobsAgree() {
    // One data-parallel job (TP = PP = 1) over every GPU, its nodes listed backwards: its communication per step
    // is the all-reduce of its gradients that `collective` runs over the same GPUs, as NCCL runs it (8 channels,
    // one a rail; the tuner's algorithm and protocol).
    auto l = fixtures::sample("superpod-h100-su");
    l.scenario.network.routing = "ecmp";  // the hash makes any difference in rank order visible
    model::Job j;
    j.id = "dp";
    for (const auto& row : l.scenario.halls[0].rows)
        for (const auto& r : row.racks)
            for (const auto& n : r.nodes) j.nodes.insert(j.nodes.begin(), n.id);
    model::TrainingSpec t;
    t.model_params = 1e9;
    t.tokens_per_step = 1 << 20;
    t.tensor_parallel = 1;
    j.training = t;
    l.scenario.jobs = {j};
    sim::JobWorkload w(l.scenario, l.catalog);
    model::Frame prev, out;
    prev.gpus.assign(256, model::GpuFrame{"", 1, 700, 60, 1.0, false});
    w.update(1, 1, prev, out);
    ScenarioFabric f = buildScenarioFabric(l.scenario, l.catalog);
    Router r(f.topology);
    const std::vector<int> ranks = packedRanks(f), server = serverOfHost(f);
    std::vector<int> node_of;
    for (int h : ranks) node_of.push_back(server[static_cast<std::size_t>(h)]);
    NcclChoice how;
    how.architecture = f.gpu_architecture;
    const auto c = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, 2 * 1e9, how);
    qInfo("job %.9f s, collective %.9f s (%s/%s, %d channels)", out.jobs.at(0).comm_time_s, c.time_s, c.algorithm.c_str(),
          c.protocol.c_str(), c.channels);
    QVERIFY(std::fabs(out.jobs.at(0).comm_time_s - c.time_s) <= 1e-9 * c.time_s);
    QCOMPARE(c.channels, 8);
}

void TstFabric::flowsCommandMatchesTheReference() {
    QTemporaryDir dir;
    // Two switches and two GPU ports: A = n0/gpu0 –L1 (100 Gb/s)– B –L2 (40 Gb/s)– C = n1/gpu0, no latency.
    model::Scenario s = explicitScenario({{"B", "", "", 1, "", {}}, {"S1", "", "", 1, "", {}}, {"S2", "", "", 2, "", {}}}, {});
    const auto ids = nodeIds(s);
    const std::string A = ids[0] + "/gpu0", C = ids[1] + "/gpu0";
    s.network.links = {{A, "B", 1, 100, 0.0, {}}, {"B", C, 1, 40, 0.0, {}}, {"S1", "S2", 1, 400, 1e-6, {}}};
    const QString scen = save(dir, "abc.json", s);
    const QString classic = write(dir, "classic.json",
                                  QString(R"({"flows": [
        {"id": "f0", "src": "%1", "dst": "%2", "bytes": 1e10},
        {"id": "f1", "src": "%1", "dst": "B", "bytes": "10GB"},
        {"id": "f2", "src": "B", "dst": "%2", "bytes": 1e10}]})")
                                      .arg(A.c_str(), C.c_str())
                                      .toUtf8());
    auto r = cli({"flows", scen, "--flows", classic, "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    auto flows = r.json()["flows"].toArray();
    const double rate[] = {2.5, 10.0, 2.5}, finish[] = {4.0, 1.0, 4.0};
    for (int i = 0; i < 3; ++i) {
        QVERIFY(within(flows[i].toObject()["rate_GBps"].toDouble(), rate[i], 1e-3));
        QVERIFY(within(flows[i].toObject()["finish_s"].toDouble(), finish[i], 1e-3));
    }
    // N equal flows of 1 GB on one 50 GB/s link of 1 µs (S1 → S2).
    for (int n : {1, 4, 16}) {
        QString list;
        for (int i = 0; i < n; ++i) list += QString(i ? "," : "") + R"({"src": "S1", "dst": "S2", "bytes": 1e9})";
        r = cli({"flows", scen, "--flows", write(dir, "equal.json", ("[" + list + "]").toUtf8()), "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        for (const auto& x : r.json()["flows"].toArray()) {
            QVERIFY(within(x.toObject()["rate_GBps"].toDouble(), 50.0 / n, 1e-3));
            QVERIFY(within(x.toObject()["finish_s"].toDouble(), 0.02 * n + 1e-6, 1e-3));
        }
    }
    // Unequal sizes: 1, 2, 3, 4 GB finish at 0.080001, 0.140001, 0.180001, 0.200001 s by progressive filling.
    r = cli({"flows", scen, "--links", dir.filePath("links.csv"), "--flows",
             write(dir, "unequal.json", R"([{"src": "S1", "dst": "S2", "bytes": "1GB"}, {"src": "S1", "dst": "S2", "bytes": "2GB"},
                                            {"src": "S1", "dst": "S2", "bytes": "3GB"}, {"src": "S1", "dst": "S2", "bytes": "4GB"}])"),
             "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const double end[] = {0.080001, 0.140001, 0.180001, 0.200001};
    flows = r.json()["flows"].toArray();
    for (int i = 0; i < 4; ++i) QVERIFY(within(flows[i].toObject()["finish_s"].toDouble(), end[i], 1e-3));
    // The link file lists every link direction, the busiest first: S1->S2 carried all 10 GB in 0.2 s.
    QFile links(dir.filePath("links.csv"));
    QVERIFY(links.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(links.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines[0], QString("link,cable,capacity_GBps,latency_s,bytes,utilization,failed"));
    QVERIFY2(lines[1].startsWith("S1->S2,S1<->S2,50,1e-06,1e+10,0.99999"), qPrintable(lines[1]));
    QCOMPARE(lines.size(), 1 + 2 * (3 + 16 * 8 * 1));  // 3 cables + 16 nodes' NVLinks, both directions
    // Bad flows: the file and the JSON pointer.
    r = cli({"flows", scen, "--flows", write(dir, "bad.json", R"({"flows": [{"src": "S1", "dst": "nowhere", "bytes": 1}]})")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("bad.json: /flows/0/dst: no GPU port or switch 'nowhere'"), qPrintable(r.err));
}

void TstFabric::ringOnAnExplicitFatTreeMatchesSimGrid() {
    // The reference fat tree (4 leaves × 4 hosts, 2 spines, 50 GB/s and 1 µs everywhere) cabled link by link
    // from each node's gpu0; the ring in host order through `collective --order FILE`.
    QTemporaryDir dir;
    std::vector<model::NetworkSwitch> sw;
    for (int l = 0; l < 4; ++l) sw.push_back({"leaf" + std::to_string(l), "", "", 1, "", {}});
    for (int s = 0; s < 2; ++s) sw.push_back({"spine" + std::to_string(s), "", "", 2, "", {}});
    model::Scenario s = explicitScenario(sw, {});
    const auto ids = nodeIds(s);
    QString order;
    for (int h = 0; h < 16; ++h) {
        s.network.links.push_back({ids[h] + "/gpu0", "leaf" + std::to_string(h / 4), 1, std::nullopt, std::nullopt, {}});
        order += QString::fromStdString(ids[h] + "/gpu0\n");
    }
    for (int l = 0; l < 4; ++l)
        for (int sp = 0; sp < 2; ++sp)
            s.network.links.push_back({"leaf" + std::to_string(l), "spine" + std::to_string(sp), 1, std::nullopt, std::nullopt, {}});
    const QString scen = save(dir, "tree.json", s);
    const auto r = cli({"collective", scen, "--op", "allreduce", "--bytes", "1GiB", "--order", write(dir, "ring.txt", order.toUtf8()),
                        "--model", "fabric", "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const double time = r.json()["time_s"].toDouble();
    qInfo("explicit reference tree: %.9f s (SimGrid 0.040385318)", time);
    QVERIFY(within(time, 0.040385318, 1e-3));
    QVERIFY(within(r.json()["busbw_GBps"].toDouble(), 49.85, 1e-3));
    QCOMPARE(r.json()["routing"].toString(), QString("dmodk"));
}

void TstFabric::parallelCablesAndOverrides() {
    // Two parallel cables S1–S2: two flows share neither; an override halves the second cable only.
    model::Scenario s = explicitScenario({{"S1", "", "", 1, "", {}}, {"S2", "", "", 2, "", {}}}, {{"S1", "S2", 2, 400, 0.0, {}}});
    ScenarioFabric f = buildScenarioFabric(s, model::Catalog::builtin());
    QCOMPARE(f.topology.cablesByName("S1<->S2").size(), std::size_t(2));
    QCOMPARE(f.topology.cableId(f.topology.cableByName("S1<->S2#2")), std::string("S1<->S2#2"));
    // The names people read (the Fabric dock, the inspector): the ends and which of the parallel cables.
    const model::CableName c = model::parseCableId(f.topology.cableId(f.topology.cableByName("S1<->S2#2")));
    QVERIFY(c.valid && c.a == "S1" && c.b == "S2" && c.ordinal == 2);
    QCOMPARE(model::cableLabel("leaf3<->spine0#30"), std::string("leaf3 ↔ spine0, cable 30"));
    QCOMPARE(model::cableLabel("n0001/gpu0<->leaf0"), std::string("n0001/gpu0 ↔ leaf0"));
    QCOMPARE(model::cableLabel("leaf#a<->spine#x"), std::string("leaf#a ↔ spine#x"));
    QCOMPARE(model::cableLabel("crah-01"), std::string("crah-01"));
    s.network.link_overrides = {{"S2<->S1#2", 200, std::nullopt, {}}};
    QVERIFY(!model::hasErrors(model::validateScenario(s, model::Catalog::builtin())));
    f = buildScenarioFabric(s, model::Catalog::builtin());
    const int s1 = f.topology.find("S1"), s2 = f.topology.find("S2");
    std::vector<double> caps;
    for (int a : f.topology.out(s1))
        if (f.topology.arc(a).to == s2) caps.push_back(f.topology.arc(a).capacity_Bps);
    QCOMPARE(caps, (std::vector<double>{50 * GB, 25 * GB}));
    s.network.link_overrides = {{"S1<->S3", 200, std::nullopt, {}}};
    QVERIFY_THROWS_EXCEPTION(sim::SimError, buildScenarioFabric(s, model::Catalog::builtin()));
}

void TstFabric::inNetworkReductionNeedsEverySwitch() {
    // NCCL's CollNet (SHARP) runs only where every switch reduces in the network: the network's switch model and
    // each explicit switch's own where it names one (the catalog's in_network_reduction: the QM9700 has it, an
    // Ethernet SN5600 not).
    model::Scenario s =
        explicitScenario({{"S1", "", "", 1, "", {}}, {"S2", "", "ib-ndr-qm9700", 2, "", {}}}, {{"S1", "S2", 1, 400, 0.0, {}}});
    s.network.switch_model = "ib-ndr-qm9700";
    QVERIFY(buildScenarioFabric(s, model::Catalog::builtin()).in_network_reduction);
    s.network.switches[1].model = "eth-sn5600-400g";
    QVERIFY(!buildScenarioFabric(s, model::Catalog::builtin()).in_network_reduction);
    s.network.switches[1].model.clear();
    s.network.switch_model = "eth-sn5600-400g";
    QVERIFY(!buildScenarioFabric(s, model::Catalog::builtin()).in_network_reduction);
    QVERIFY(model::Catalog::builtin().switchModel("ib-ndr-qm9700")->in_network_reduction);
}

void TstFabric::badFabricsAreClearErrors() {
    model::Scenario s = explicitScenario({{"S1", "", "", 1, "", {}}}, {{"S1", "n-missing/gpu0", 1, std::nullopt, std::nullopt, {}}});
    const auto ids = nodeIds(s);
    s.network.links.push_back({"S1", ids[0] + "/gpu9", 1, std::nullopt, std::nullopt, {}});
    s.network.links.push_back({ids[1] + "/gpu0", "S1", 0, std::nullopt, std::nullopt, {}});
    s.network.routing = "ospf";
    std::map<std::string, std::string> errors;
    for (const auto& d : model::validateScenario(s, model::Catalog::builtin()))
        if (d.severity == model::Severity::Error) errors[d.location] = d.message;
    QVERIFY(errors.count("/network/links/0/b") && errors["/network/links/0/b"].find("unknown node 'n-missing'") != std::string::npos);
    QVERIFY(errors.count("/network/links/1/b") && errors["/network/links/1/b"].find("GPUs 0..7") != std::string::npos);
    QVERIFY(errors.count("/network/links/2/count"));
    QVERIFY(errors.count("/network/routing"));
    model::HallParams p;
    p.oversubscription = 1.37;
    QVERIFY_THROWS_EXCEPTION(model::ModelError, model::buildHall(p));
}

void TstFabric::importedFabricRoutesAsCabled() {
    // The real ports report of an OSC cluster (trimmed): o0001 and o0002 on leaf ib-i1l1s01, p0001 on ib-i4l1s01,
    // which is cabled to nothing else; 4x EDR = 100 Gb/s.
    QTemporaryDir dir;
    model::Scenario s = explicitScenario({}, {});
    s.network.topology = "fat-tree";
    s.network.links.clear();
    const char* hosts[] = {"o0001", "o0002", "p0001"};
    int i = 0;
    for (const auto& ref : model::nodesInCablingOrder(s))
        if (i < 3) s.halls[ref.hall].rows[ref.row].racks[ref.rack].nodes[ref.node].hostname = hosts[i++];
    const auto ids = nodeIds(s);
    const QString scen = save(dir, "osc.json", s), out = dir.filePath("osc-fabric.json");
    const QString disc = QString(CT_SHARED_TESTDATA_DIR) + "/infiniband/infiniband_exporter__ibnetdiscover_test.out";
    auto r = cli({"import-fabric", scen, disc, "-o", out, "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(r.json()["switches"].toInt(), 4);
    QCOMPARE(r.json()["hosts_matched"].toInt(), 3);
    QCOMPARE(r.json()["cables"].toInt(), 4);
    const auto loaded = model::loadAndValidate(out.toStdString());
    QVERIFY(!model::hasErrors(loaded.diagnostics));
    QCOMPARE(loaded.scenario.network.topology, std::string("explicit"));
    const QString o1 = QString::fromStdString(ids[0] + "/gpu0"), o2 = QString::fromStdString(ids[1] + "/gpu0"),
                  p1 = QString::fromStdString(ids[2] + "/gpu0");
    r = cli(
        {"flows", out, "--json", "--flows",
         write(
             dir, "f.json",
             QString(R"([{"src": "%1", "dst": "%2", "bytes": 1e9}, {"src": "%1", "dst": "%3", "bytes": 1e9}])").arg(o1, o2, p1).toUtf8())});
    QCOMPARE(r.code, 1);  // the second has no route: p0001's leaf is cabled to nothing else
    const auto flows = r.json()["flows"].toArray();
    QVERIFY(within(flows[0].toObject()["rate_GBps"].toDouble(), 12.5, 1e-9));
    QVERIFY(flows[1].toObject()["stalled"].toBool());
    QVERIFY(r.err.contains("1 flow(s) have no route"));
    // Hosts the scenario does not have are reported, not dropped silently.
    const QString disc2 = QString(CT_SHARED_TESTDATA_DIR) + "/infiniband/infiniband_exporter__ibnetdiscover_test2.out";
    r = cli({"import-fabric", scen, disc2, "-o", dir.filePath("other.json")});
    QCOMPARE(r.code, 2);  // none of its hosts is in this scenario: nothing to route over
    QVERIFY2(r.err.contains("HCA of 'worker20' left out: no node in the scenario has that hostname or id"), qPrintable(r.err));
    QVERIFY(r.err.contains("nothing written"));
    QVERIFY(!QFile::exists(dir.filePath("other.json")));
}

QTEST_GUILESS_MAIN(TstFabric)
#include "tst_fabric.moc"
