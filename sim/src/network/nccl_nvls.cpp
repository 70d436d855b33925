// NVLS, NVLink SHARP (nccl.hpp): an all-reduce that the NVSwitches of one server reduce and multicast, as NCCL runs
// it inside a DGX H100 or B200 by default; and NCCL's effective NVLink bandwidth, which every algorithm's NVLink
// transfers move at.
#include <clustertwin/sim/nccl.hpp>

#include "nccl_impl.hpp"

#include <algorithm>
#include <vector>

namespace ct::sim::net {

double nvlinkShare(const std::string& arch) {
    // NCCL's topo.h: SM80_NVLINK_BW 20.0, SM90_NVLINK_BW 20.6, SM100_NVLINK_BW 40.1 GB/s per link, over the
    // NVLink 3 and 4 links' 25 GB/s and NVLink 5's 50 GB/s each way. NCCL's maintainers quote the result for a
    // DGX H100 as ~370 GB/s of the 450 GB/s line rate "with the protocol overhead" (nccl-tests issue #212).
    if (arch == "ampere") return 20.0 / 25.0;
    if (arch == "hopper") return 20.6 / 25.0;
    if (arch == "blackwell") return 40.1 / 50.0;
    return 1.0;
}

double nvlsEfficiency(const std::string& arch) {
    if (arch == "hopper") return 0.85;
    if (arch == "blackwell") return 0.74;
    return 0.0;
}

namespace nccl_detail {

namespace {

/// The NVLink speeds NCCL's topology search tries per channel, fastest first (search.cc: sm90SpeedArrayIntra,
/// sm100SpeedArrayIntra), GB/s.
const std::vector<double>& speedTable(const std::string& arch) {
    static const std::vector<double> hopper = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
    static const std::vector<double> blackwell = {90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};
    return arch == "blackwell" ? blackwell : hopper;
}

}  // namespace

bool nvlinkOnly(const Topology& t, const std::vector<int>& path) {
    if (path.empty()) return false;
    for (int a : path)
        if (t.arc(a).kind != LinkKind::NvLink) return false;
    return true;
}

bool nvlsPossible(const Setup& s) {
    const std::size_t n = s.ranks.size();
    if (s.op != CollectiveOp::AllReduce || s.nodes != 1 || n < 2 || !(nvlsEfficiency(s.architecture) > 0)) return false;
    for (std::size_t i = 0; i < n; ++i)
        if (!nvlinkOnly(s.t, s.r.route(s.ranks[i], s.ranks[(i + 1) % n]))) return false;
    return true;
}

double nvlsBandwidthOf(const Setup& s, const std::vector<int>& gpus) {
    const std::size_t n = gpus.size();
    if (n < 2) return 0;
    // The slowest GPU's NVLink to the switch, at NCCL's effective rate.
    double link = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::vector<int> path = s.r.route(gpus[i], gpus[(i + 1) % n]);
        if (path.empty()) return 0;
        const double up = s.t.arc(path.front()).capacity_Bps;
        link = i == 0 ? up : std::min(link, up);
    }
    const double share = link * s.nvlink_share / static_cast<double>(n) / 1e9;  // GB/s a head may take
    // NCCL's search settles on the fastest speed of its table within that share (a DGX H100: 370.8 / 8 = 46.35,
    // so 40 GB/s a head, as NCCL's own log prints: "Pattern 5, ... nChannels 8, bw 40").
    double speed = share;
    for (double v : speedTable(s.architecture))
        if (v <= share) {
            speed = v;
            break;
        }
    return static_cast<double>(n) * speed * 1e9 * nvlsEfficiency(s.architecture);
}

double nvlsAlgorithmBandwidth(const Setup& s) { return nvlsBandwidthOf(s, s.ranks); }

double nvlsLatency() { return 25e-6; }  // tuning.cc 2.19–2.21: hwLat[NVLINK][NVLS][Simple]

void nvlsArcBytes(const Setup& s, const std::vector<int>& gpus, double bytes, std::vector<double>& arc_bytes, int& stalled) {
    const std::size_t n = gpus.size();
    // Every GPU's buffer goes up to the switch, which reduces it with the others' (multimem loads), and the reduced
    // buffer comes back down (multicast stores): the buffer once each way on every GPU's NVLink.
    for (std::size_t i = 0; i < n && n > 1; ++i) {
        const std::vector<int> out = s.r.route(gpus[i], gpus[(i + 1) % n]);
        const std::vector<int> in = s.r.route(gpus[(i + 1) % n], gpus[i]);
        if (out.empty() || in.empty()) {
            ++stalled;
            continue;
        }
        arc_bytes[static_cast<std::size_t>(out.front())] += bytes;
        arc_bytes[static_cast<std::size_t>(in.back())] += bytes;
    }
}

double runNvls(const Setup& s, std::vector<double>& arc_bytes, int& stalled) {
    nvlsArcBytes(s, s.ranks, s.bytes, arc_bytes, stalled);
    const double bw = nvlsAlgorithmBandwidth(s);
    return bw > 0 ? s.bytes / bw : 0.0;
}

}  // namespace nccl_detail

}  // namespace ct::sim::net
