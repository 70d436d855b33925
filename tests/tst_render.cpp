// Issue 5: the 3D scene. Image tests against baselines (contributing.md habit 8), picking, recolouring, bundling.
#include "image_checks.hpp"
#include "sim_fixtures.hpp"

#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/edit.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/runs/replay.hpp>
#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/engine.hpp>

#include <QDir>
#include <QImage>
#include <QTest>

#include <cmath>
#include <set>

namespace r = ct::render;
namespace m = ct::model;

namespace {

/// Pixels of a saturated colour with a hue within [h0, h1] degrees (shading changes lightness, not hue).
int pixelsOfHue(const QImage& img, int h0, int h1) {
    int n = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QColor p = img.pixelColor(x, y).toHsv();
            n += p.hsvSaturation() > 110 && p.value() > 90 && p.hsvHue() >= h0 && p.hsvHue() <= h1;
        }
    return n;
}

/// The image is not blank: several distinct colours cover a fair share of it.
void verifyNotBlank(const QString& png) {
    const QImage img(png);
    QVERIFY(!img.isNull());
    QSet<QRgb> colours;
    for (int y = 0; y < img.height(); y += 4)
        for (int x = 0; x < img.width(); x += 4) colours.insert(img.pixel(x, y) & 0xF0F0F0);
    QVERIFY2(colours.size() > 30, qPrintable(QString("only %1 colours").arg(colours.size())));
}

m::Frame simulate(const fixtures::Loaded& l, double seconds) {
    ct::sim::EngineOptions o;
    o.air = "quick";
    o.threads = 2;
    ct::sim::Engine e(l.scenario, l.catalog, o);
    const int steps = static_cast<int>(seconds / o.step_s);
    for (int s = 1; s < steps; ++s) e.step();
    return e.step(true);
}

/// A hall of 2,560 nodes (40 rows of 16 racks of 4): past Scene's level-of-detail threshold of 1,000.
m::Scenario largeHall(bool with_fabric) {
    m::HallParams p;
    p.rows = 40;
    p.racks_per_row = 16;
    p.nodes_per_rack = 4;
    if (!with_fabric) p.topology = "none";
    return m::buildHall(p);
}

QColor pixelAt(const QString& png, int x, int y) { return QImage(png).pixelColor(x, y); }

}  // namespace

class TstRender : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void imageLab8nodeIsoInlet();
    void imageAirSlice();
    void imageNetworkLinks();
    void pickReturnsTheEntityUnderThePixel();
    void frameRecoloursWithoutRebuilding();
    void aHintSaysWhyTheColoursSayNothing();
    void linksBundleAboveTheLimit();
    void busyLinksAreDrawnThick();
    void hotLinksAreLabelledWithTheirLoad();
    void fastFramesLeaveLabelsToTheFullFrame();
    void farRacksShowTheirWorstNodeInFastFrames();
    void fastFramesOfLargeHallsDrawOnlyBusyLinks();
    void badMetricOrViewIsAnError();
    void replayFrameIsLastKnownValue();
    void closeCoupledCoolingIsDrawnAndExplained();
    void severalHallsStandSideBySide();
    void everyHallsAirFieldIsDrawnAtItsHall();
    void sensorsAreDrawnInTheColourOfWhatTheyRead();

private:
    QString out(const char* name) const { return QDir::current().absoluteFilePath(QString(name) + ".png"); }
};

void TstRender::initTestCase() {
    if (qEnvironmentVariableIsEmpty("DISPLAY")) QSKIP("offscreen VTK rendering needs an X display (Xvfb in CI)");
}

void TstRender::imageLab8nodeIsoInlet() {
    const auto l = fixtures::sample("lab-8node", 0.9);
    const m::Frame f = simulate(l, 300);
    r::RenderOptions o;
    o.width = 640;
    o.height = 400;
    o.metric = "inlet_c";
    r::renderScenarioPng(l.scenario, l.catalog, out("lab8node_iso_inlet").toStdString(), o, &f,
                         ct::sim::net::fabricLinks(l.scenario, l.catalog));
    verifyNotBlank(out("lab8node_iso_inlet"));
    compareWithBaseline(out("lab8node_iso_inlet"), "lab8node_iso_inlet");
}

