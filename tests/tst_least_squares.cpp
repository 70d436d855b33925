// The optimisers behind calibrate (issue 44) on models whose answer is known: least squares from a rough
// Jacobian and across a hinge, the series' noise weights, and manifold mapping. No engine runs: milliseconds.
#include <QTest>

#include <clustertwin/session/least_squares.hpp>
#include <clustertwin/session/manifold_map.hpp>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

class TstLeastSquares : public QObject {
    Q_OBJECT
private slots:
    void leastSquaresConvergesFromARoughJacobian();
    void leastSquaresSeesAcrossAHinge();
    void everyRunJudgedWithItsOffsetAtItsBest();
    void noiseWeightsFollowEachSeriesNoise();
    void quantisedSensorsCountTheirResolutionsNoise();
    void manifoldMappingReproducesALinearFineModel();
};

/// The least squares behind calibrate, on a model whose answer is known: 40 residuals, nonlinear in three
/// parameters (an exponential, a square, and a linear offset given exactly), the Jacobian taken once on a
/// "coarse" model whose sensitivities are 30 % off. From there, Broyden's update and the exact residuals must
/// find the parameters in a few runs; a target beyond the box ends at its bound.
void TstLeastSquares::leastSquaresConvergesFromARoughJacobian() {
    auto model = [](const std::vector<double>& u, double k) {
        std::vector<double> y(40);
        for (std::size_t i = 0; i < y.size(); ++i) {
            const double t = static_cast<double>(i) / 39.0;
            y[i] = std::exp(-k * 2.0 * u[0] * t) + k * (1.0 + t) * u[1] * u[1] + u[2];
        }
        return y;
    };
    for (const double target1 : {0.7, 1.3}) {  // the second beyond the upper bound of u[1]
        const std::vector<double> want{0.3, target1, 0.9};
        const std::vector<double> measured = model(want, 1.0);
        auto residuals = [&](const std::vector<double>& u, double k) {
            std::vector<double> r = model(u, k);
            for (std::size_t i = 0; i < r.size(); ++i) r[i] -= measured[i];
            return r;
        };
        ct::session::LeastSquaresProblem p;
        p.n = 3;
        p.max_runs = 25;
        p.exact = {false, false, true};
        p.xtol = 1e-7;
        p.ftol_rel = 1e-12;
        int expensive = 0;
        p.residuals = [&](const std::vector<double>& u) -> std::optional<std::vector<double>> {
            ++expensive;
            return residuals(u, 1.0);
        };
        p.jacobian = [&](const std::vector<double>& u, const std::vector<double>&, int& runs,
                         std::vector<ct::session::Evaluation>&) -> std::optional<ct::session::Jacobian> {
            runs = 0;  // on the cheap model
            ct::session::Jacobian j(3);
            const std::vector<double> base = residuals(u, 1.3);
            for (std::size_t k = 0; k < 3; ++k) {
                std::vector<double> uk = u;
                uk[k] += 0.1;
                const std::vector<double> rk = residuals(uk, 1.3);
                for (std::size_t i = 0; i < base.size(); ++i) j[k].push_back(k == 2 ? 1.0 : (rk[i] - base[i]) / 0.1);
            }
            return j;
        };
        const std::vector<double> u0{0.6, 0.4, 0.5};
        const auto res = ct::session::levenbergMarquardt(p, u0, residuals(u0, 1.0));
        QCOMPARE(res.runs, expensive);
        QVERIFY2(res.runs <= 20, qPrintable(QString::number(res.runs)));
        const double want1 = std::min(target1, 1.0);
        if (target1 <= 1.0) {
            QVERIFY2(std::abs(res.u[0] - 0.3) < 1e-4 && std::abs(res.u[1] - want1) < 1e-4 && std::abs(res.u[2] - 0.9) < 1e-4,
                     qPrintable(QString("%1 %2 %3 after %4 runs").arg(res.u[0]).arg(res.u[1]).arg(res.u[2]).arg(res.runs)));
            QVERIFY(res.sse < 1e-12);
        } else {
            QCOMPARE(res.u[1], 1.0);  // held at the bound; the others make up what they can
            double sse0 = 0;
            for (double v : residuals(u0, 1.0)) sse0 += v * v;
            QVERIFY2(res.sse < 0.1 * sse0, qPrintable(QString("%1 from %2").arg(res.sse).arg(sse0)));
        }
        qInfo("least squares: target u1 %.1f -> (%.5f, %.5f, %.5f) in %d runs (%d rejected, %d Jacobians): %s", target1, res.u[0], res.u[1],
              res.u[2], res.runs, res.rejected, res.jacobians, res.stop.c_str());
    }
    // The step alone: a parameter at its bound whose descent leaves the box stays there.
    const ct::session::Jacobian j{{1.0, 0.0}, {0.0, 1.0}};
    const auto d = ct::session::boundedStep(j, {0.5, -0.5}, {0.0, 0.5}, 0.0);
    QCOMPARE(d[0], 0.0);
    QVERIFY(std::abs(d[1] - 0.5) < 1e-12);
}

