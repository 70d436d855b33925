#pragma once
// The store's sample chunks: up to kChunkSamples points of one series, compressed as Prometheus' TSDB and
// Facebook's Gorilla do (Pelkonen et al., VLDB 2015): times as delta-of-delta, values XOR'ed with the one
// before. Lossless: every time and value comes back bit for bit (non-finite values come back as NaN, the
// store's "missing").
//
// Layout: byte 0 the time coding (1: integer milliseconds, delta-of-delta; 2: times that are not whole
// milliseconds, XOR'ed like values), then the point count as a LEB128 varint, then one bit stream.
//   times (coding 1): the first as 64 bits, then each delta-of-delta as
//     '0' (0) | '10' + 14 bits | '110' + 17 bits | '1110' + 20 bits | '1111' + 64 bits (two's complement)
//   values: the first as 64 bits, then each XOR with the previous as
//     '0' (equal) | '10' + the meaningful bits inside the previous window
//     | '11' + 5 bits leading zeros + 6 bits length (0 = 64) + the meaningful bits
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace ct::runs::chunk {

/// Points per chunk: Prometheus' 120 doubled (fewer rows; a latest-value lookup still decodes < 2 µs).
constexpr std::size_t kChunkSamples = 240;

/// Encodes n points, times ascending.
std::string encode(const std::pair<double, double>* points, std::size_t n);
/// Appends the chunk's points to `out`. Throws StoreError when the bytes are not a valid chunk.
void decode(const void* data, std::size_t size, std::vector<std::pair<double, double>>& out);

}  // namespace ct::runs::chunk
