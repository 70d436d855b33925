#pragma once
// What the image tests ask of a rendered picture: not blank, and close to a reviewed baseline in
// tests/baselines.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QSet>
#include <QString>
#include <QTest>

#include <cstdlib>

#include "test_paths.hpp"

/// Distinct colours on a 4-pixel grid: a blank or single-colour picture has 1, a drawn hall dozens.
inline int sampledColours(const QImage& img) {
    QSet<QRgb> colours;
    for (int y = 0; y < img.height(); y += 4)
        for (int x = 0; x < img.width(); x += 4) colours.insert(img.pixel(x, y));
    return static_cast<int>(colours.size());
}

// One stated threshold for every image test: at most 1.5 % of the pixels may differ by more than 48 in some
// channel. Mesa's llvmpipe and Qt's raster painter are deterministic on one machine; the margin absorbs other
// Mesa versions' antialiasing and font hinting.
inline constexpr double kMaxDifferingShare = 0.015;
inline constexpr int kChannelTolerance = 48;

/// Compares `actual` with tests/baselines/<name>.png; keeps the actual image next to the build when they
/// differ (or, when CT_UPDATE_BASELINES is set, copies it over the baseline: look at it before committing).
inline void compareWithBaseline(const QString& actual, const QString& name) {
    const QString base = QString(CT_BASELINE_DIR) + QStringLiteral("/") + name + ".png";
    if (qEnvironmentVariableIsSet("CT_UPDATE_BASELINES")) {  // the rest of the test goes on (several pictures)
        QFile::remove(base);
        QVERIFY(QFile::copy(actual, base));
        qWarning("baseline %s updated: look at it before committing", qPrintable(base));
        return;
    }
    const QImage a = QImage(actual).convertToFormat(QImage::Format_RGB32), b = QImage(base).convertToFormat(QImage::Format_RGB32);
    QVERIFY2(!a.isNull(), qPrintable("cannot read " + actual));
    QVERIFY2(!b.isNull(), qPrintable("no baseline " + base + " (run with CT_UPDATE_BASELINES=1 and look at it)"));
    QCOMPARE(a.size(), b.size());
    long differing = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
            if (std::abs(qRed(p) - qRed(q)) > kChannelTolerance || std::abs(qGreen(p) - qGreen(q)) > kChannelTolerance ||
                std::abs(qBlue(p) - qBlue(q)) > kChannelTolerance)
                ++differing;
        }
    const double share = double(differing) / (a.width() * a.height());
    if (share > kMaxDifferingShare) {
        const QString kept = QDir::currentPath() + "/" + name + ".actual.png";
        QFile::remove(kept);
        QFile::copy(actual, kept);
        QFAIL(qPrintable(QString("%1: %2 % of pixels differ (limit %3 %); actual image kept at %4")
                             .arg(name)
                             .arg(100 * share, 0, 'f', 2)
                             .arg(100 * kMaxDifferingShare)
                             .arg(kept)));
    }
}
