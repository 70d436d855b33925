#!/usr/bin/env python3
"""Writes tests/data/invalid/*.json (malformed variants of lab-8node) and their .expected files.

An .expected file: first line 'valid' or 'invalid'; every further line must appear in one of the messages.
"""
import copy
import json
import os
import re

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out = os.path.join(root, 'tests', 'data', 'invalid')
os.makedirs(out, exist_ok=True)
base = json.load(open(os.path.join(root, 'resources', 'scenarios', 'lab-8node.json')))


def w(name, doc, expect, text=None):
    data = text if text is not None else json.dumps(doc, indent=2, ensure_ascii=False) + '\n'
    with open(os.path.join(out, name + '.json'), 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode('utf-8'))
    with open(os.path.join(out, name + '.expected'), 'w') as f:
        f.write('\n'.join(expect) + '\n')


def m():
    return copy.deepcopy(base)


racks = lambda d: d['halls'][0]['rows'][0]['racks']
d = m(); racks(d)[1]['position_m'] = list(racks(d)[0]['position_m'])
w('overlap', d, ['invalid', '/halls/0/rows/0/racks/1/position_m: overlaps rack r01-01'])
d = m(); d['halls'][0]['width_m'] = 'nine'
w('wrong_type', d, ['invalid', '/halls/0/width_m: expected a number, got a string'])
d = m(); del racks(d)[0]['model']
w('missing_field', d, ['invalid', "/halls/0/rows/0/racks/0/model: missing required field 'model'"])
d = m(); d['halls'][0]['depth_m'] = -3
w('negative_size', d, ['invalid', '/halls/0/depth_m: must be > 0'])
d = m(); racks(d)[0]['nodes'][2]['model'] = 'dgx-h900'
w('unknown_model', d, ['invalid', "/halls/0/rows/0/racks/0/nodes/2/model: unknown server model 'dgx-h900'"])
d = m(); racks(d)[1]['nodes'][0]['id'] = 'n0001'
w('duplicate_id', d, ['invalid', "/halls/0/rows/0/racks/1/nodes/0/id: duplicate id 'n0001' (also at /halls/0/rows/0/racks/0/nodes/0)"])
d = m()
for p in racks(d)[0]['pdus']:
    p['breaker_a'] = 16
w('breaker_overload', d, ['invalid', '/halls/0/rows/0/racks/0/pdus: rack load 40.8 kW puts feed A at 20.4 kW, above 80 % of its breakers (8.4 kW)'])
d = m(); d['halls'][0]['cooling_units'] = []
w('no_cooling', d, ['invalid', '/halls/0/rows/0/racks/0: rack has no cooling source', '/halls/0/rows/0/racks/1: rack has no cooling source'])
d = m(); racks(d)[1]['position_m'] = [40, 3]
w('outside_hall', d, ['invalid', "/halls/0/rows/0/racks/1/position_m: rack 'r01-02' lies outside the hall"])
d = m(); racks(d)[0]['pdus'] = []
for n in racks(d)[0]['nodes']:
    n['feeds'] = []
w('no_power_feed', d, ['invalid', '/halls/0/rows/0/racks/0/pdus: rack has no power feed', '/halls/0/rows/0/racks/0/nodes/0/feeds: node has no power feed'])
d = m(); d['events'] = [{'time_s': 60, 'kind': 'cooling_unit_fail', 'target': 'crah-99'}, {'time_s': -5, 'kind': 'meteor', 'target': 'x'}]
w('bad_events', d, ['invalid', "/events/0/target: 'crah-99' is not a cooling unit", '/events/1/time_s: must be >= 0', "/events/1/kind: unknown event kind 'meteor'"])
d = m(); racks(d)[0]['facing'] = 'up'; racks(d)[0]['nodes'][0]['u_position'] = 45
w('several_problems', d, ['invalid', "/halls/0/rows/0/racks/0/facing: expected one of north, east, south, west, got 'up'",
                          '/halls/0/rows/0/racks/0/nodes/0/u_position: U 45–52 does not fit in a 48U rack'])
text = re.sub(r'"width_m": [0-9.]+', '"width_m": NaN', json.dumps(base, indent=2), count=1) + '\n'
line = [i + 1 for i, l in enumerate(text.split('\n')) if 'NaN' in l][0]
w('nan', None, ['invalid', 'nan.json:%d:' % line, 'JSON syntax error'], text)
lines = json.dumps(base, indent=2).split('\n'); lines[3] = lines[3].rstrip(',')
w('syntax_error', None, ['invalid', 'syntax_error.json:5:', 'JSON syntax error'], '\n'.join(lines) + '\n')
w('empty', None, ['invalid', 'empty.json:1:1: file is empty'], '')
w('not_an_object', None, ['invalid', '/: expected an object, got an array'], '[1, 2, 3]\n')
w('truncated', None, ['invalid', 'truncated.json:', 'JSON syntax error'], json.dumps(base, indent=2)[:700])
w('bad_utf8', None, ['invalid', 'bad_utf8.json:', 'JSON syntax error'],
  json.dumps(base, indent=2).encode('utf-8').replace(b'"Lab: 8 DGX H100 in 2 racks"', b'"Lab \xff\xfe"', 1))
text = re.sub(r'"width_m": [0-9.]+', '"width_m": 1e999', json.dumps(base, indent=2), count=1) + '\n'
line = [i + 1 for i, l in enumerate(text.split('\n')) if '1e999' in l][0]
w('huge_number', None, ['invalid', 'huge_number.json:%d:' % line, "number overflow parsing '1e999'"], text)
d = m(); d['halls'][0]['colour'] = 'teal'; d['owner'] = {'team': 'ops'}
w('unknown_keys', d, ['valid', "warning: /halls/0/colour: unknown key 'colour'", "warning: /owner: unknown key 'owner'"])
d = m(); d['catalog'] = {'servers': [{'id': 'dgx-h100', 'max_power_w': -1}]}
w('bad_catalog_override', d, ['invalid', '/catalog/servers/0/max_power_w: must be > 0'])
d = m(); d['version'] = 7
w('future_version', d, ['invalid', '/version: unsupported format version 7'])
