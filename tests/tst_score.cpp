// Scoring a simulated series against a measured one (issue 44): the statistics against hand-computed values,
// ASHRAE Guideline 14's sign and degrees of freedom, interpolation in time, what is left out.
#include <clustertwin/runs/score.hpp>

#include <QTest>

#include <cmath>

using namespace ct::runs;

class TstScore : public QObject {
    Q_OBJECT
private slots:
    void statisticsMatchHandComputedValues() {
        // y = 10, 20, 30, 40 measured; ŷ = 12, 18, 33, 40 simulated: e = ŷ − y = 2, −2, 3, 0.
        const Points measured{{0, 10}, {60, 20}, {120, 30}, {180, 40}};
        const Points simulated{{0, 12}, {60, 18}, {120, 33}, {180, 40}};
        ErrorAccumulator acc;
        QCOMPARE(pairSeries(measured, simulated, acc), std::size_t(4));
        const ErrorStats s = acc.stats();
        QCOMPARE(s.n, std::size_t(4));
        QVERIFY(std::fabs(s.rmse - std::sqrt(17.0 / 4)) < 1e-12);
        QCOMPARE(s.mae, 1.75);
        QCOMPARE(s.bias, 0.75);
        QCOMPARE(s.max_abs, 3.0);
        QCOMPARE(s.measured_mean, 25.0);
        // Guideline 14: n − p degrees of freedom (p = 1), and NMBE of measured minus simulated: the model reads
        // high here, so NMBE is negative.
        QVERIFY(std::fabs(s.cv_rmse_pct - 100 * std::sqrt(17.0 / 3) / 25) < 1e-12);
        QVERIFY(std::fabs(s.nmbe_pct - (-4.0)) < 1e-12);
        const ErrorStats p0 = acc.stats(0);
        QVERIFY(std::fabs(p0.nmbe_pct - (-3.0)) < 1e-12);
    }

    void simulatedValuesAreInterpolatedInTime() {
        const Points simulated{{0, 20}, {10, 30}, {20, 25}};
        QCOMPARE(interpolateAt(simulated, 5), 25.0);
        QCOMPARE(interpolateAt(simulated, 15), 27.5);
        QCOMPARE(interpolateAt(simulated, 10), 30.0);
        QVERIFY(std::isnan(interpolateAt(simulated, -1)));  // outside the simulated span: nothing to compare
        QVERIFY(std::isnan(interpolateAt(simulated, 21)));
        QVERIFY(std::isnan(interpolateAt({}, 0)));
        // Measured samples outside the span, NaN or outside the window are not scored.
        const Points measured{{-5, 20}, {5, 24}, {12, std::nan("")}, {15, 27.5}, {25, 0}};
        ErrorAccumulator acc;
        QCOMPARE(pairSeries(measured, simulated, acc), std::size_t(2));
        QCOMPARE(acc.stats().bias, 0.5);  // 25 − 24 and 27.5 − 27.5
        ErrorAccumulator windowed;
        QCOMPARE(pairSeries(measured, simulated, windowed, 10, 20), std::size_t(1));
    }

    void accumulatorsAddUp() {
        ErrorAccumulator a, b, all;
        for (int i = 0; i < 50; ++i) {
            const double y = 20 + 0.1 * i, yhat = y + std::sin(i);
            (i % 2 ? a : b).add(y, yhat);
            all.add(y, yhat);
        }
        a.add(b);
        const ErrorStats x = a.stats(), y = all.stats();
        QCOMPARE(x.n, y.n);
        QVERIFY(std::fabs(x.rmse - y.rmse) < 1e-12 && std::fabs(x.bias - y.bias) < 1e-12 && x.max_abs == y.max_abs);
        QVERIFY(std::fabs(x.cv_rmse_pct - y.cv_rmse_pct) < 1e-9);
    }

    void emptyAndZeroMeanAreNaNNotInfinite() {
        const ErrorStats none = ErrorAccumulator().stats();
        QCOMPARE(none.n, std::size_t(0));
        QVERIFY(std::isnan(none.rmse) && std::isnan(none.cv_rmse_pct));
        ErrorAccumulator zero;
        zero.add(-1, 0);
        zero.add(1, 0);
        zero.add(0, 0);
        const ErrorStats z = zero.stats();
        QVERIFY(std::isfinite(z.rmse) && std::isnan(z.cv_rmse_pct) && std::isnan(z.nmbe_pct));
    }
};

QTEST_GUILESS_MAIN(TstScore)
#include "tst_score.moc"
