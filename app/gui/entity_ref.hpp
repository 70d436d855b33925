#pragma once
// How views name a selected entity: its kind and stable id.
#include <QMetaType>
#include <QString>

namespace ct::app {

struct EntityRef {
    QString
        kind;  ///< "hall", "row", "rack", "node", "gpu", "cooling_unit", "cdu", "utility_feed", "ups", "pdu", "rack_pdu", "job", "link", "event", "scenario"
    QString id;
    bool operator==(const EntityRef&) const = default;
    bool isValid() const { return !kind.isEmpty(); }
};

}  // namespace ct::app

Q_DECLARE_METATYPE(ct::app::EntityRef)
