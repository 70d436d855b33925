// The 3D overlays as one table (issue 39: adding an overlay is its flag, its row and its drawing): the table is
// consistent, settings by id apply to it, and the CLI's render options and help, and the tours' steps, are
// written from it.
#include <clustertwin/render/overlays.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/report/tour.hpp>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <set>
#include "test_paths.hpp"

using namespace ct;

class TstOverlays : public QObject {
    Q_OBJECT
private slots:
    void theTableIsConsistent() {
        std::set<std::string> ids, names;
        const render::Overlays defaults;
        QVERIFY(render::overlayTable().size() >= 6);
        for (const auto& o : render::overlayTable()) {
            QVERIFY2(ids.insert(o.id).second, o.id.c_str());
            QVERIFY2(names.insert(o.object_name).second, o.object_name.c_str());
            QVERIFY(o.flag && !o.label.empty() && !o.help.empty());
            QCOMPARE(render::findOverlay(o.id), &o);
            if (o.value) {
                QVERIFY(o.value_min < o.value_max && o.value_step > 0 && !o.value_name.empty());
                QVERIFY(defaults.*o.value >= o.value_min && defaults.*o.value <= o.value_max);
            }
        }
        QVERIFY(!render::findOverlay("no-such-overlay"));
    }

    void settingsByIdTurnEachOnAndOff() {
        for (const auto& o : render::overlayTable()) {
            render::Overlays ov;
            const bool was = ov.*o.flag;
            render::applyOverlaySettings(ov, {{o.id, o.value ? o.value_min + o.value_step : (was ? 0.0 : 1.0)}});
            QVERIFY2(ov.*o.flag == (o.value ? true : !was), o.id.c_str());
            if (o.value) {
                QCOMPARE(ov.*o.value, o.value_min + o.value_step);
                render::applyOverlaySettings(ov, {{o.id, -1}});  // negative: off
                QVERIFY(!(ov.*o.flag));
            }
            render::Overlays only;
            for (const auto& x : render::overlayTable())
                if (x.needs_air) only.*x.flag = false;
            only.*o.flag = true;
            QCOMPARE(render::needsAir(only), o.needs_air);
        }
    }

    void theCliOffersEveryOverlay() {
        QProcess p;
        p.start(CT_CLI_PATH, {"render", "--help"});
        QVERIFY(p.waitForFinished(60000));
        const QString help = QString::fromUtf8(p.readAllStandardOutput());
        const render::Overlays defaults;
        for (const auto& o : render::overlayTable()) {
            const QString opt = QString::fromStdString((defaults.*o.flag ? "--no-" : "--") + o.id);
            QVERIFY2(help.contains(opt + " ") || help.contains(opt + "\n"), qPrintable(opt));
            QVERIFY2(help.contains(QString::fromStdString(o.help)), o.help.c_str());
        }
        // An overlay's option is accepted by the parser (it fails later: the scenario does not exist).
        for (const auto& o : render::overlayTable()) {
            QStringList args{"render", "/nonexistent.json", "-o", "/tmp/x.png"};
            if (defaults.*o.flag) args << QString::fromStdString("--no-" + o.id);
            else if (o.value) args << QString::fromStdString("--" + o.id) << QString::number(defaults.*o.value);
            else args << QString::fromStdString("--" + o.id);
            p.start(CT_CLI_PATH, args);
            QVERIFY(p.waitForFinished(60000));
            const QString err = QString::fromUtf8(p.readAllStandardError());
            QVERIFY2(!err.contains("unknown option"), qPrintable(err));
        }
    }

    void aTourStepSetsAnyOverlay() {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(QString(CT_RESOURCE_DIR) + "/scenarios/lab-8node.json", dir.filePath("lab.json")));
        std::string step = R"({"caption": "all of them")";
        for (const auto& o : render::overlayTable()) step += ", \"" + o.id + "\": " + (o.value ? std::string("2") : std::string("true"));
        step += "}";
        const std::string tour = R"({"title": "t", "scenario": "lab.json", "simulate": "1m", "steps": [)" + step + "]}";
        QFile f(dir.filePath("t.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(tour.c_str());
        f.close();
        const report::Tour t = report::loadTour(dir.filePath("t.json").toStdString());
        QCOMPARE(t.steps.at(0).overlays.size(), render::overlayTable().size());
        for (const auto& o : render::overlayTable()) QCOMPARE(t.steps[0].overlays.at(o.id), o.value ? 2.0 : 1.0);
        // A wrong type names its pointer.
        const std::string bad = R"({"title": "t", "scenario": "lab.json", "steps": [{"caption": "c", "links": 3}]})";
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(bad.c_str());
        f.close();
        try {
            report::loadTour(dir.filePath("t.json").toStdString());
            QFAIL("a number for a toggle was accepted");
        } catch (const render::RenderError& e) {
            QVERIFY2(std::string(e.what()).find("/steps/0/links: expected true or false") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TstOverlays)
#include "tst_overlays.moc"
