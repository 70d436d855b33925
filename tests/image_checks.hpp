#pragma once
// What the image tests ask of a rendered picture.
#include <QImage>
#include <QSet>

/// Distinct colours on a 4-pixel grid: a blank or single-colour picture has 1, a drawn hall dozens.
inline int sampledColours(const QImage& img) {
    QSet<QRgb> colours;
    for (int y = 0; y < img.height(); y += 4)
        for (int x = 0; x < img.width(); x += 4) colours.insert(img.pixel(x, y));
    return static_cast<int>(colours.size());
}
