// The lattice air's heat transport (van Leer's limited fluxes stepped by forward Euler, air_tvd.cpp) against what
// it must do: create no new extremes up to its stable step, half the upwind one, and follow the analytic
// advection-diffusion with no numerical dispersion but forward Euler's own (−u²·dt/2, the modified equation).
#include <clustertwin/sim/air/air_model.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include <QTest>

#include <algorithm>
#include <cmath>

using namespace ct::sim;

class TstAirTvd : public QObject {
    Q_OBJECT
private slots:
    void squareWaveMakesNoNewExtremes_data();
    void squareWaveMakesNoNewExtremes();
    void followsTheAnalyticSolutionWithForwardEulersDispersion();
};

namespace {
constexpr double kH = 0.1, kU = 0.2, kArea = kH * kH, kVol = kH * kH * kH;

/// The grid as a 1D channel along x: air blown in at its west cell at 0.2 m/s (at `t_in`) and taken out at its
/// east cell, so every interior face carries the same flux.
void channel(AirModel& a, double t_in) {
    const int in = a.addPort({a.index(0, 0, 0)}, true);
    const int out = a.addPort({a.index(a.nx() - 1, 0, 0)}, false);
    a.setPortFlow(in, kU * kArea);
    a.setPortFlow(out, kU * kArea);
    a.setPortTemperature(in, t_in);
    a.solveFlow(1e-10);
}

/// 20 °C with a 10 K square wave over cells [from, to).
void squareWave(AirModel& a, int from, int to) {
    a.fill(20.0);
    for (int i = from; i < to; ++i) a.setTemperature(a.index(i, 0, 0), 30.0);
}

/// Erfc front of a flux (third-type) inlet, as in tst_air (van Genuchten & Alves 1982, solution A4).
double fluxInlet(double x, double t, double u, double D) {
    const double s = 2 * std::sqrt(D * t);
    return 0.5 * std::erfc((x - u * t) / s) + std::sqrt(u * u * t / (M_PI * D)) * std::exp(-(x - u * t) * (x - u * t) / (4 * D * t)) -
           0.5 * (1 + u * x / D + u * u * t / D) * std::exp(u * x / D) * std::erfc((x + u * t) / s);
}
}  // namespace

void TstAirTvd::squareWaveMakesNoNewExtremes_data() {
    QTest::addColumn<double>("courant");
    // Up to the model's own step: 0.95 of half the upwind limit.
    for (double c : {0.1, 0.3, 0.475}) QTest::newRow(qPrintable(QString("nu %1").arg(c))) << c;
}

void TstAirTvd::squareWaveMakesNoNewExtremes() {
    // A 10 K square wave carried 6 m down a 12 m channel: no cell ever leaves [20, 30] °C (TVD), the wave keeps its
    // heat (conservative; none of it has reached the outlet) and its middle stays at 30 °C (the fronts stay sharp).
    QFETCH(double, courant);
    ThreadPool pool(2);
    AirGridSpec spec{12.0, kH, kH, kH, 0.0};
    spec.tvd = true;
    AirModel a(spec, pool);
    channel(a, 20.0);
    QVERIFY2(
        std::fabs(a.stableDt() - 0.475 * kVol / (kU * kArea)) < 1e-6 * a.stableDt(),
        qPrintable(QString("stable step %1 s, 0.95 of half the upwind limit %2 s").arg(a.stableDt()).arg(0.475 * kVol / (kU * kArea))));
    squareWave(a, 10, 30);
    const double dt = courant * kVol / (kU * kArea);
    const int steps = static_cast<int>(std::lround(6.0 / (kU * dt)));
    float lo = 20.f, hi = 30.f;
    for (int s = 0; s < steps; ++s) {
        a.step(dt);
        for (int i = 0; i < a.nx(); ++i) {
            const auto t = static_cast<float>(a.temperature(a.index(i, 0, 0)));
            lo = std::min(lo, t);
            hi = std::max(hi, t);
        }
    }
    QVERIFY2(lo >= 20.f - 1e-4f && hi <= 30.f + 1e-4f, qPrintable(QString("the field went to %1..%2 °C").arg(lo).arg(hi)));
    double excess = 0;  // K·cells above 20 °C: the wave's 20 cells × 10 K, none of it out of the channel yet
    float peak = 0;
    for (int i = 0; i < a.nx(); ++i) {
        excess += a.temperature(a.index(i, 0, 0)) - 20.0;
        peak = std::max(peak, static_cast<float>(a.temperature(a.index(i, 0, 0))));
    }
    QVERIFY2(std::fabs(excess - 200.0) < 1e-2, qPrintable(QString("the wave holds %1 K·cells, not 200").arg(excess)));
    qInfo("nu %.2f: %d steps, field %.5f..%.5f °C, peak %.3f °C", courant, steps, lo, hi, peak);
    QVERIFY2(peak > 29.9f, qPrintable(QString("the wave's peak fell to %1 °C").arg(peak)));
}

void TstAirTvd::followsTheAnalyticSolutionWithForwardEulersDispersion() {
    // The erfc front of a flux inlet with diffusivity κ, stepped as the model steps itself. The upwind scheme
    // adds u·h/2·(1 − ν) of numerical dispersion (tst_air compares it with that added); the limited second-order
    // fluxes add none to first order, and forward Euler takes u²·dt/2 away (the modified equation:
    // T_tt = u²·T_xx), so the front is compared with κ − u²·dt/2.
    ThreadPool pool(1);
    const double kappa = 0.02, t_end = 40.0;
    AirGridSpec spec{20.0, kH, kH, kH, kappa};
    spec.tvd = true;
    AirModel a(spec, pool);
    channel(a, 1.0);
    a.fill(0.0);
    const int n = a.advance(t_end, nullptr);
    const double co = kU * t_end / n / kH;
    double worst = 0, worst_kappa = 0, worst_upwind_d = 0;
    const double d_upwind = kappa + kU * kH / 2 * (1 - co), d = kappa - kU * kU * (t_end / n) / 2;
    for (int i = 1; i < 150; ++i) {
        const double x = (i + 0.5) * kH, t = a.temperature(a.index(i, 0, 0));
        worst = std::max(worst, std::fabs(t - fluxInlet(x, t_end, kU, d)));
        worst_kappa = std::max(worst_kappa, std::fabs(t - fluxInlet(x, t_end, kU, kappa)));
        worst_upwind_d = std::max(worst_upwind_d, std::fabs(t - fluxInlet(x, t_end, kU, d_upwind)));
    }
    qInfo("Courant %.3f: max |T - analytic(%.4f m2/s)| = %.4f; against kappa alone %.4f, with the upwind's dispersion %.4f", co, d, worst,
          worst_kappa, worst_upwind_d);
    // The limiter clips the front's ends a little: within 0.008 of the front's 1 K (tst_air's upwind: 0.005).
    QVERIFY2(worst < 0.008, qPrintable(QString("the profile deviates from the analytic solution by %1").arg(worst)));
    QVERIFY2(worst < 0.5 * worst_kappa, "forward Euler's dispersion does not explain the profile");
    QVERIFY2(worst < 0.25 * worst_upwind_d, "the profile is nearly as dispersed as the upwind scheme's");
}

QTEST_GUILESS_MAIN(TstAirTvd)
#include "tst_air_tvd.moc"
