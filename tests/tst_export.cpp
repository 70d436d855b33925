// clustertwin-cli export (issue 19): what ParaView and glTF viewers open is read back with VTK's own readers
// (XML PolyData, ImageData and collection readers, the glTF reader) and compared with the run it came from.
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/runs/replay.hpp>
#include <clustertwin/runs/store.hpp>

#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUrl>
#include <QXmlStreamReader>
#include <QtTest>

#include <vtkCellData.h>
#include <vtkCompositeDataIterator.h>
#include <vtkDataArray.h>
#include <vtkFloatArray.h>
#include <vtkGLTFReader.h>
#include <vtkImageData.h>
#include <vtkMultiBlockDataSet.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkStringArray.h>
#include <vtkXMLImageDataReader.h>
#include <vtkXMLPolyDataReader.h>

#include <cmath>
#include <map>
#include <set>
#include "test_paths.hpp"

using namespace ct;

namespace {

struct Result {
    int code = -1;
    QString err;
};

Result cli(const QStringList& args) {
    QProcess p;
    p.start(QString(CT_CLI_PATH), args);
    p.waitForFinished(600000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardError())};
}

}  // namespace

class TstExport : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString scenario_, db_;

    QString path(const QString& name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        scenario_ = path("hall.json");
        db_ = path("run.sqlite");
        Result r = cli({"generate", "--rows", "2", "--racks-per-row", "4", "--server", "dgx-h100", "-o", scenario_, "-q"});
        QVERIFY2(r.code == 0, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
        r = cli({"simulate", scenario_, "--duration", "150s", "--air", "quick", "--field-every", "60s", "--out", db_, "-q"});
        QVERIFY2(r.code == 0, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
    }

    void vtkSeriesMatchesTheRun() {
        const QString out = path("vtk");
        const Result r = cli({"export", scenario_, "--format", "vtk", "--run", db_, "-o", out});
        QVERIFY2(r.code == 0, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
        QVERIFY2(r.err.contains("open run.pvd in ParaView"), qPrintable(r.err));

        auto store = runs::TelemetryStore::open(db_.toStdString(), runs::TelemetryStore::Mode::Existing);
        const std::int64_t run = store.runs().back().id;
        const auto replay = runs::RunReplay::load(store, run);
        const auto times = store.airFieldTimes(run);
        QVERIFY(times.size() >= 2);

        // The collection (ParaView's .pvd; VTK itself has no reader for it): a hall and an air dataset per stored
        // field, in time order, every file there.
        QFile pvd(out + "/run.pvd");
        QVERIFY(pvd.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&pvd);
        std::map<int, std::vector<double>> part_times;
        bool collection = false;
        while (!xml.atEnd()) {
            if (xml.readNext() != QXmlStreamReader::StartElement) continue;
            if (xml.name() == QLatin1String("VTKFile")) QCOMPARE(xml.attributes().value("type").toString(), QString("Collection"));
            if (xml.name() == QLatin1String("Collection")) collection = true;
            if (xml.name() == QLatin1String("DataSet")) {
                const auto at = xml.attributes();
                QVERIFY2(QFile::exists(out + "/" + at.value("file").toString()), qPrintable(at.value("file").toString()));
                part_times[at.value("part").toInt()].push_back(at.value("timestep").toDouble());
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(collection);
        QCOMPARE(part_times.size(), std::size_t(2));
        for (const auto& [part, ts] : part_times) {
            QCOMPARE(ts.size(), times.size());
            for (std::size_t i = 0; i < ts.size(); ++i) QVERIFY(std::fabs(ts[i] - (times[i] - replay.startS())) < 1e-6);
        }

        // The last air field, cell by cell.
        const auto field = store.airFieldAt(run, times.back() + 1e-6);
        QVERIFY(field.has_value());
        vtkNew<vtkXMLImageDataReader> ir;
        ir->SetFileName(QFile::encodeName(out + QString("/air_%1.vti").arg(times.size() - 1, 4, 10, QChar('0'))).constData());
        ir->Update();
        vtkImageData* img = ir->GetOutput();
        int dims[3];
        img->GetDimensions(dims);
        QCOMPARE(dims[0], field->nx + 1);
        QCOMPARE(dims[1], field->ny + 1);
        QCOMPARE(dims[2], field->nz + 1);
        double sp[3];
        img->GetSpacing(sp);
        QCOMPARE(sp[0], field->cell_m);
        auto* t = vtkFloatArray::SafeDownCast(img->GetCellData()->GetArray("temperature_c"));
        auto* solid = img->GetCellData()->GetArray("solid");
        QVERIFY(t && solid);
        QCOMPARE(static_cast<std::size_t>(t->GetNumberOfTuples()), field->temp_c.size());
        std::size_t solids = 0, differ = 0;
        for (std::size_t c = 0; c < field->temp_c.size(); ++c) {
            const float want = field->temp_c[c], got = t->GetValue(static_cast<vtkIdType>(c));
            if (std::isnan(want)) {
                ++solids;
                if (!std::isnan(got) || solid->GetTuple1(static_cast<vtkIdType>(c)) != 1) ++differ;
            } else if (got != want || solid->GetTuple1(static_cast<vtkIdType>(c)) != 0) {
                ++differ;
            }
        }
        QCOMPARE(differ, std::size_t(0));
        QVERIFY(solids > 0);  // the racks
        if (!field->velocity_ms.empty()) {
            vtkDataArray* v = img->GetCellData()->GetArray("velocity_ms");
            QVERIFY(v);
            QCOMPARE(v->GetNumberOfComponents(), 3);
        }

        // The hall at the end: every rack once (6 faces each) with the run's inlet.
        vtkNew<vtkXMLPolyDataReader> pr;
        pr->SetFileName(QFile::encodeName(out + "/hall.vtp").constData());
        pr->Update();
        vtkPolyData* pd = pr->GetOutput();
        auto* ids = vtkStringArray::SafeDownCast(pd->GetCellData()->GetAbstractArray("id"));
        auto* kinds = vtkStringArray::SafeDownCast(pd->GetCellData()->GetAbstractArray("kind"));
        vtkDataArray* inlet = pd->GetCellData()->GetArray("inlet_mean_c");
        vtkDataArray* load = pd->GetCellData()->GetArray("load_kw");
        QVERIFY(ids && kinds && inlet && load);
        const model::Frame end = replay.frameAt(replay.endS());
        std::map<std::string, double> want;
        for (const auto& rk : end.racks) want[rk.id] = rk.inlet_mean_c;
        std::set<std::string> seen;
        int units = 0;
        for (vtkIdType c = 0; c < pd->GetNumberOfCells(); ++c) {
            const std::string id = ids->GetValue(c);
            if (kinds->GetValue(c) == "rack") {
                QVERIFY2(want.count(id), id.c_str());
                QVERIFY2(std::fabs(inlet->GetTuple1(c) - want[id]) < 1e-3, id.c_str());
                QVERIFY(std::isnan(load->GetTuple1(c)));
                seen.insert(id);
            } else {
                QCOMPARE(kinds->GetValue(c), vtkStdString("cooling_unit"));
                QVERIFY(std::isfinite(load->GetTuple1(c)));
                ++units;
            }
        }
        QCOMPARE(seen.size(), want.size());
        QCOMPARE(pd->GetNumberOfCells(), static_cast<vtkIdType>(6 * (want.size() + static_cast<std::size_t>(units) / 6)));
        QVERIFY(units > 0);
    }

    void vtkSeriesHasEveryHallsAirField() {
        // Two halls on one site: each hall's field is recorded (the first in air_fields, the second with its hall
        // number) and exported as its own .vti at its hall's place, one .pvd part per hall.
        const QString scen = path("two_halls.json"), db = path("two_halls.sqlite"), out = path("vtk2");
        Result r = cli({"generate", "--halls", "2", "--rows", "2", "--racks-per-row", "2", "--server", "dgx-h100", "-o", scen, "-q"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = cli({"simulate", scen, "--duration", "70s", "--air", "quick", "--field-every", "60s", "--out", db, "-q"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = cli({"export", scen, "--format", "vtk", "--run", db, "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto s = model::loadScenarioFile(scen.toStdString()).scenario;
        QCOMPARE(s.halls.size(), std::size_t(2));
        auto store = runs::TelemetryStore::open(db.toStdString(), runs::TelemetryStore::Mode::Existing);
        const std::int64_t run = store.runs().back().id;
        QCOMPARE(store.airFieldHalls(run), (std::vector<int>{0, 1}));
        const auto times = store.airFieldTimes(run, 1);
        QCOMPARE(times, store.airFieldTimes(run, 0));
        QVERIFY(times.size() >= 2);

        QFile pvd(out + "/run.pvd");
        QVERIFY(pvd.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&pvd);
        std::map<int, std::vector<std::string>> parts;
        while (!xml.atEnd())
            if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("DataSet"))
                parts[xml.attributes().value("part").toInt()].push_back(xml.attributes().value("file").toString().toStdString());
        QCOMPARE(parts.size(), std::size_t(3));  // the halls' polydata, hall 1's air, hall 2's air
        QCOMPARE(parts[2].size(), times.size());

        for (int h = 0; h < 2; ++h) {
            const auto field = store.airFieldAt(run, times.back() + 1e-6, h);
            QVERIFY(field.has_value());
            QCOMPARE(field->hall, h);
            vtkNew<vtkXMLImageDataReader> ir;
            ir->SetFileName(QFile::encodeName(out + "/" + QString::fromStdString(parts[1 + h].back())).constData());
            ir->Update();
            vtkImageData* img = ir->GetOutput();
            double origin[3];
            img->GetOrigin(origin);
            QCOMPARE(origin[0], s.halls[static_cast<std::size_t>(h)].site_position_m.x_m);
            QCOMPARE(origin[1], s.halls[static_cast<std::size_t>(h)].site_position_m.y_m);
            auto* t = vtkFloatArray::SafeDownCast(img->GetCellData()->GetArray("temperature_c"));
            QVERIFY(t);
            QCOMPARE(static_cast<std::size_t>(t->GetNumberOfTuples()), field->temp_c.size());
            std::size_t differ = 0, fluid = 0;
            for (std::size_t c = 0; c < field->temp_c.size(); ++c) {
                const float want = field->temp_c[c], got = t->GetValue(static_cast<vtkIdType>(c));
                if (std::isnan(want) ? !std::isnan(got) : got != want) ++differ;
                fluid += std::isnan(want) ? 0 : 1;
            }
            QCOMPARE(differ, std::size_t(0));
            QVERIFY(fluid > 0);
        }
        QVERIFY(s.halls[0].site_position_m.x_m != s.halls[1].site_position_m.x_m ||
                s.halls[0].site_position_m.y_m != s.halls[1].site_position_m.y_m);
    }

    void gltfHoldsTheHallInTheMetricsColours() {
        const QString out = path("hall.gltf");
        const Result r = cli({"export", scenario_, "--format", "gltf", "--run", db_, "--metric", "power_kw", "-o", out});
        QVERIFY2(r.code == 0, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
        vtkNew<vtkGLTFReader> rd;
        rd->SetFileName(QFile::encodeName(out).constData());
        rd->Update();
        vtkMultiBlockDataSet* mb = rd->GetOutput();
        QVERIFY(mb);
        // Nodes: 8 racks × 4 DGX = 32 boxes of 24 points, coloured: not all the same colour (one idle node
        // differs from a loaded one only if loads differ; racks at least show nodes and empty U apart).
        vtkSmartPointer<vtkCompositeDataIterator> it;
        it.TakeReference(mb->NewIterator());
        bool nodes_found = false;
        std::size_t meshes = 0;
        for (it->InitTraversal(); !it->IsDoneWithTraversal(); it->GoToNextItem()) {
            auto* pd = vtkPolyData::SafeDownCast(it->GetCurrentDataObject());
            if (!pd) continue;
            ++meshes;
            if (pd->GetNumberOfPoints() == 32 * 24) {
                vtkDataArray* col = pd->GetPointData()->GetArray("COLOR_0");
                QVERIFY2(col, "the nodes' mesh has no vertex colours");
                nodes_found = true;
            }
        }
        QVERIFY2(nodes_found, "no mesh with the 32 nodes");
        QVERIFY(meshes >= 6);  // floor, walls, racks, nodes, units, switches at least
    }

    void aReportOfARunOutsideTheModelSaysSoFirst() {
        // Issue 40: the report of a run whose inlets passed 45 °C (a 32-rack hall of 40 kW racks without
        // containment, quick air) showed its tiles and "Heat balance ✔" without the app's warning.
        const QString hall = path("hot.json"), db = path("hot.sqlite"), html = path("hot.html");
        Result r =
            cli({"generate", "--rows", "4", "--racks-per-row", "8", "--server", "dgx-h100", "--containment", "none", "-o", hall, "-q"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = cli({"simulate", hall, "--duration", "2m", "--air", "quick", "--out", db, "-q"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = cli({"export", hall, "--format", "html", "--no-picture", "--run", db, "-o", html});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile f(html);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        const int banner = text.indexOf("Outside what the model represents");
        QVERIFY2(banner > 0 && banner < text.indexOf("At the end of the run"), "no finding before the totals");
        QVERIFY(text.contains("Likely cause"));
        // The heat balance is not passed off as a check of such a run.
        const int heat = text.indexOf("Heat balance of the room air");
        QVERIFY(heat > 0);
        QVERIFY2(text.mid(heat, 400).contains("left what the model represents"), qPrintable(text.mid(heat, 400)));
    }

    void htmlReportRendersInABrowser() {
        // A run with a unit failure, so that the report has an event, an alert and a failed unit to show.
        const QString events = path("events.json");
        QFile ev(events);
        QVERIFY(ev.open(QIODevice::WriteOnly));
        ev.write(R"([{"time_s": 60, "kind": "cooling_unit_fail", "target": "crah-01"}])");
        ev.close();
        const QString db = path("fail.sqlite"), html = path("report.html");
        Result r = cli({"simulate", scenario_, "--duration", "4m", "--air", "quick", "--events", events, "--out", db, "-q"});
        QVERIFY2(r.code == 0, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
        r = cli({"export", scenario_, "--format", "html", "--run", db, "-o", html});
        QVERIFY2(r.code == 0, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
        QFile f(html);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        // What a reader looks for: the totals, the picture, the plan with the failed unit, the charts with the
        // event's mark and the limits, the checks, the racks, the event and its alert.
        QVERIFY(text.startsWith("<!DOCTYPE html>"));
        QVERIFY(text.contains("PUE"));
        QVERIFY2(text.contains("data:image/png;base64,"), "no 3D picture (it renders with $DISPLAY or a private Xvfb)");
        QVERIFY(text.contains("crah-01 (") && text.contains(": failed</title>"));
        QVERIFY(text.contains("27 °C recommended") && text.contains("32 °C allowable"));
        QVERIFY(text.contains("cooling_unit_fail"));
        QVERIFY(text.contains("Heat balance of the room air"));
        QVERIFY(text.contains("unit_failed"));
        QCOMPARE(text.count("<svg"), 3);  // plan and two charts
        // Every rack's capture index is a share: never above 100 %.
        const QRegularExpression ci(R"(<td>(\d+) %</td></tr>)");
        auto it = ci.globalMatch(text);
        int shares = 0;
        while (it.hasNext()) {
            QVERIFY(it.next().captured(1).toInt() <= 100);
            ++shares;
        }
        QVERIFY(shares > 0);
        QVERIFY(!text.contains("<b>Note:</b>"));  // the run is this scenario's
        // The same run reported on an edited scenario says so, in the page and on stderr.
        QFile sf(scenario_);
        QVERIFY(sf.open(QIODevice::ReadOnly));
        QJsonObject edited = QJsonDocument::fromJson(sf.readAll()).object();
        edited["name"] = "edited since";
        const QString other = path("edited.json");
        QFile of(other);
        QVERIFY(of.open(QIODevice::WriteOnly));
        of.write(QJsonDocument(edited).toJson());
        of.close();
        r = cli({"export", other, "--format", "html", "--no-picture", "--run", db, "-o", path("edited.html")});
        QVERIFY2(r.code == 0 && r.err.contains("another version of this scenario"), qPrintable(r.err));
        QFile ef(path("edited.html"));
        QVERIFY(ef.open(QIODevice::ReadOnly));
        QVERIFY(QString::fromUtf8(ef.readAll()).contains("another version of this scenario"));

        // Rendered by a real browser (Debian's Chromium, headless): a full page, not blank.
        const QString chromium = QStandardPaths::findExecutable("chromium");
        if (chromium.isEmpty()) QSKIP("chromium is not installed (scripts/setup installs it)");
        const QString png = path("report.png");
        QProcess b;
        b.start(chromium, {"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,2400",
                           "--screenshot=" + png, QUrl::fromLocalFile(html).toString()});
        QVERIFY(b.waitForFinished(120000));
        QImage shot(png);
        QVERIFY2(!shot.isNull(), qPrintable(QString::fromUtf8(b.readAllStandardError()).right(2000)));
        QCOMPARE(shot.width(), 1200);
        // Ink on the page: text, the dark 3D view, the coloured plan. A blank or failed page is white.
        int dark = 0, coloured = 0;
        for (int y = 0; y < shot.height(); y += 4)
            for (int x = 0; x < shot.width(); x += 4) {
                const QColor c = shot.pixelColor(x, y);
                if (c.lightness() < 80) ++dark;
                if (c.hsvSaturation() > 120 && c.value() > 120) ++coloured;
            }
        const int samples = (shot.height() / 4) * (shot.width() / 4);
        QVERIFY2(dark > samples / 20, qPrintable(QString("only %1 of %2 samples dark").arg(dark).arg(samples)));
        QVERIFY2(coloured > samples / 200, qPrintable(QString("only %1 of %2 samples coloured").arg(coloured).arg(samples)));
        const QString keep = qEnvironmentVariable("CT_KEEP_REPORT_PNG");
        if (!keep.isEmpty()) shot.save(keep);
    }

    void videosOfARunAndOfATour() {
        if (QStandardPaths::findExecutable("ffmpeg").isEmpty() || QStandardPaths::findExecutable("ffprobe").isEmpty())
            QSKIP("ffmpeg is not installed (scripts/setup installs it)");
        auto probe = [](const QString& file) {
            QProcess p;
            p.start("ffprobe", {"-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                "stream=codec_name,width,height,nb_read_frames", "-of", "csv=p=0", file});
            p.waitForFinished(60000);
            return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
        };
        // A replay: 2 s at 6 fps over the whole run, H.264 and VP9.
        Result r = cli(
            {"export", scenario_, "--video", "--run", db_, "--seconds", "2s", "--fps", "6", "--size", "321x241", "-o", path("run.mp4")});
        QVERIFY2(r.code == 0, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
        QCOMPARE(probe(path("run.mp4")), QString("h264,320,240,12"));  // even sizes for 4:2:0
        r = cli({"export", scenario_, "--format", "video", "--run", db_, "--seconds", "1s", "--fps", "4", "--size", "320x240", "-o",
                 path("run.webm")});
        QVERIFY2(r.code == 0, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
        QCOMPARE(probe(path("run.webm")), QString("vp9,320,240,4"));
        // A tour without a run: its steps' seconds at 2 fps.
        const QString tour = QString(CT_RESOURCE_DIR) + "/tours/how-a-gpu-cluster-is-built.json";
        QFile tf(tour);
        QVERIFY(tf.open(QIODevice::ReadOnly));
        const QJsonObject t = QJsonDocument::fromJson(tf.readAll()).object();
        int frames = 0;
        for (const auto& st : t["steps"].toArray()) frames += static_cast<int>(std::lround(2 * st.toObject()["seconds"].toDouble()));
        r = cli({"export", QString(CT_RESOURCE_DIR) + "/scenarios/demo.json", "--video", "--tour", tour, "--fps", "2", "--size", "320x180",
                 "-o", path("tour.mp4")});
        QVERIFY2(r.code == 0, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
        QVERIFY2(r.err.contains("How a GPU cluster is built"), qPrintable(r.err));
        QCOMPARE(probe(path("tour.mp4")), QString("h264,320,180,%1").arg(frames));
        // Not a video file, a tour that does not parse: usage errors, nothing written.
        QCOMPARE(cli({"export", scenario_, "--video", "--run", db_, "-o", path("run.avi")}).code, 2);
        const QString bad = path("bad-tour.json");
        QFile bf(bad);
        QVERIFY(bf.open(QIODevice::WriteOnly));
        bf.write(R"({"title": "x", "scenario": "demo.json", "steps": [{"caption": "a", "camera": "sideways"}]})");
        bf.close();
        r = cli({"export", scenario_, "--video", "--tour", bad, "-o", path("bad.mp4")});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("/steps/0/camera"), qPrintable(r.err));
        QVERIFY(!QFile::exists(path("bad.mp4")));
    }

    void badRequestsAreUsageErrors() {
        QCOMPARE(cli({"export", scenario_, "--format", "obj", "-o", path("x")}).code, 2);
        QCOMPARE(cli({"export", scenario_, "--format", "gltf", "--metric", "inlet_c", "-o", path("y.gltf")}).code, 2);  // needs a run
        QCOMPARE(cli({"export", scenario_, "--format", "vtk", "--run", path("missing.sqlite"), "-o", path("z")}).code, 2);
        const Result r = cli({"export", scenario_, "--format", "vtk", "-o", "/proc/no/such/dir"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("/proc/no/such/dir"), qPrintable(r.err));
        // Without a run: the hall with design values, and no series.
        const Result d = cli({"export", scenario_, "--format", "vtk", "-o", path("design")});
        QVERIFY2(d.code == 0, qPrintable(d.err));
        QVERIFY(QFile::exists(path("design/hall.vtp")));
        QVERIFY(!QFile::exists(path("design/run.pvd")));
        QCOMPARE(cli({"export", scenario_, "--format", "html", "-o", path("r.html")}).code, 2);  // a report needs a run
    }
};

QTEST_GUILESS_MAIN(TstExport)
#include "tst_export.moc"