/// Variable projection (fitExact): a parameter the residuals are linear in (a sensor's offset) is moved to its best
/// for each run's residuals, within its bounds, and the residuals with it; the search judges every run so. Here a
/// nonlinear parameter whose effect is nearly an offset (a slope of a tenth on top of it), its Jacobian taken on a
/// model 30 % off: from a start far from both, the search ends at the truth in 8 runs, and at its end the offset is
/// at its best for the residuals it reports (their sum over the offset's column is zero).
void TstLeastSquares::everyRunJudgedWithItsOffsetAtItsBest() {
    // The step alone: the optimum of r + 10 d inside the box, and at the bound when it lies outside.
    std::vector<double> uf{0.5}, rf{1.0, 2.0, 3.0};
    QVERIFY(std::abs(ct::session::fitExact({{10.0, 10.0, 10.0}}, {true}, uf, rf) - 2.0) < 1e-12);
    QVERIFY(std::abs(uf[0] - 0.3) < 1e-12 && std::abs(rf[0] + 1.0) < 1e-12 && std::abs(rf[2] - 1.0) < 1e-12);
    uf = {0.5};
    rf = {1.0, 2.0, 3.0};
    QVERIFY(std::abs(ct::session::fitExact({{1.0, 1.0, 1.0}}, {true}, uf, rf) - 8.75) < 1e-12);
    QCOMPARE(uf[0], 0.0);
    // A column that is not exact is left alone.
    uf = {0.5, 0.5};
    rf = {1.0, 2.0, 3.0};
    ct::session::fitExact({{5.0, 5.0, 5.0}, {1.0, 1.0, 1.0}}, {false, true}, uf, rf);
    QCOMPARE(uf[0], 0.5);
    QCOMPARE(uf[1], 0.0);
    auto model = [](const std::vector<double>& u, double k) {
        std::vector<double> y(30);
        for (std::size_t i = 0; i < y.size(); ++i) {
            const double t = static_cast<double>(i) / 29.0;
            y[i] = k * std::sqrt(0.2 + u[0]) * (1.0 + 0.1 * t) + 2.0 * u[1];
        }
        return y;
    };
    const std::vector<double> measured = model({0.4, 0.6}, 1.0);
    auto residuals = [&](const std::vector<double>& u, double k) {
        std::vector<double> r = model(u, k);
        for (std::size_t i = 0; i < r.size(); ++i) r[i] -= measured[i];
        return r;
    };
    ct::session::LeastSquaresProblem p;
    p.n = 2;
    p.max_runs = 8;  // judged at the run's offset instead, the search was still 0.15 off after 8 runs, 0.006 after 12
    p.exact = {false, true};
    p.xtol = 1e-7;
    p.ftol_rel = 1e-12;
    p.residuals = [&](const std::vector<double>& u) -> std::optional<std::vector<double>> { return residuals(u, 1.0); };
    p.jacobian = [&](const std::vector<double>& u, const std::vector<double>&, int& runs,
                     std::vector<ct::session::Evaluation>&) -> std::optional<ct::session::Jacobian> {
        runs = 0;
        const std::vector<double> base = residuals(u, 1.3), up = residuals({u[0] + 0.1, u[1]}, 1.3);
        ct::session::Jacobian j(2);
        for (std::size_t i = 0; i < base.size(); ++i) {
            j[0].push_back((up[i] - base[i]) / 0.1);
            j[1].push_back(2.0);
        }
        return j;
    };
    const std::vector<double> u0{0.95, 0.1};
    const auto res = ct::session::levenbergMarquardt(p, u0, residuals(u0, 1.0));
    QVERIFY2(std::abs(res.u[0] - 0.4) < 1e-3 && std::abs(res.u[1] - 0.6) < 1e-3,
             qPrintable(QString("%1 %2 after %3 runs: %4").arg(res.u[0]).arg(res.u[1]).arg(res.runs).arg(res.stop.c_str())));
    double along = 0;
    for (double v : residuals(res.u, 1.0)) along += 2.0 * v;
    QVERIFY2(std::abs(along) < 1e-9, qPrintable(QString::number(along)));
    qInfo("separable: (%.5f, %.5f) in %d runs (%d rejected): %s", res.u[0], res.u[1], res.runs, res.rejected, res.stop.c_str());
}

