#include <clustertwin/runs/chunk_codec.hpp>

#include <clustertwin/runs/error.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace ct::runs::chunk {

namespace {

constexpr std::uint8_t kTimesMs = 1, kTimesXor = 2;

std::uint64_t bitsOf(double v) {
    if (!std::isfinite(v)) v = std::numeric_limits<double>::quiet_NaN();  // the store's "missing"
    return std::bit_cast<std::uint64_t>(v);
}

/// Writes bit fields most significant bit first.
class BitWriter {
public:
    explicit BitWriter(std::string& out) : out_(out) {}
    /// The low n bits of v (n in 1..64).
    void put(std::uint64_t v, int n) {
        if (n < 64) v &= (std::uint64_t{1} << n) - 1;
        while (n > 0) {
            const int take = std::min(n, 64 - used_);
            const std::uint64_t part = take == 64 ? v : (v >> (n - take)) & ((std::uint64_t{1} << take) - 1);
            acc_ = take == 64 ? part : (acc_ << take) | part;
            used_ += take;
            n -= take;
            if (used_ == 64) emit(8);
        }
    }
    void finish() {
        if (used_ == 0) return;
        acc_ <<= 64 - used_;
        emit((used_ + 7) / 8);
    }

private:
    void emit(int bytes) {
        for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<char>(acc_ >> (56 - 8 * i)));
        acc_ = 0;
        used_ = 0;
    }
    std::string& out_;
    std::uint64_t acc_ = 0;
    int used_ = 0;
};

class BitReader {
public:
    BitReader(const unsigned char* p, std::size_t size) : p_(p), bits_(size * 8) {}
    std::uint64_t get(int n) {
        if (n > 56) {
            const std::uint64_t hi = get(n - 32);
            return (hi << 32) | get(32);
        }
        if (pos_ + static_cast<std::size_t>(n) > bits_) throw StoreError("damaged sample chunk: it ends early");
        std::uint64_t w = 0;
        const std::size_t byte = pos_ >> 3, size = bits_ / 8;
        if (byte + 8 <= size) {
            std::memcpy(&w, p_ + byte, 8);
            if constexpr (std::endian::native == std::endian::little) w = __builtin_bswap64(w);
        } else {
            for (std::size_t i = 0; i < 8; ++i) w = (w << 8) | (byte + i < size ? p_[byte + i] : 0);
        }
        const std::uint64_t v = (w << (pos_ & 7)) >> (64 - n);
        pos_ += static_cast<std::size_t>(n);
        return v;
    }
    bool bit() { return get(1) != 0; }

private:
    const unsigned char* p_;
    std::size_t bits_, pos_ = 0;
};

/// An n-bit field as the encoder wrote it: Prometheus' ranges, -(2^(n-1) - 1) .. 2^(n-1).
std::uint64_t fromField(std::uint64_t v, int n) {
    return v > (std::uint64_t{1} << (n - 1)) ? v - (std::uint64_t{1} << n) : v;  // modulo 2^64: negative
}

/// Gorilla's value coding, shared by values and (coding 2) times.
class XorWriter {
public:
    void put(BitWriter& w, std::uint64_t v, bool first) {
        if (first) {
            w.put(v, 64);
            prev_ = v;
            return;
        }
        const std::uint64_t x = v ^ prev_;
        prev_ = v;
        if (x == 0) {
            w.put(0, 1);
            return;
        }
        int lead = std::countl_zero(x), trail = std::countr_zero(x);
        if (lead > 31) lead = 31;
        if (have_window_ && lead >= lead_ && trail >= trail_) {
            w.put(0b10, 2);
            w.put(x >> trail_, 64 - lead_ - trail_);
            return;
        }
        const int len = 64 - lead - trail;
        w.put(0b11, 2);
        w.put(static_cast<std::uint64_t>(lead), 5);
        w.put(static_cast<std::uint64_t>(len & 63), 6);
        w.put(x >> trail, len);
        lead_ = lead;
        trail_ = trail;
        have_window_ = true;
    }

private:
    std::uint64_t prev_ = 0;
    int lead_ = 0, trail_ = 0;
    bool have_window_ = false;
};