void TstRender::imageAirSlice() {
    const auto l = fixtures::sample("lab-8node", 0.9);
    const m::Frame f = simulate(l, 300);
    QVERIFY(f.air.has_value());
    r::RenderOptions o;
    o.width = 640;
    o.height = 400;
    o.view = "top";
    o.overlays.floor_slice = true;
    o.overlays.slice_height_m = 1.0;
    o.overlays.links = false;
    r::renderScenarioPng(l.scenario, l.catalog, out("lab8node_air_slice").toStdString(), o, &f);
    verifyNotBlank(out("lab8node_air_slice"));
    compareWithBaseline(out("lab8node_air_slice"), "lab8node_air_slice");
}

void TstRender::imageNetworkLinks() {
    // A 7B data-parallel training job over half the pod loads part of the fabric.
    auto l = fixtures::sample("superpod-h100-su");
    m::Job j;
    j.id = "llm";
    j.kind = "training";
    for (const auto& r : l.scenario.halls[0].rows[0].racks)
        for (const auto& n : r.nodes) j.nodes.push_back(n.id);
    m::TrainingSpec t;
    t.model_params = 7e9;
    t.tokens_per_step = 131072;
    t.tensor_parallel = 8;
    t.efficiency = 0.4;  // the picture's load, whatever the H100's measured matmul share
    j.training = t;
    l.scenario.jobs = {j};
    const m::Frame f = simulate(l, 30);
    QVERIFY2(!f.links.empty(), "the sample's jobs should load the fabric");
    r::RenderOptions o;
    o.width = 640;
    o.height = 400;
    o.metric = "gpu_util";
    o.overlays.labels = false;
    r::renderScenarioPng(l.scenario, l.catalog, out("superpod_links").toStdString(), o, &f,
                         ct::sim::net::fabricLinks(l.scenario, l.catalog));
    verifyNotBlank(out("superpod_links"));
    compareWithBaseline(out("superpod_links"), "superpod_links");
}

void TstRender::pickReturnsTheEntityUnderThePixel() {
    const auto l = fixtures::sample("lab-8node");
    r::Scene scene(l.scenario, l.catalog);
    scene.setSize(640, 400);
    scene.setCamera("top");
    scene.render();
    const auto& rack = l.scenario.halls[0].rows[0].racks[0];
    int x = 0, y = 0;
    QVERIFY(scene.project(rack.id, x, y, true));
    QVERIFY(x > 0 && x < 640 && y > 0 && y < 400);
    QCOMPARE(QString::fromStdString(scene.pick(x, y)), QString::fromStdString(rack.id));
    const auto& unit = l.scenario.halls[0].cooling_units[0];
    QVERIFY(scene.project(unit.id, x, y, true));
    QCOMPARE(QString::fromStdString(scene.pick(x, y)), QString::fromStdString(unit.id));
    QCOMPARE(QString::fromStdString(scene.pick(1, 1)), QString());  // background
    // From the side, the node in front is hit before its rack.
    scene.setCamera("iso");
    scene.render();
    const auto& node = rack.nodes.front();
    QVERIFY(scene.project(node.id, x, y));
    // The node's centre lies inside its rack: near it, the pixels show either the node (its face standing proud
    // of the rack) or the rack's side wall, and at least one shows the node.
    bool node_seen = false;
    for (int dy = -30; dy <= 30; dy += 2)
        for (int dx = -30; dx <= 30; dx += 2) {
            const std::string hit = scene.pick(x + dx, y + dy);
            node_seen = node_seen || hit == node.id;
        }
    QVERIFY(node_seen);
    QVERIFY(!scene.pick(x, y).empty());  // inside the rack's silhouette something is always hit
    QVERIFY(!scene.project("no-such-rack", x, y));
}

