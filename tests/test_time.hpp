#pragma once
// Waits in tests, scaled for slow builds: the asan preset sets CT_TEST_TIME_SCALE (ASan + UBSan run the
// physics about four times slower); 1 otherwise. Only limits on waiting grow, never what is measured.
#include <QtGlobal>

#include <algorithm>

inline int testMs(int ms) {
    static const double scale = std::max(1.0, qEnvironmentVariable("CT_TEST_TIME_SCALE", "1").toDouble());
    return static_cast<int>(ms * scale);
}