/// A parameter that does nothing on one side of a kink, as a cooling unit's airflow scale does nothing while its
/// rating exceeds what its airflow rule asks of it: r = a·max(0, 0.45 − u0) + b·u1 − measured, from u0 = 0.6 on
/// the flat side, the measurements made at u0 = 0.35. A forward difference there sees nothing; the secant to a
/// quarter of the range the other way does, the search goes on from that run (it is better), and ends at the
/// truth. With per-run noise (a lattice's eddies) the flat step moves every residual as much as the other
/// parameter's step does, and still the sum of squares tells it apart and takes the secant.
void TstLeastSquares::leastSquaresSeesAcrossAHinge() {
    for (const double noise : {0.0, 0.01}) {
        std::mt19937 rng(7);
        std::normal_distribution<double> eddies(0.0, noise > 0 ? noise : 1.0);
        auto model = [&](const std::vector<double>& u) {
            std::vector<double> y(40);
            for (std::size_t i = 0; i < y.size(); ++i) {
                const double t = static_cast<double>(i) / 39.0;
                y[i] = (1.0 + t) * std::max(0.0, 0.45 - u[0]) + 0.4 * (1.5 - t) * u[1];
            }
            return y;
        };
        const std::vector<double> measured = model({0.35, 0.7});
        int runs = 0;
        auto residuals = [&](const std::vector<double>& u) -> std::optional<std::vector<double>> {
            ++runs;
            std::vector<double> r = model(u);
            for (std::size_t i = 0; i < r.size(); ++i) r[i] += (noise > 0 ? eddies(rng) : 0.0) - measured[i];
            return r;
        };
        ct::session::DifferenceProblem dp;
        dp.run = residuals;
        const std::vector<double> u0{0.6, 0.5};
        const std::vector<double> r0 = *residuals(u0);
        runs = 0;
        const auto dj = ct::session::differenceJacobian(dp, u0, r0);
        QVERIFY(dj.has_value());
        QCOMPARE(static_cast<int>(dj->runs.size()), runs);
        QCOMPARE(runs, 3);  // two forward differences and the hinge's secant
        QCOMPARE(dj->runs.back().u[0], 0.35);
        if (noise > 0) continue;
        QVERIFY(std::abs(dj->jac[0][0] + 0.1 / 0.35) < 1e-9);  // the secant from 0.7 to 0.35: -0.1 / 0.35 at t = 0
        ct::session::LeastSquaresProblem p;
        p.n = 2;
        p.max_runs = 15;
        p.xtol = 1e-7;
        p.ftol_rel = 1e-12;
        p.residuals = residuals;
        p.jacobian = [&](const std::vector<double>& u, const std::vector<double>& r, int& n,
                         std::vector<ct::session::Evaluation>& seen) -> std::optional<ct::session::Jacobian> {
            const int before = runs;
            auto j = ct::session::differenceJacobian(dp, u, r);
            n = runs - before;
            if (!j) return std::nullopt;
            seen = j->runs;
            return j->jac;
        };
        runs = 0;
        const auto res = ct::session::levenbergMarquardt(p, u0, r0);
        QCOMPARE(res.runs, runs);
        QVERIFY(res.moved >= 1 && res.moved <= res.jacobians);
        QVERIFY2(std::abs(res.u[0] - 0.35) < 1e-4 && std::abs(res.u[1] - 0.7) < 1e-4,
                 qPrintable(QString("%1 %2 after %3 runs (%4)").arg(res.u[0]).arg(res.u[1]).arg(res.runs).arg(res.stop.c_str())));
        qInfo("hinge: (%.5f, %.5f) in %d runs, %d Jacobians, moved %d: %s", res.u[0], res.u[1], res.runs, res.jacobians, res.moved,
              res.stop.c_str());
    }
}