void TstRender::frameRecoloursWithoutRebuilding() {
    const auto l = fixtures::sample("lab-8node");
    r::Scene scene(l.scenario, l.catalog);
    scene.setSize(640, 400);
    scene.setMetric("inlet_c");
    scene.setCamera("iso");
    const auto& node = l.scenario.halls[0].rows[0].racks[0].nodes.front();
    m::Frame f;
    f.nodes.push_back({});
    f.nodes.back().id = node.id;
    auto colourFor = [&](double inlet_c) {
        f.nodes.back().inlet_c = inlet_c;
        scene.setFrame(f);
        scene.savePng(out("recolour").toStdString());
        int x = 0, y = 0;
        scene.project(node.id, x, y);
        // Sample a pixel near the node's centre where picking says the node itself is seen.
        for (int r = 0; r < 40; ++r)
            for (int dy = -r; dy <= r; ++dy)
                for (int dx = -r; dx <= r; ++dx)
                    if (scene.pick(x + dx, y + dy) == node.id) return pixelAt(out("recolour"), x + dx, y + dy);
        return QColor();
    };
    const QColor hot = colourFor(39.5), cold = colourFor(15.5);
    QVERIFY2(hot.red() > 2 * hot.blue() && hot.red() > 2 * hot.green(), qPrintable(hot.name()));
    QVERIFY2(cold.blue() > 2 * cold.red(), qPrintable(cold.name()));
    QCOMPARE(scene.nodeCount(), std::size_t(8));
}

void TstRender::aHintSaysWhyTheColoursSayNothing() {
    // Issue 16: before a run, a run metric greyed every node without a word; nameplate painted all alike.
    const auto l = fixtures::sample("lab-8node");
    r::Scene scene(l.scenario, l.catalog);
    scene.setSize(640, 400);
    scene.setMetric("nameplate_kw");
    QVERIFY2(scene.hint().find("All nodes have the same value") != std::string::npos, scene.hint().c_str());
    scene.setMetric("inlet_c");
    QVERIFY2(scene.hint().find("No values yet to colour by node inlet") != std::string::npos, scene.hint().c_str());
    // With values that differ, nothing to say.
    m::Frame f;
    double inlet = 20;
    for (const auto& row : l.scenario.halls[0].rows)
        for (const auto& rack : row.racks)
            for (const auto& n : rack.nodes) {
                f.nodes.push_back({});
                f.nodes.back().id = n.id;
                f.nodes.back().inlet_c = inlet += 1;
            }
    scene.setFrame(f);
    QCOMPARE(scene.hint(), std::string());
    // A run that recorded no GPU values for these nodes says so.
    scene.setMetric("gpu_temp_c");
    QVERIFY2(scene.hint().find("records no") != std::string::npos, scene.hint().c_str());
    // The hint is drawn: the top-left corner is no longer plain background.
    scene.setMetric("inlet_c");
    scene.clearFrame();
    scene.savePng(out("hint").toStdString());
    const QImage img(out("hint"));
    int bright = 0;
    for (int y = 5; y < 40; ++y)
        for (int x = 5; x < 300; ++x) bright += qGray(img.pixel(x, y)) > 180 ? 1 : 0;
    QVERIFY2(bright > 100, qPrintable(QString::number(bright)));
}

