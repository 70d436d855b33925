// Issue 18: a scenario from a NetBox inventory (REST API JSON after the NetBox 4.1 schema, rack positions from the
// floor-plan plugin) and NetBox bulk-import CSV back; tests/data/netbox says how the data was written.
#include <clustertwin/importers/format.hpp>
#include <clustertwin/inventory/netbox.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include "test_paths.hpp"

namespace m = ct::model;
namespace im = ct::importers;

namespace {

std::vector<std::string> dataFiles() {
    std::vector<std::string> out;
    for (const char* f : {"sites", "locations", "racks", "device-types", "devices", "floorplans"})
        out.push_back(std::string(CT_TEST_DATA_DIR) + "/netbox/" + f + ".json");
    return out;
}

const m::Rack* rack(const m::Scenario& s, const std::string& id) {
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                if (r.id == id) return &r;
    return nullptr;
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += x + "\n";
    return s;
}

}  // namespace

class TstNetbox : public QObject {
    Q_OBJECT
private slots:
    void anInventoryBecomesAValidScenario();
    void floorPlanPositionsAndFacingsAreKept();
    void whatCannotBeMappedIsReported();
    void aBrokenFileIsNamedAndTheRestImported();
    void noRacksIsAnError();
    void csvExportHasNetboxImportColumns();
    void theCliBuildsAndExports();
};

void TstNetbox::anInventoryBecomesAValidScenario() {
    const auto res = ct::inventory::importNetbox(dataFiles(), m::Catalog::builtin());
    const auto& r = res.report;
    QCOMPARE(r.sites, 1);
    QCOMPARE(r.locations, 2);
    QCOMPARE(r.racks, 8);
    QCOMPARE(r.devices, 20);
    QCOMPARE(r.floorplans, 1);
    QCOMPARE(r.nodes, 19);
    QVERIFY2(r.errors.empty(), join(r.errors).c_str());
    const m::Scenario& s = res.scenario;
    QCOMPARE(s.id, std::string("fra-dc1"));
    QCOMPARE(s.name, std::string("Frankfurt DC1"));
    QCOMPARE(s.halls.size(), std::size_t{2});  // one per location
    QCOMPARE(s.halls[0].name, std::string("Hall A"));
    const auto d = m::validateScenario(s, m::Catalog::builtin());
    std::string errors;
    for (const auto& x : d)
        if (x.severity == m::Severity::Error) errors += x.toString() + "\n";
    QVERIFY2(errors.empty(), errors.c_str());
    // Nodes at their U positions, named and hosted as in NetBox, on the catalog's DGX H100.
    const m::Rack* a1 = rack(s, "a-01");
    QVERIFY(a1);
    QCOMPARE(a1->nodes.size(), std::size_t{3});
    QCOMPARE(a1->nodes[1].hostname, std::string("dgx-a01-2"));
    QCOMPARE(a1->nodes[1].u_position, 10);
    QCOMPARE(a1->nodes[1].model, std::string("dgx-h100"));
    QCOMPARE(a1->model, std::string("rack-48u-600x1200"));
    // The file round-trips.
    QVERIFY(m::parseScenario(m::scenarioToJson(s)).scenario == s);
}

void TstNetbox::floorPlanPositionsAndFacingsAreKept() {
    const auto res = ct::inventory::importNetbox(dataFiles(), m::Catalog::builtin());
    QCOMPARE(res.report.racks_placed, 6);
    const m::Rack* a1 = rack(res.scenario, "a-01");
    const m::Rack* a4 = rack(res.scenario, "a-04");
    // The plan is 14 × 10 m; A-01 stands at (4.3, 3.0) facing north, A-04 across a 1.2 m cold aisle facing south.
    QCOMPARE(res.scenario.halls[0].width_m, 14.0);
    QCOMPARE(res.scenario.halls[0].depth_m, 10.0);
    QVERIFY(std::abs(a1->position_m.x_m - 4.3) < 1e-6 && std::abs(a1->position_m.y_m - 3.0) < 1e-6);
    QVERIFY(a1->facing == m::Facing::North);
    QVERIFY(std::abs(a4->position_m.y_m - 5.4) < 1e-6);
    QVERIFY(a4->facing == m::Facing::South);
    QCOMPARE(res.scenario.halls[0].rows.size(), std::size_t{2});  // the two lines of racks
}

