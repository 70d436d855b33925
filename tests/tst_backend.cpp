// Backend selection (contributing.md habit 6): CPU always; CUDA only when built and a device exists, else a clear
// error, never a silent fallback when asked for explicitly.
#include <clustertwin/sim/backend.hpp>

#include <QTest>

using namespace ct::sim;

class TstBackend : public QObject {
    Q_OBJECT
private slots:
    void cpuIsAlwaysAvailable();
    void cudaAskedForExplicitlyIsAvailableOrSaysWhy();
    void unknownBackendIsAnError();
};

void TstBackend::cpuIsAlwaysAvailable() {
    const auto all = listBackends();
    QCOMPARE(all.size(), std::size_t(2));
    QVERIFY(all[0].kind == Backend::Cpu);
    QVERIFY(all[0].available);
    QVERIFY(chooseBackend("cpu") == Backend::Cpu);
}

void TstBackend::cudaAskedForExplicitlyIsAvailableOrSaysWhy() {
    const BackendInfo cuda = listBackends()[1];
    QVERIFY(cuda.kind == Backend::Cuda);
    if (cuda.available) {
        QVERIFY(chooseBackend("cuda") == Backend::Cuda);
        QVERIFY(chooseBackend("auto") == Backend::Cuda);
        QVERIFY(!cuda.device.empty());
        qInfo("CUDA device: %s", cuda.device.c_str());
    } else {
        QVERIFY(!cuda.why_not.empty());
        QVERIFY(chooseBackend("auto") == Backend::Cpu);
        try {
            chooseBackend("cuda");
            QFAIL("CUDA chosen although unavailable");
        } catch (const SimError& e) {
            QVERIFY(QString(e.what()).contains(QString::fromStdString(cuda.why_not)));
        }
    }
}

void TstBackend::unknownBackendIsAnError() { QVERIFY_THROWS_EXCEPTION(SimError, chooseBackend("tpu")); }

QTEST_GUILESS_MAIN(TstBackend)
#include "tst_backend.moc"