void TstRender::linksBundleAboveTheLimit() {
    const auto l = fixtures::sample("superpod-h100-su");
    const auto links = ct::sim::net::fabricLinks(l.scenario, l.catalog);
    // Parallel cables between the same two places share a line.
    std::set<std::pair<std::string, std::string>> places;
    for (const auto& k : links)
        if (k.a.node.empty() || k.b.node.empty() || k.a.node != k.b.node) {
            const std::string a = k.a.node.empty() ? k.a.id : k.a.node, b = k.b.node.empty() ? k.b.id : k.b.node;
            places.insert(std::minmax(a, b));
        }
    const std::size_t cross = places.size();
    QVERIFY(cross > 100);
    r::Scene scene(l.scenario, l.catalog, links);
    r::Overlays o;
    o.max_link_lines = 100000;
    scene.setOverlays(o);
    QCOMPARE(scene.linkLineCount(), cross);  // one line per pair of places a cable joins
    o.max_link_lines = 100;
    scene.setOverlays(o);
    QVERIFY2(scene.linkLineCount() < cross / 4, qPrintable(QString::number(scene.linkLineCount())));
    QVERIFY(scene.linkLineCount() > 0);
}

void TstRender::busyLinksAreDrawnThick() {
    // Issue 19: link width follows load: lines at half their capacity or more are drawn again, thick, in their
    // colour; idle ones stay thin and faint; failed ones are not thickened.
    const auto l = fixtures::sample("superpod-h100-su");
    const auto links = ct::sim::net::fabricLinks(l.scenario, l.catalog);
    r::Scene scene(l.scenario, l.catalog, links);
    r::Overlays o;
    o.max_link_lines = 100000;
    scene.setOverlays(o);
    ct::model::Frame f;
    f.links = {{"leaf0<->spine0", "infiniband", 0.95, false},
               {"leaf1<->spine1", "infiniband", 0.6, false},
               {"leaf2<->spine2", "infiniband", 0.1, false},
               {"leaf3<->spine3", "infiniband", 0.99, true}};
    scene.setFrame(f);
    QCOMPARE(scene.busyLinkLineCount(), std::size_t(2));
    f.links.clear();
    scene.setFrame(f);
    QCOMPARE(scene.busyLinkLineCount(), std::size_t(0));
}

void TstRender::hotLinksAreLabelledWithTheirLoad() {
    // Issue 40 (the SU's 8 leaves and 4 spines, 8 cables between each pair): the busiest lines of the fabric name their busiest cable and its load, busiest first, at most six;
    // a failed link and one under 1 % get none.
    const auto l = fixtures::sample("superpod-h100-su");
    const auto links = ct::sim::net::fabricLinks(l.scenario, l.catalog);
    r::Scene scene(l.scenario, l.catalog, links);
    scene.setSize(1000, 640);
    scene.setMetric("power_kw");
    r::Overlays o;
    o.max_link_lines = 100000;
    o.links = true;
    scene.setOverlays(o);
    ct::model::Frame f;
    f.links = {{"leaf0<->spine0", "infiniband", 0.42, false},  {"leaf1<->spine1", "infiniband", 0.95, false},
               {"leaf1<->spine1#2", "infiniband", 0.3, false}, {"leaf2<->spine2", "infiniband", 0.12, false},
               {"leaf3<->spine3", "infiniband", 0.99, true},   {"leaf4<->spine0", "infiniband", 0.004, false},
               {"leaf5<->spine1", "infiniband", 0.2, false},   {"leaf6<->spine2", "infiniband", 0.25, false},
               {"leaf7<->spine3", "infiniband", 0.15, false},  {"leaf0<->spine1", "infiniband", 0.05, false}};
    scene.setFrame(f);
    const auto& labels = scene.linkLabels();
    // Parallel cables share a line: leaf1 – spine1's names its busiest; 5 % is the seventh, left out.
    QCOMPARE(labels.size(), std::size_t(6));
    QVERIFY2(QString::fromStdString(labels[0]).startsWith("leaf1 – spine1: 95 % (busiest of "), labels[0].c_str());
    QVERIFY2(QString::fromStdString(labels[1]).startsWith("leaf0 – spine0: 42 %"), labels[1].c_str());
    QVERIFY2(QString::fromStdString(labels[2]).startsWith("leaf6 – spine2: 25 %"), labels[2].c_str());
    QVERIFY2(QString::fromStdString(labels[5]).startsWith("leaf2 – spine2: 12 %"), labels[5].c_str());
    for (const auto& t : labels) QVERIFY2(t.find("leaf3") == std::string::npos && t.find("leaf4") == std::string::npos, t.c_str());
    if (!qEnvironmentVariableIsEmpty("CT_SHOT_DIR")) scene.savePng(qEnvironmentVariable("CT_SHOT_DIR").toStdString() + "/hot-links.png");
    f.links.clear();
    scene.setFrame(f);
    QVERIFY(scene.linkLabels().empty());
}