/// Series of unequal noise around slow trends (what a parameter does): white noise of 0.05, 0.1 and 1 K on a ramp
/// and a sine of an hour. Each weight is the median series' noise over its own (the ramps and sines do not count:
/// they change little from one minute to the next); a series without noise counts as a tenth of the median, one
/// of two samples has weight 1.
void TstLeastSquares::noiseWeightsFollowEachSeriesNoise() {
    std::mt19937 rng(44);
    auto series = [&](double sigma, double trend) {
        std::normal_distribution<double> n(0.0, 1.0);
        std::vector<double> r(240);
        for (std::size_t t = 0; t < r.size(); ++t)
            r[t] =
                trend * static_cast<double>(t) / 240.0 + 0.5 * std::sin(static_cast<double>(t) / 60.0) + (sigma > 0 ? sigma * n(rng) : 0.0);
        return r;
    };
    const std::vector<std::vector<double>> s{series(0.1, 2.0), series(1.0, -1.0), series(0.05, 0.0),
                                             series(0.1, 0.0), series(0.0, 0.0),  {5.0, -5.0}};
    const std::vector<double> w = ct::session::noiseWeights(s);
    QCOMPARE(w.size(), s.size());
    // The median of the five estimates is a 0.1 K series': weight 1 there, 0.1 for the 1 K one, 2 for 0.05 K.
    for (std::size_t i : {std::size_t(0), std::size_t(3)}) QVERIFY2(std::abs(w[i] - 1.0) < 0.15, qPrintable(QString::number(w[i])));
    QVERIFY2(std::abs(w[1] - 0.1) < 0.015, qPrintable(QString::number(w[1])));
    QVERIFY2(std::abs(w[2] - 2.0) < 0.3, qPrintable(QString::number(w[2])));
    // No noise at all: the floor, a tenth of the median's σ, so ten times the median weight (the sine's own
    // minute-to-minute change is below it).
    QVERIFY2(std::abs(w[4] - 10.0) < 1e-9, qPrintable(QString::number(w[4])));
    QCOMPARE(w[5], 1.0);
    // Nothing to tell apart: every weight 1.
    for (double v : ct::session::noiseWeights({{1, 1, 1}, {2, 2, 2}})) QCOMPARE(v, 1.0);
    QVERIFY(ct::session::noiseWeights({}).empty());
}