void TstNetbox::whatCannotBeMappedIsReported() {
    const auto res = ct::inventory::importNetbox(dataFiles(), m::Catalog::builtin());
    const std::string unmapped = join(res.report.unmapped), notes = join(res.report.notes);
    QVERIFY2(unmapped.find("AP8886") != std::string::npos, unmapped.c_str());  // the rack PDU: no catalog server
    QVERIFY2(notes.find("perimeter CRAHs") != std::string::npos && notes.find("2N chain") != std::string::npos, notes.c_str());
    QVERIFY2(notes.find("hall-b: 2 rack(s) without a floor-plan position") != std::string::npos, notes.c_str());
}

void TstNetbox::aBrokenFileIsNamedAndTheRestImported() {
    QTemporaryDir dir;
    const std::string bad = dir.filePath("broken.json").toStdString();
    std::ofstream(bad) << "{\"count\": 1, \"results\": [\n  {\"id\": 7, \"name\": \"X\",\n}";
    auto files = dataFiles();
    files.push_back(bad);
    const auto res = ct::inventory::importNetbox(files, m::Catalog::builtin());
    QCOMPARE(res.report.errors.size(), std::size_t{1});
    QVERIFY2(res.report.errors[0].find(bad + ":3") == 0, res.report.errors[0].c_str());  // file and line
    QCOMPARE(res.report.racks, 8);
}

void TstNetbox::noRacksIsAnError() {
    const std::string sites = std::string(CT_TEST_DATA_DIR) + "/netbox/sites.json";
    QVERIFY_THROWS_EXCEPTION(im::ImportError, ct::inventory::importNetbox({sites}, m::Catalog::builtin()));
}

void TstNetbox::csvExportHasNetboxImportColumns() {
    const auto res = ct::inventory::importNetbox(dataFiles(), m::Catalog::builtin());
    const QStringList racks =
        QString::fromStdString(ct::inventory::netboxRacksCsv(res.scenario, m::Catalog::builtin())).split("\r\n", Qt::SkipEmptyParts);
    const QStringList devices =
        QString::fromStdString(ct::inventory::netboxDevicesCsv(res.scenario, m::Catalog::builtin())).split("\r\n", Qt::SkipEmptyParts);
    QCOMPARE(racks.front(), QString("site,location,name,status,width,u_height,outer_width,outer_depth,outer_unit,comments"));
    QCOMPARE(devices.front(), QString("name,role,manufacturer,device_type,site,location,rack,position,face,status"));
    QCOMPARE(racks.size(), 1 + 8);
    QCOMPARE(devices.size(), 1 + 19);
    QVERIFY(racks.contains(
        QString("Frankfurt DC1,Hall A,A-01,active,19,48,600,1200,mm,\"ClusterTwin a-01 in hall-a-row1 at (4.3, 3) m facing north\"")));
    QVERIFY(devices.contains(QString("dgx-a01-2,GPU server,NVIDIA,DGX H100,Frankfurt DC1,Hall A,A-01,10,front,active")));
}

void TstNetbox::theCliBuildsAndExports() {
    QTemporaryDir dir;
    QProcess p;
    QStringList args{"from-netbox"};
    for (const auto& f : dataFiles()) args << QString::fromStdString(f);
    args << "-o" << dir.filePath("site.json") << "--json";
    p.start(CT_CLI_PATH, args);
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(p.readAllStandardOutput().contains("\"racks_placed_from_floorplan\": 6"));
    p.start(CT_CLI_PATH, {"to-netbox", dir.filePath("site.json"), "-o", dir.filePath("csv")});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(QFile::exists(dir.filePath("csv/racks.csv")) && QFile::exists(dir.filePath("csv/devices.csv")));
    p.start(CT_CLI_PATH, {"from-netbox", QString(CT_TEST_DATA_DIR) + "/netbox/sites.json", "-o", dir.filePath("none.json")});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(p.readAllStandardError().contains("no NetBox racks"));
    QVERIFY(!QFile::exists(dir.filePath("none.json")));
}

QTEST_GUILESS_MAIN(TstNetbox)
#include "tst_netbox.moc"