void TstRender::fastFramesLeaveLabelsToTheFullFrame() {
    // Interactive frames (playback, dragging) are drawn without labels, whose placement is most of a frame's
    // cost in software OpenGL; the full-quality frame that follows has them. So a fast frame with labels on looks
    // exactly like one with labels off, and a full frame does not.
    const auto l = fixtures::sample("lab-8node");
    r::Scene scene(l.scenario, l.catalog);
    scene.setSize(640, 400);
    scene.setCamera("iso");
    auto shot = [&](bool fast, bool labels, const char* name) {
        r::Overlays o;
        o.labels = labels;
        scene.setOverlays(o);
        scene.setFastRendering(fast);
        scene.savePng(out(name).toStdString());
        return QImage(out(name)).convertToFormat(QImage::Format_RGB32);
    };
    shot(true, true, "fast_labels");  // the colour bar lays out its ticks anew after the first frame
    const QImage fast_on = shot(true, true, "fast_labels"), fast_off = shot(true, false, "fast_nolabels");
    QVERIFY(fast_on == fast_off);
    const QImage full_on = shot(false, true, "full_labels"), full_off = shot(false, false, "full_nolabels");
    QVERIFY(full_on != full_off);
    verifyNotBlank(out("full_labels"));
}

void TstRender::fastFramesOfLargeHallsDrawOnlyBusyLinks() {
    // Idle links are faint translucent lines, the costliest part of a large hall's frame in software OpenGL: fast
    // frames of halls of 1,000 nodes or more leave them out and keep the busy ones (thick, coloured); the frame
    // that stays draws every link again. Small halls always draw them all.
    const m::Scenario s = largeHall(true);
    const auto& cat = m::Catalog::builtin();
    const auto links = ct::sim::net::fabricLinks(s, cat);
    QVERIFY(!links.empty());
    r::Scene scene(s, cat, links);
    scene.setSize(640, 400);
    m::Frame f;
    f.links = {{links.back().id, "infiniband", 0.9, false}};
    scene.setFrame(f);
    QVERIFY(scene.idleLinksShown());
    const std::size_t busy = scene.busyLinkLineCount();
    QCOMPARE(busy, std::size_t(1));
    scene.setFastRendering(true);
    QVERIFY2(!scene.idleLinksShown(), "a fast frame of a 2,560-node hall still draws its idle links");
    scene.setFrame(f);  // playback: new frames keep them out
    QVERIFY(!scene.idleLinksShown());
    QCOMPARE(scene.busyLinkLineCount(), busy);
    scene.setCamera("iso");
    scene.savePng(out("links_fast").toStdString());
    scene.setFastRendering(false);
    QVERIFY(scene.idleLinksShown());
    scene.savePng(out("links_full").toStdString());
    verifyNotBlank(out("links_fast"));

    const auto small = fixtures::sample("superpod-h100-su");
    r::Scene pod(small.scenario, small.catalog, ct::sim::net::fabricLinks(small.scenario, small.catalog));
    pod.setFrame(f);
    pod.setFastRendering(true);
    QVERIFY(pod.idleLinksShown());
}