class XorReader {
public:
    std::uint64_t get(BitReader& r, bool first) {
        if (first) return prev_ = r.get(64);
        if (!r.bit()) return prev_;
        if (r.bit()) {
            lead_ = static_cast<int>(r.get(5));
            int len = static_cast<int>(r.get(6));
            if (len == 0) len = 64;
            if (lead_ + len > 64) throw StoreError("damaged sample chunk: a value's bits do not fit");
            trail_ = 64 - lead_ - len;
            have_window_ = true;
        } else if (!have_window_) {
            throw StoreError("damaged sample chunk: a value refers to no earlier one");
        }
        const int len = 64 - lead_ - trail_;
        prev_ ^= r.get(len) << trail_;
        return prev_;
    }

private:
    std::uint64_t prev_ = 0;
    int lead_ = 0, trail_ = 0;
    bool have_window_ = false;
};

void putVarint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

/// Whole milliseconds that give back exactly `t` (the usual case: scrapes, simulation steps).
bool wholeMs(double t, std::int64_t& ms) {
    if (!(std::fabs(t) < 9.0e12)) return false;  // |ms| well inside 2^53
    ms = std::llround(t * 1000.0);
    return static_cast<double>(ms) / 1000.0 == t;
}

}  // namespace

std::string encode(const std::pair<double, double>* points, std::size_t n) {
    std::vector<std::int64_t> ms(n);
    bool as_ms = true;
    for (std::size_t i = 0; i < n && as_ms; ++i) as_ms = wholeMs(points[i].first, ms[i]);
    std::string out;
    out.reserve(16 + n * 3);
    out.push_back(static_cast<char>(as_ms ? kTimesMs : kTimesXor));
    putVarint(out, n);
    BitWriter w(out);
    XorWriter tx, vx;
    std::int64_t prev_delta = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!as_ms) {
            tx.put(w, std::bit_cast<std::uint64_t>(points[i].first), i == 0);
        } else if (i == 0) {
            w.put(static_cast<std::uint64_t>(ms[0]), 64);
        } else {
            const std::int64_t delta = ms[i] - ms[i - 1];
            const std::int64_t dod = delta - prev_delta;
            prev_delta = delta;
            if (dod == 0) {
                w.put(0, 1);
            } else if (dod >= -8191 && dod <= 8192) {
                w.put(0b10, 2);
                w.put(static_cast<std::uint64_t>(dod), 14);
            } else if (dod >= -65535 && dod <= 65536) {
                w.put(0b110, 3);
                w.put(static_cast<std::uint64_t>(dod), 17);
            } else if (dod >= -524287 && dod <= 524288) {
                w.put(0b1110, 4);
                w.put(static_cast<std::uint64_t>(dod), 20);
            } else {
                w.put(0b1111, 4);
                w.put(static_cast<std::uint64_t>(dod), 64);
            }
        }
        vx.put(w, bitsOf(points[i].second), i == 0);
    }
    w.finish();
    return out;
}

void decode(const void* data, std::size_t size, std::vector<std::pair<double, double>>& out) {
    const auto* p = static_cast<const unsigned char*>(data);
    if (size < 2 || (p[0] != kTimesMs && p[0] != kTimesXor)) throw StoreError("damaged sample chunk: unknown coding");
    const bool as_ms = p[0] == kTimesMs;
    std::size_t at = 1;
    std::uint64_t n = 0;
    for (int shift = 0;; shift += 7) {
        if (at >= size || shift > 56) throw StoreError("damaged sample chunk: bad point count");
        n |= static_cast<std::uint64_t>(p[at] & 0x7f) << shift;
        if (!(p[at++] & 0x80)) break;
    }
    // Each point takes at least 2 bits: a count beyond that is damage, not a reason to allocate.
    if (n > (size - at) * 4 + 2) throw StoreError("damaged sample chunk: more points than bytes");
    out.reserve(out.size() + n);
    BitReader r(p + at, size - at);
    XorReader tx, vx;
    std::uint64_t ms = 0, delta = 0;  // modulo 2^64: damaged input cannot overflow a signed type
    for (std::uint64_t i = 0; i < n; ++i) {
        double t;
        if (!as_ms) {
            t = std::bit_cast<double>(tx.get(r, i == 0));
        } else {
            if (i == 0) {
                ms = r.get(64);
            } else {
                std::uint64_t dod = 0;
                if (r.bit()) {
                    if (!r.bit()) dod = fromField(r.get(14), 14);
                    else if (!r.bit()) dod = fromField(r.get(17), 17);
                    else if (!r.bit()) dod = fromField(r.get(20), 20);
                    else dod = r.get(64);
                }
                delta += dod;
                ms += delta;
            }
            t = static_cast<double>(static_cast<std::int64_t>(ms)) / 1000.0;
        }
        out.emplace_back(t, std::bit_cast<double>(vx.get(r, i == 0)));
    }
}

}  // namespace ct::runs::chunk