/// A sensor that reads whole degrees (or whole °F, 5/9 K) mostly repeats its last reading: its steps look
/// quiet, yet each reading is off by up to half a degree. quantisationNoise finds the step and gives its noise,
/// q/√12; a series that is not quantised (every value its own, or gaps that are no multiple of one step) gives 0.
/// Given to noiseWeights as the series' σ it keeps the whole-degree series from outweighing an honest one of
/// 0.1 K, and one that flips between two degrees from being cast off as ten times noisier than it is.
void TstLeastSquares::quantisedSensorsCountTheirResolutionsNoise() {
    std::mt19937 rng(7);
    std::normal_distribution<double> n(0.0, 0.1);
    // Two days of minutes: enough steps for the median's estimate of σ to be good to a few per cent.
    std::vector<double> truth(2880), fine(2880), whole(2880), fahrenheit(2880);
    for (std::size_t t = 0; t < truth.size(); ++t) {
        truth[t] = 24.0 + 0.8 * std::sin(static_cast<double>(t) / 90.0);
        fine[t] = truth[t] + n(rng);
        whole[t] = std::round(truth[t]);
        fahrenheit[t] = (std::round(truth[t] * 1.8 + 32) - 32) / 1.8;
    }
    QCOMPARE(ct::session::quantisationNoise(fine), 0.0);
    QVERIFY(std::abs(ct::session::quantisationNoise(whole) - 1 / std::sqrt(12.0)) < 1e-9);
    QVERIFY(std::abs(ct::session::quantisationNoise(fahrenheit) - 5.0 / 9.0 / std::sqrt(12.0)) < 1e-9);
    whole.push_back(std::nan(""));  // skipped
    QVERIFY(std::abs(ct::session::quantisationNoise(whole) - 1 / std::sqrt(12.0)) < 1e-9);
    // Repeats whose gaps are no multiple of one step, too few repeats, one value: not quantised.
    QCOMPARE(ct::session::quantisationNoise({1, 1, 1, 1.3, 1.3, 1.3, 2, 2, 2}), 0.0);
    QCOMPARE(ct::session::quantisationNoise({1, 2, 3, 4, 4}), 0.0);
    QCOMPARE(ct::session::quantisationNoise({3, 3, 3}), 0.0);
    // The residuals against a smooth model: the whole-degree series' steps are mostly 0, so by its steps it would
    // weigh several times the honest series; by its rounding, 0.1 K against 0.29 K: about a third.
    std::vector<double> r_fine(truth.size()), r_whole(truth.size());
    for (std::size_t t = 0; t < truth.size(); ++t) {
        r_fine[t] = truth[t] - fine[t];
        r_whole[t] = truth[t] - std::round(truth[t]);
    }
    const auto bare = ct::session::noiseWeights({r_fine, r_whole, r_fine});
    QVERIFY2(bare[1] > 3 * bare[0], qPrintable(QString::number(bare[1] / bare[0])));
    const auto floored = ct::session::noiseWeights({r_fine, r_whole, r_fine},
                                                   {ct::session::quantisationNoise(fine), ct::session::quantisationNoise(whole), 0.0});
    QVERIFY2(std::abs(floored[1] / floored[0] - 0.1 / (1 / std::sqrt(12.0))) < 0.03, qPrintable(QString::number(floored[1] / floored[0])));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ct::session::noiseWeights({r_fine}, {0.1, 0.2}));
    // A reading that sits at a half degree flips between the two at every sample: by its steps σ is about 1 K, by
    // its rounding 0.29 K. The room's own eddies, as a simulated series shows them (0.1 K here), add in quadrature,
    // once for the measured eddies and once for the simulated ones.
    std::vector<double> flips(truth.size()), sim(truth.size());
    for (std::size_t t = 0; t < truth.size(); ++t) {
        flips[t] = (t % 2 == 0 ? 24.0 : 25.0) - 24.5;
        sim[t] = 24.5 + n(rng);
    }
    QVERIFY(ct::session::stepSigma(flips) > 1.0);
    QCOMPARE(ct::session::stepSigma({1.0, 2.0}), -1.0);
    const double q = 1 / std::sqrt(12.0), sq = ct::session::quantisedSigma(q, sim);
    QVERIFY2(std::abs(sq - std::sqrt(2 * 0.01 + q * q)) < 0.01, qPrintable(QString::number(sq)));
    QCOMPARE(ct::session::quantisedSigma(0.0, sim), 0.0);
    const auto wf = ct::session::noiseWeights({r_fine, flips, r_fine}, {0.0, q, 0.0});
    QVERIFY2(std::abs(wf[1] / wf[0] - 0.1 / q) < 0.03, qPrintable(QString::number(wf[1] / wf[0])));
    // A whole-degree sensor that read 24 °C for two days has no step to tell its resolution by: it takes the
    // quantised series' (the median of theirs), not the 0 that would let it outweigh every other series.
    const std::vector<double> stuck(truth.size(), 24.0);
    const auto floors = ct::session::quantisationFloors({fine, whole, fahrenheit, whole, stuck, {24, 24}});
    QCOMPARE(floors.size(), std::size_t(6));
    QCOMPARE(floors[0], 0.0);
    QVERIFY(std::abs(floors[4] - 1 / std::sqrt(12.0)) < 1e-9);         // the median of 0.289, 0.160 and 0.289
    QCOMPARE(floors[5], 0.0);                                          // two samples: too few to say
    QCOMPARE(ct::session::quantisationFloors({fine, stuck})[1], 0.0);  // nothing quantised to borrow from
}