void TstRender::farRacksShowTheirWorstNodeInFastFrames() {
    // Level of detail: in fast frames of a large hall, a rack a few pixels wide is one box in its worst node's
    // colour (its node glyphs are not drawn); the full frame draws every node. A row runs hot: both pictures
    // must show it, and the fast one must have replaced racks.
    const m::Scenario s = largeHall(false);
    const auto& cat = m::Catalog::builtin();
    r::Scene scene(s, cat);
    scene.setSize(640, 400);
    scene.setCamera("iso");
    scene.setMetric("inlet_c");
    m::Frame f;
    for (const auto& row : s.halls[0].rows)
        for (const auto& rk : row.racks)
            for (const auto& n : rk.nodes) {
                f.nodes.push_back({});
                f.nodes.back().id = n.id;
                f.nodes.back().inlet_c = 20;
            }
    QVERIFY(f.nodes.size() >= 1000);
    // Hot: the front row's nodes (the first 64), which the iso view sees in full frames too.
    const std::size_t front = 16 * 4;
    for (std::size_t i = 0; i < front; ++i) f.nodes[i].inlet_c = 40;
    scene.setFrame(f);
    auto hotPixels = [&](bool fast, const char* name) {
        scene.setFastRendering(fast);
        scene.savePng(out(name).toStdString());
        return pixelsOfHue(QImage(out(name)), 0, 15);  // red, lit or in shade
    };
    // Red pixels beyond those of the same picture with every node at 20 °C (the colour bar's end, the legend).
    const int fast_hot = hotPixels(true, "lod_fast");
    QVERIFY2(scene.farRackCount() > 0, "no rack was drawn as one box in a fast frame of a 2,560-node hall");
    const int full_hot = hotPixels(false, "lod_full");
    QCOMPARE(scene.farRackCount(), std::size_t(0));
    for (std::size_t i = 0; i < front; ++i) f.nodes[i].inlet_c = 20;
    scene.setFrame(f);
    const int fast_cool = hotPixels(true, "lod_fast_cool"), full_cool = hotPixels(false, "lod_full_cool");
    QVERIFY2(full_hot > full_cool,
             qPrintable(QString("the hot row is not red in the full frame (%1 red pixels, %2 without it)").arg(full_hot).arg(full_cool)));
    QVERIFY2(
        fast_hot > fast_cool,
        qPrintable(
            QString("the hot row's racks are not red in the fast frame (%1 red pixels, %2 without them)").arg(fast_hot).arg(fast_cool)));
    verifyNotBlank(out("lod_fast"));
}

void TstRender::badMetricOrViewIsAnError() {
    const auto l = fixtures::sample("lab-8node");
    r::Scene scene(l.scenario, l.catalog);
    QVERIFY_THROWS_EXCEPTION(r::RenderError, scene.setMetric("colour_of_money"));
    QVERIFY_THROWS_EXCEPTION(r::RenderError, scene.setCamera("sideways"));
    m::Scenario empty;
    QVERIFY_THROWS_EXCEPTION(r::RenderError, r::Scene(empty, l.catalog));
    r::RenderOptions o;
    o.metric = "inlet_c";
    QVERIFY_THROWS_EXCEPTION(r::RenderError, r::renderScenarioPng(l.scenario, l.catalog, out("x").toStdString(), o));
}

