// InfiniBand ibnetdiscover (FORMATS.md §5b): the topology file (Switch/Ca blocks with [port] lines) and the
// ports report of `ibnetdiscover -p`. Out: switches and HCAs as entities (labels: guid, lid, description) and
// the cables between them as links, each once.
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/parse.hpp>

#include "../parse_common.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace ct::importers {

namespace {

using detail::trim;

std::string lowerHex(std::string g) {
    for (auto& c : g) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (g.rfind("0x", 0) != 0) g = "0x" + g;
    // Normalise to 16 hex digits so the two formats' GUIDs compare equal.
    std::string hex = g.substr(2);
    while (hex.size() < 16) hex = "0" + hex;
    return "0x" + hex;
}

bool isHex(const std::string& s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

/// The text between the first pair of `q` quotes at or after `from`; npos-safe.
bool quoted(const std::string& s, std::size_t from, char q, std::string& out, std::size_t& end) {
    const auto a = s.find(q, from);
    if (a == std::string::npos) return false;
    const auto b = s.find(q, a + 1);
    if (b == std::string::npos) return false;
    out = s.substr(a + 1, b - a - 1);
    end = b + 1;
    return true;
}

class Topology {
public:
    Topology(const ParseOptions& opt, ParseResult& res) : opt_(opt), res_(res) {}

    /// Registers a device; returns its entity id. A CA described "host HCA-1" becomes "host/hca-1" under node
    /// "host"; a switch with a one-word description is named by it; anything else by its GUID.
    std::string device(const std::string& type, const std::string& guid_in, const std::string& desc_in, const std::string& lid) {
        const std::string guid = lowerHex(guid_in);
        if (auto it = by_guid_.find(guid); it != by_guid_.end()) {
            auto& e = res_.entities[it->second];
            if (!lid.empty() && !e.labels.count("lid")) e.labels["lid"] = lid;
            return e.id;
        }
        const std::string desc = trim(desc_in);
        ImportedEntity e;
        e.name = desc;
        e.labels = {{"guid", guid}, {"description", desc}};
        if (!lid.empty()) e.labels["lid"] = lid;
        const auto sp = desc.find(' ');
        // A description names the device only when it is a plain host name: "MF0;sw-17:MSB7800/U1" (a managed
        // switch's node description) would put '/' and ':' into an id whose '/' means "part of".
        auto plain = [](const std::string& w) {
            return !w.empty() &&
                   std::all_of(w.begin(), w.end(), [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '_' || c == '.'; });
        };
        if (type == "CA" && sp != std::string::npos && desc.find(' ', sp + 1) == std::string::npos && plain(desc.substr(0, sp)) &&
            plain(desc.substr(sp + 1))) {
            const std::string host = desc.substr(0, sp);
            std::string hca = desc.substr(sp + 1);
            for (auto& c : hca) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            e.id = host + "/" + hca;
            e.kind = "hca";
            e.parent = host;
            if (hosts_.insert(host).second) res_.entities.push_back({host, "node", "", host, {}});
        } else if (type == "SW" && plain(desc) && !ids_.count(desc)) {
            e.id = desc;
            e.kind = "ib_switch";
        } else {
            e.id = (type == "SW" ? "ibsw-" : "ibca-") + guid.substr(2);
            e.kind = type == "SW" ? "ib_switch" : "hca";
        }
        ids_.insert(e.id);
        by_guid_[guid] = res_.entities.size();
        res_.entities.push_back(e);
        return e.id;
    }

    void link(const std::string& a, int pa, const std::string& b, int pb, const std::string& speed) {
        auto ka = std::make_pair(a, pa), kb = std::make_pair(b, pb);
        if (kb < ka) std::swap(ka, kb);
        if (!links_.insert({ka, kb}).second) return;  // the other end's line
        res_.links.push_back({ka.first, ka.second, kb.first, kb.second, speed});
    }

    void warn(std::size_t line, const std::string& msg) { res_.warnings.push_back({detail::loc(opt_, line), "syntax", msg}); }

private:
    const ParseOptions& opt_;
    ParseResult& res_;
    std::map<std::string, std::size_t> by_guid_;
    std::set<std::string> hosts_, ids_;
    std::set<std::pair<std::pair<std::string, int>, std::pair<std::string, int>>> links_;
};

bool toInt(const std::string& s, int& out) {
    if (s.empty() || s.size() > 9) return false;
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    out = std::stoi(s);
    return true;
}

/// `ibnetdiscover -p`: "CA 134 1 0x7cfe… 4x EDR - SW 1719 10 0x7cfe… ( 'o0001 HCA-1' - 'ib-i1l1s01' )"
/// or, unconnected, "SW 2052 37 0x… 4x ???   'ib-i4l1s01'".
bool portLine(const std::string& line, std::size_t lineno, Topology& topo) {
    std::istringstream ss(line);
    std::string type, lid, port, guid, width, speed, dash;
    ss >> type >> lid >> port >> guid >> width >> speed;
    int p = 0, lid_n = 0;
    if (!toInt(lid, lid_n) || !toInt(port, p) || guid.rfind("0x", 0) != 0 || !isHex(guid.substr(2))) {
        topo.warn(lineno, "not a port line: " + line.substr(0, 80));
        return false;
    }
    ss >> dash;
    if (dash != "-") {  // unconnected port: the rest is the description, quoted or not
        std::string rest = dash;
        std::string tail;
        std::getline(ss, tail);
        rest += tail;
        std::string d;
        std::size_t end;
        topo.device(type, guid, quoted(rest, 0, '\'', d, end) ? d : rest, lid);
        return true;
    }
    std::string ptype, plid, pport, pguid;
    ss >> ptype >> plid >> pport >> pguid;
    int pp = 0, plid_n = 0;
    if (!toInt(plid, plid_n) || !toInt(pport, pp) || pguid.rfind("0x", 0) != 0 || !isHex(pguid.substr(2))) {
        topo.warn(lineno, "bad peer in port line");
        return false;
    }
    std::string rest;
    std::getline(ss, rest);
    std::string d1, d2;
    std::size_t e1 = 0, e2 = 0;
    if (!quoted(rest, 0, '\'', d1, e1) || !quoted(rest, e1, '\'', d2, e2)) d1 = d2 = "";
    const std::string a = topo.device(type, guid, d1, lid);
    const std::string b = topo.device(ptype, pguid, d2, plid);
    topo.link(a, p, b, pp, width + " " + speed);
    return true;
}

/// The topology file's blocks ("Switch 36 "S-…" …" then its "[port] peer[port]" lines); peers named in port
/// lines are resolved once every block is read.
class TopologyFile {
public:
    TopologyFile(Topology& topo, const detail::LineReader& reader) : topo_(topo), reader_(reader) {}

    /// A switchguid=/caguid=/rtguid= line: the GUID of the node line that follows.
    void guidLine(const std::string& t) {
        pending_guid_ = t.substr(t.find('=') + 1);
        pending_guid_ = pending_guid_.substr(0, pending_guid_.find('('));
    }

    /// Switch  36 "S-e41d2d030003e470"  # "SwitchIB Mellanox Technologies" base port 0 lid 268 lmc 0
    void nodeLine(const std::string& t) {
        std::string name, desc;
        std::size_t e1 = 0, e2 = 0;
        cur_id_.clear();
        if (!quoted(t, 0, '"', name, e1)) {
            topo_.warn(reader_.lineno(), "node line without its quoted name");
            return;
        }
        const auto hash = t.find('#', e1);
        if (hash != std::string::npos) quoted(t, hash, '"', desc, e2);
        std::string lid;
        if (const auto l = t.rfind(" lid "); l != std::string::npos && l > e2) {
            std::istringstream ls(t.substr(l + 5));
            ls >> lid;
        }
        const std::string guid = name.size() > 2 && name[1] == '-' ? name.substr(2) : pending_guid_;
        if (!isHex(guid.rfind("0x", 0) == 0 ? guid.substr(2) : guid)) {
            topo_.warn(reader_.lineno(), "no GUID for node \"" + name + "\"");
            return;
        }
        cur_id_ = topo_.device(t[0] == 'S' ? "SW" : t[0] == 'C' ? "CA" : "RT", guid, desc, lid);
        name_to_id_[name] = cur_id_;
        pending_guid_.clear();
    }

    /// [3]  "S-f452…"[1]  # "desc" lid 174 4xFDR      or      [1](2c902002789ad)  "S-000b…"[1]  # lid 1 … 4xSDR
    void portLine(const std::string& t) {
        int port = 0, peer_port = 0;
        const auto rb = t.find(']');
        std::string peer;
        std::size_t e = 0;
        if (cur_id_.empty() || rb == std::string::npos || !toInt(t.substr(1, rb - 1), port) || !quoted(t, rb, '"', peer, e) ||
            e >= t.size() || t[e] != '[') {
            topo_.warn(reader_.lineno(), cur_id_.empty() ? "port line outside a Switch/Ca block" : "malformed port line");
            return;
        }
        const auto prb = t.find(']', e);
        if (prb == std::string::npos || !toInt(t.substr(e + 1, prb - e - 1), peer_port)) {
            topo_.warn(reader_.lineno(), "malformed peer port");
            return;
        }
        std::string speed;
        if (const auto sp = t.find_last_of(" \t"); sp != std::string::npos) speed = t.substr(sp + 1);
        if (speed.rfind("4x", 0) != 0 && speed.rfind("1x", 0) != 0 && speed.rfind("2x", 0) != 0 && speed.rfind("8x", 0) != 0 &&
            speed.rfind("12x", 0) != 0)
            speed.clear();
        pending_.push_back({cur_id_, port, peer, peer_port, speed});
    }

    void resolvePeers() {
        for (const auto& p : pending_) {
            auto it = name_to_id_.find(p.peer_name);
            std::string peer_id;
            if (it != name_to_id_.end()) peer_id = it->second;
            else if (p.peer_name.size() > 2 && p.peer_name[1] == '-' && isHex(p.peer_name.substr(2)))
                peer_id = topo_.device(p.peer_name[0] == 'S' ? "SW" : "CA", p.peer_name.substr(2), "", "");
            else continue;
            topo_.link(p.from_id, p.port, peer_id, p.peer_port, p.speed);
        }
    }

private:
    struct PendingLink {
        std::string from_id;
        int port;
        std::string peer_name;  // "S-<guid>" / "H-<guid>"
        int peer_port;
        std::string speed;
    };
    Topology& topo_;
    const detail::LineReader& reader_;
    std::string cur_id_, pending_guid_;  ///< the current Switch/Ca block; a GUID given before its node line
    std::vector<PendingLink> pending_;
    std::map<std::string, std::string> name_to_id_;  ///< "S-e41d…" → entity id
};

}  // namespace

ParseResult parseIbnetdiscover(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint) {
    ParseResult res;
    Topology topo(opt, res);
    detail::LineReader reader(in, opt, progress, size_hint, res);
    TopologyFile file(topo, reader);
    std::string line;
    while (reader.next(line)) {
        const std::string t = trim(line);
        // Skipped: comments, vendor lines, and the headers ibnetdiscover -g groups its output under ("Chassis 3
        // (guid 0x...)", "Non-Chassis Nodes", rules).
        if (t.empty() || t[0] == '#' || t.rfind("vendid=", 0) == 0 || t.rfind("devid=", 0) == 0 || t.rfind("sysimgguid=", 0) == 0 ||
            t == "Non-Chassis Nodes" || (t.rfind("Chassis ", 0) == 0 && t.back() == ')') || t.find_first_not_of("-=") == std::string::npos)
            continue;
        if (t.rfind("CA ", 0) == 0 || t.rfind("SW ", 0) == 0 || t.rfind("RT ", 0) == 0) portLine(t, reader.lineno(), topo);  // -p output
        else if (t.rfind("switchguid=", 0) == 0 || t.rfind("caguid=", 0) == 0 || t.rfind("rtguid=", 0) == 0) file.guidLine(t);
        else if (t.rfind("Switch", 0) == 0 || t.rfind("Ca", 0) == 0 || t.rfind("Rt", 0) == 0) file.nodeLine(t);
        else if (t[0] == '[') file.portLine(t);
        else topo.warn(reader.lineno(), "line not understood: " + t.substr(0, 80));
    }
    file.resolvePeers();
    return res;
}

namespace format_rows {

FormatInfo ibNetdiscover() {
    FormatInfo f;
    f.id = "ib-netdiscover";
    f.label = "InfiniBand ibnetdiscover topology";
    f.kind = FormatKind::Topology;
    f.sniff = [](const FileHead& h) -> Sniff {
        if (!h.text()) return {};
        if (h.has("# Topology file:") || h.has("\nSwitch\t") || h.has("\nCa\t") || h.has("\nvendid=")) return {85, "ibnetdiscover header"};
        const std::string_view line = h.first_line;
        if ((line.rfind("CA ", 0) == 0 || line.rfind("SW ", 0) == 0) && line.find(" 0x") != std::string_view::npos)
            return {80, "ibnetdiscover -p port lines"};
        return {};
    };
    f.parse = parseIbnetdiscover;
    return f;
}

}  // namespace format_rows

}  // namespace ct::importers