/// Manifold mapping on models whose answer is known: a fine model f(x) = A x + b and a coarse one c(x) = B x + d
/// that differ in offset and in every sensitivity. With one pair the map is output space mapping (exact at that
/// point, the coarse model's slope elsewhere); with n + 1 pairs of n parameters it reproduces the fine model
/// everywhere, so the optimum of the mapped coarse model is the fine model's.
void TstLeastSquares::manifoldMappingReproducesALinearFineModel() {
    const double A[5][2] = {{1.0, 0.5}, {-0.3, 2.0}, {0.7, 0.7}, {2.0, -1.0}, {0.1, 0.4}};
    const double B[5][2] = {{0.6, 0.9}, {-0.1, 1.2}, {1.1, 0.2}, {1.5, -0.4}, {0.3, 0.1}};
    auto model = [](const double(&m)[5][2], double off, double x, double y) {
        std::vector<double> r(5);
        for (int i = 0; i < 5; ++i) r[i] = m[i][0] * x + m[i][1] * y + off + i;
        return r;
    };
    auto fine = [&](double x, double y) { return model(A, 20.0, x, y); };
    auto coarse = [&](double x, double y) { return model(B, 18.5, x, y); };
    ct::session::ManifoldMap map(2);
    QCOMPARE(map.map(coarse(1, 1)), coarse(1, 1));  // nothing to map with yet
    map.add(fine(0.5, 0.5), coarse(0.5, 0.5));
    const auto at_ref = map.map(coarse(0.5, 0.5));
    const auto shifted = map.map(coarse(1.0, 0.2));
    for (int i = 0; i < 5; ++i) {
        QVERIFY(std::abs(at_ref[static_cast<std::size_t>(i)] - fine(0.5, 0.5)[static_cast<std::size_t>(i)]) < 1e-12);
        const double want = fine(0.5, 0.5)[static_cast<std::size_t>(i)] + coarse(1.0, 0.2)[static_cast<std::size_t>(i)] -
                            coarse(0.5, 0.5)[static_cast<std::size_t>(i)];
        QVERIFY(std::abs(shifted[static_cast<std::size_t>(i)] - want) < 1e-12);
    }
    map.add(fine(0.9, 0.4), coarse(0.9, 0.4));
    map.add(fine(0.6, 0.8), coarse(0.6, 0.8));
    QCOMPARE(map.rank(), std::size_t(2));
    for (auto [x, y] : {std::pair{0.0, 0.0}, std::pair{1.3, -0.7}, std::pair{0.25, 2.0}}) {
        const auto got = map.map(coarse(x, y)), want = fine(x, y);
        for (std::size_t i = 0; i < 5; ++i)
            QVERIFY2(std::abs(got[i] - want[i]) < 1e-9, qPrintable(QString("%1 vs %2").arg(got[i]).arg(want[i])));
    }
    // The history keeps the last three pairs; the same point again is no direction (only (0.9, 0.4) is left).
    map.add(fine(0.6, 0.8), coarse(0.6, 0.8));
    QCOMPARE(map.pairs(), std::size_t(3));
    QCOMPARE(map.rank(), std::size_t(1));
    // A missing sample is no difference (no NaN spreads); responses of another length are refused.
    auto holed = coarse(0.2, 0.3);
    holed[2] = std::nan("");
    for (double v : map.map(holed)) QVERIFY(std::isfinite(v));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, map.map(std::vector<double>(4, 0.0)));
}

QTEST_GUILESS_MAIN(TstLeastSquares)
#include "tst_least_squares.moc"