void TstRender::replayFrameIsLastKnownValue() {
    const QString db = QDir::current().absoluteFilePath("replay.sqlite");
    QFile::remove(db);
    {
        auto store = ct::runs::TelemetryStore::open(db.toStdString());
        const auto run = store.createRun("t", "simulated", "lab");
        store.upsertEntities({{"n1", "node", "r1", ""}, {"r1", "rack", "", ""}, {"n1/gpu0", "gpu", "n1", ""}});
        const auto inlet = store.series(run, {"n1", "inlet_c", "degC", "sim"});
        const auto power = store.series(run, {"r1", "power_w", "W", "sim"});
        const auto temp = store.series(run, {"n1/gpu0", "temp_c", "degC", "sim"});
        store.writeBatch({{inlet, 0, 20}, {inlet, 10, 25}, {power, 5, 1000}, {temp, 10, 60}});
        store.writeEvents(run, {{7, "event", "crah-01", std::nullopt, "cooling_unit_fail"}, {8, "inlet_high", "r1", std::nullopt, "hot"}});
        store.finishRun(run, 20);
    }
    auto store = ct::runs::TelemetryStore::open(db.toStdString());
    const auto rp = ct::runs::RunReplay::load(store, store.runs().front().id);
    QCOMPARE(rp.startS(), 0.0);
    QCOMPARE(rp.endS(), 20.0);
    const m::Frame f = rp.frameAt(9.99);
    QCOMPARE(f.nodes.size(), std::size_t(1));
    QCOMPARE(f.nodes[0].inlet_c, 20.0);
    QVERIFY(std::isnan(f.nodes[0].power_ac_w));  // never recorded: unknown, not zero
    QCOMPARE(f.racks[0].power_w, 1000.0);
    QVERIFY(std::isnan(f.gpus[0].temp_c));  // first sample comes later
    QCOMPARE(f.alerts.size(), std::size_t(1));
    QCOMPARE(rp.frameAt(10).nodes[0].inlet_c, 25.0);
    QCOMPARE(rp.frameAt(10).gpus[0].temp_c, 60.0);
    QVERIFY(std::isnan(rp.frameAt(-1).nodes[0].inlet_c));
    QVERIFY_THROWS_EXCEPTION(ct::runs::StoreError, ct::runs::RunReplay::load(store, 99));
}

void TstRender::closeCoupledCoolingIsDrawnAndExplained() {
    m::HallParams p;
    p.rows = 2;
    p.racks_per_row = 6;
    p.cooling = "inrow";
    p.containment = "cold";  // the racks' backs face the camera, outside the contained aisle
    p.topology = "none";
    m::Scenario s = m::buildHall(p);
    const m::Catalog& c = m::Catalog::builtin();
    m::fitRearDoor(s, c, "r01-01", "rdhx-active-75kw");
    r::RenderOptions o;
    o.width = 800;
    o.height = 500;
    o.overlays.links = false;
    r::renderScenarioPng(s, c, out("close_coupled_iso").toStdString(), o, nullptr);
    verifyNotBlank(out("close_coupled_iso"));
    const QImage img(out("close_coupled_iso"));
    // In-row coolers violet, the rear door amber, and the legend (top right) naming each.
    QVERIFY2(pixelsOfHue(img, 250, 290) > 2000, "no in-row coolers drawn");
    QVERIFY2(pixelsOfHue(img, 30, 48) > 400, "no rear door drawn");
    int legend = 0;
    for (int y = int(0.05 * o.height); y < int(0.26 * o.height); ++y)
        for (int x = int(0.81 * o.width); x < o.width - 2; ++x) legend += img.pixelColor(x, y).lightness() > 150;
    QVERIFY2(legend > 100, "no legend");
}

void TstRender::severalHallsStandSideBySide() {
    m::HallParams p;
    p.rows = 2;
    p.racks_per_row = 4;
    p.halls = 3;
    p.topology = "none";
    const m::Scenario s = m::buildHall(p);
    const m::Catalog& c = m::Catalog::builtin();
    r::Scene scene(s, c);
    scene.setSize(900, 400);
    scene.setCamera("top");
    scene.render();
    int x1 = 0, y1 = 0, x3 = 0, y3 = 0;
    QVERIFY(scene.project("r01-01", x1, y1, true));
    QVERIFY(scene.project("h3-r01-01", x3, y3, true));
    QVERIFY2(x3 > x1 + 200, qPrintable(QString("hall 3's rack at x %1, hall 1's at %2").arg(x3).arg(x1)));
    QCOMPARE(QString::fromStdString(scene.pick(x3, y3)), QString("h3-r01-01"));
    scene.savePng(out("three_halls_top").toStdString());
    verifyNotBlank(out("three_halls_top"));
}

