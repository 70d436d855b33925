#!/usr/bin/env python3
"""Writes resources/scenarios/pod-12rack.json (issue 44's calibration benchmark room, scripts/bench-calibration):
two rows of six racks, backs to a shared hot aisle open to the ceiling, cold aisles along two walls, four
wall-standing coolers blowing along the cold aisles; one DGX H100 per rack, stepped over six hours; strip sensors
front and rear at three heights. The power chain and plant are lab-8node's. Called by scripts/make-samples.
Usage: scripts/make-pod-sample.py [path/to/clustertwin-cli]"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
d = json.load(open(os.path.join(ROOT, "resources/scenarios/lab-8node.json")))
sc = {k: d[k] for k in ('format', 'version')}
sc.update({
 "id": "pod-12rack",
 "name": "Pod: 12 racks around a hot aisle, 4 wall-standing coolers",
 "description": "A small instrumented pod of the kind twins are calibrated on: two rows of six racks, backs to a shared hot aisle open to the ceiling, cold aisles along two walls, four wall-standing chilled-water coolers blowing along the cold aisles and drawing from the top; one DGX H100 per rack, stepped from idle to 80 % (102 kW in all) and back over six hours. Strip sensors front and rear at three heights on every rack.",
 "site": {"id": "pod-12rack-site", "name": "Pod site"},
 "plant": d["plant"], "power": d["power"],
})
for x in sc["power"]["feeds"] + sc["power"]["pdus"]:
    x["capacity_w"] = 150000
sc["catalog"] = {"cooling_units": [{
  "id": "wall-cw-30kw", "name": "Wall-standing chilled-water cooler, 30 kW", "kind": "crah",
  "capacity_w": 30000, "airflow_m3s": 2.0, "fan_power_w": 1500, "fan_max_rpm": 2000,
  "width_m": 1.0, "depth_m": 0.6, "height_m": 2.0, "min_supply_temp_c": 12, "max_supply_temp_c": 30,
  "supply_from_m": 0.2, "supply_to_m": 1.2, "return_side": "top",
  "source": "a generic wall-standing unit sized for this benchmark room (our figures: 30 kW sensible at 2.0 m3/s, a 12 K rise), not a product"}]}
units = []
for i, (x, y, f) in enumerate([(0.3, 0.6, "east"), (0.3, 5.4, "east"), (5.7, 0.6, "west"), (5.7, 5.4, "west")]):
    units.append({"id": f"cool-{i+1:02d}", "name": f"Cooler {i+1}", "model": "wall-cw-30kw", "position_m": [x, y], "facing": f, "supply_setpoint_c": 20})
rows = []
n = 0
sensors = []
for ri, (y, facing) in enumerate([(1.8, "south"), (4.2, "north")]):
    racks = []
    for k in range(6):
        rid = f"r{ri+1:02d}-{k+1:02d}"
        n += 1
        nid = f"n{n:04d}"
        racks.append({"id": rid, "name": f"Rack {ri+1}-{k+1}", "model": "rack-42u-600x1200", "position_m": [1.5 + 0.6 * k, y], "facing": facing,
            "pdus": [{"id": f"{rid}-pdu-a", "feed": "A", "upstream": "pdu-row01-a", "phases": 3, "voltage_v": 230, "breaker_a": 32, "power_factor": 0.95},
                     {"id": f"{rid}-pdu-b", "feed": "B", "upstream": "pdu-row01-b", "phases": 3, "voltage_v": 230, "breaker_a": 32, "power_factor": 0.95}],
            "nodes": [{"id": nid, "model": "dgx-h100", "u_position": 17, "hostname": nid, "feeds": [f"{rid}-pdu-a", f"{rid}-pdu-b"]}]})
    rows.append({"id": f"row{ri+1:02d}", "name": f"Row {ri+1}", "racks": racks})
for row in rows:
    for r in row["racks"]:
        for side in ("front", "rear"):
            for z in (0.5, 1.1, 1.7):
                sensors.append({"id": f"{r['id']}-{side[0]}{int(z*10):02d}", "name": f"{r['name']} {side} {z} m", "rack": r["id"], "side": side, "height_m": z})
hall = {"id": "pod", "name": "Pod", "width_m": 6.0, "depth_m": 6.0, "height_m": 3.0, "cooling_units": units, "sensors": sensors, "rows": rows}
sc["halls"] = [hall]
sc["jobs"] = [{"id": "load", "name": "Stepped load", "kind": "training", "nodes": [f"n{i:04d}" for i in range(1, 13)], "start_s": 0, "utilization": 0.05}]
ev = []
# IT 36 → 63 → 85 → 102 → 76 → 49 kW: the measured pod's range (~27 to ~103 kW), within the coolers' 120 kW.
for h, u in enumerate([0.05, 0.35, 0.6, 0.8, 0.5, 0.2]):
    if h: ev.append({"time_s": 3600 * h, "kind": "workload_change", "target": "load", "value": u})
sc["events"] = ev
out = os.path.join(ROOT, "resources/scenarios/pod-12rack.json")
with open(out, "w") as f:
    json.dump(sc, f, indent=1)
# Checked, and rewritten as the app saves it (the samples round-trip exactly).
cli = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/ci/app/clustertwin-cli")
subprocess.run([cli, "validate", out, "-o", out], check=True)