void TstRender::everyHallsAirFieldIsDrawnAtItsHall() {
    // Two halls simulated with their air: the floor slice appears over both, each at its own hall.
    m::HallParams p;
    p.rows = 2;
    p.racks_per_row = 2;
    p.halls = 2;
    p.topology = "none";
    fixtures::Loaded l{m::buildHall(p), m::Catalog::builtin()};
    const m::Frame f = simulate(l, 60);
    QVERIFY(f.air.has_value());
    QCOMPARE(f.other_halls_air.size(), std::size_t(1));
    QCOMPARE(f.other_halls_air[0].hall, 1);
    m::Frame first_only = f;
    first_only.other_halls_air.clear();
    QImage shot[2];
    int x1 = 0, y1 = 0, x2 = 0, y2 = 0;
    for (int pass = 0; pass < 2; ++pass) {
        r::Scene scene(l.scenario, l.catalog);
        scene.setSize(900, 400);
        r::Overlays o = scene.overlays();
        o.floor_slice = true;
        o.slice_height_m = 1.0;
        o.links = false;
        o.labels = false;
        scene.setOverlays(o);
        scene.setFrame(pass == 0 ? first_only : f);
        scene.setCamera("top");
        scene.render();
        QVERIFY(scene.project("r01-01", x1, y1, true));
        QVERIFY(scene.project("h2-r01-01", x2, y2, true));
        const QString png = out(pass == 0 ? "two_halls_first_air" : "two_halls_air");
        scene.savePng(png.toStdString());
        shot[pass] = QImage(png);
    }
    QVERIFY2(x2 > x1 + 100, "the second hall stands right of the first");
    // Pixels that changed when the second hall's field came in: in the second hall's half, hardly any in the first's.
    const int mid = (x1 + x2) / 2;
    int changed_first = 0, changed_second = 0;
    for (int y = 0; y < shot[0].height(); ++y)
        for (int x = 0; x < shot[0].width(); ++x)
            if (shot[0].pixel(x, y) != shot[1].pixel(x, y)) ++(x < mid ? changed_first : changed_second);
    QVERIFY2(changed_second > 5000 && changed_first < changed_second / 20,
             qPrintable(QString("changed pixels: %1 over the first hall, %2 over the second").arg(changed_first).arg(changed_second)));
}

void TstRender::sensorsAreDrawnInTheColourOfWhatTheyRead() {
    // Issue 44: each sensor a small cube where it is — on a rack's front or rear at its height, or at its point —
    // on the air's colour scale: grey before it reads anything, red at 40 °C.
    auto l = fixtures::sample("lab-8node", 0.3);
    auto& h = l.scenario.halls.front();
    for (const char* side : {"front", "rear"})
        for (double z : {0.6, 1.2, 1.8}) {
            m::Sensor x;
            x.id = std::string(side) + std::to_string(static_cast<int>(z * 10));
            x.rack = "r01-01";
            x.side = side;
            x.height_m = z;
            h.sensors.push_back(x);
        }
    m::Sensor p;
    p.id = "room";
    p.position_m = {1.5, 1.0};
    p.height_m = 1.5;
    h.sensors.push_back(p);
    m::Frame f = simulate(l, 60);
    r::RenderOptions o;
    o.width = 640;
    o.height = 400;
    o.metric = "inlet_c";
    const QString quiet = out("sensors_unread"), hot = out("sensors_hot");
    f.sensors.clear();  // read nothing: grey
    r::renderScenarioPng(l.scenario, l.catalog, quiet.toStdString(), o, &f);
    for (const auto& x : h.sensors) f.sensors.push_back({x.id, 40.0});
    r::renderScenarioPng(l.scenario, l.catalog, hot.toStdString(), o, &f);
    verifyNotBlank(hot);
    const int red_quiet = pixelsOfHue(QImage(quiet), 0, 12), red_hot = pixelsOfHue(QImage(hot), 0, 12);
    QVERIFY2(red_hot > red_quiet + 40,
             qPrintable(QString("%1 red pixels with the sensors at 40 °C, %2 without").arg(red_hot).arg(red_quiet)));
}

QTEST_MAIN(TstRender)
#include "tst_render.moc"
