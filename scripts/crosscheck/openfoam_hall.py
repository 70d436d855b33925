#!/usr/bin/env python3
"""An independent cross-check of ClusterTwin's room air: builds an OpenFOAM case of a scenario's first hall
(Debian's `openfoam`, v1912: buoyantBoussinesqSimpleFoam, standard k-epsilon with wall functions) with the racks'
and units' flows and heat of a ClusterTwin run, runs it, and compares the rack inlets (docs/simulation.md).

  clustertwin-cli simulate HALL.json --steady --json -o run.sqlite > run.json
  scripts/crosscheck/openfoam_hall.py HALL.json run.json CASE_DIR [CELL_M=0.2]
  (cd CASE_DIR && ./Allrun)                      # meshes and solves; minutes to an hour
  scripts/crosscheck/openfoam_hall.py --compare CASE_DIR run.json

Racks and units are removed from the mesh; a rack's intake and exhaust are patches over the heights its nodes
occupy, with the run's airflow; the exhaust carries the intake's flux-weighted mean (outletMappedUniformInlet) and
the rack's heat enters the cell layer behind it (scalarSemiImplicitSource), i.e. exhaust = intake + P/(rho c_p Q).
Units supply at 20 C through the lower half of their front and return through their top, at the run's airflow.
Not part of the test suite: OpenFOAM is not a dependency of ClusterTwin."""
import json, sys, os, re
HERE = os.path.dirname(os.path.abspath(__file__))
if sys.argv[1] == '--compare':
    case, run = sys.argv[2], json.load(open(sys.argv[3]))
    times = sorted([t for t in os.listdir(case) if re.fullmatch(r'[0-9.]+', t) and t != '0'], key=float)
    s = open(f'{case}/{times[-1]}/T').read()
    ours = {r['rack'].replace('-', '_'): r['inlet_mean_c'] for r in run['rack_inlets']}
    diffs = []
    for m in re.finditer(r'\n    ex_(\S+)\n    \{(.*?)\n    \}', s, re.S):
        v = re.search(r'value\s+uniform\s+([-0-9.e+]+)', m[2])
        if v and m[1] in ours:
            diffs.append(ours[m[1]] - float(v[1]))
            print('%-12s openfoam %5.1f  clustertwin %5.1f' % (m[1], float(v[1]), ours[m[1]]))
    of = [ours[k] - d for k, d in zip(ours, diffs)]
    print('iteration %s: openfoam %.1f-%.1f C, clustertwin %.1f-%.1f C; mean difference %.2f K, rms %.2f K, largest %.1f K' % (
        times[-1], min(of), max(of), min(ours.values()), max(ours.values()), sum(diffs) / len(diffs),
        (sum(x * x for x in diffs) / len(diffs)) ** 0.5, max(abs(x) for x in diffs)))
    sys.exit(0)
scen, run, case, h = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3], float(sys.argv[4]) if len(sys.argv) > 4 else 0.2
d = json.load(open(scen)); hall = d['halls'][0]
cat = {}
catdir = os.path.join(HERE, '..', '..', 'resources', 'catalog')
for f in os.listdir(catdir):
    j = json.load(open(os.path.join(catdir, f)))
    for k, v in j.items():
        if isinstance(v, list):
            for e in v:
                if isinstance(e, dict) and 'id' in e: cat[e['id']] = e
racks = {r['rack']: (r['airflow_m3s'], r['heat_to_air_w'], r['inlet_mean_c']) for r in run['rack_inlets']}
units = {u['unit']: u['airflow_m3s'] for u in run['cooling_units']}
W, D, H = hall['width_m'], hall['depth_m'], hall['height_m']
nx, ny, nz = round(W / h), round(D / h), round(H / h)
def snap(v): return round(v / h) * h
def fp(c, w, dp, facing):
    ns = facing in ('north', 'south'); wx = w if ns else dp; wy = dp if ns else w
    return [snap(c[0] - wx / 2), snap(c[1] - wy / 2), snap(c[0] + wx / 2), snap(c[1] + wy / 2)]
opp = {'north': 'south', 'south': 'north', 'east': 'west', 'west': 'east'}
vec = {'north': (0, 1, 0), 'south': (0, -1, 0), 'east': (1, 0, 0), 'west': (-1, 0, 0)}
def face_box(b, side, z0, z1, eps=1e-3):
    x0, y0, x1, y1 = b
    if side == 'north': return (x0, y1 - eps, z0, x1, y1 + eps, z1)
    if side == 'south': return (x0, y0 - eps, z0, x1, y0 + eps, z1)
    if side == 'east': return (x1 - eps, y0, z0, x1 + eps, y1, z1)
    return (x0 - eps, y0, z0, x0 + eps, y1, z1)
def layer_box(b, side, z0, z1):
    x0, y0, x1, y1 = b
    if side == 'north': return (x0, y1, z0, x1, y1 + h, z1)
    if side == 'south': return (x0, y0 - h, z0, x1, y0, z1)
    if side == 'east': return (x1, y0, z0, x1 + h, y1, z1)
    return (x0 - h, y0, z0, x0, y1, z1)
def area(b, side, z0, z1):
    x0, y0, x1, y1 = b
    return ((x1 - x0) if side in ('north', 'south') else (y1 - y0)) * (z1 - z0)
solids = []; ports = []; heat = []; supply_c = {}
for row in hall['rows']:
    for r in row['racks']:
        rm = cat[r['model']]; b = fp(r['position_m'], rm['width_m'], rm['depth_m'], r['facing'])
        solids.append((b[0], b[1], 0, b[2], b[3], snap(rm['height_m'])))
        top = max((n['u_position'] - 1 + cat[n['model']]['height_u']) * 0.04445 for n in r['nodes'])
        z1 = snap(top + h / 2 - 1e-9) if snap(top) < top else snap(top)
        q, p, _ = racks[r['id']]
        rid = r['id'].replace('-', '_')
        fr, bk = r['facing'], opp[r['facing']]
        a = area(b, fr, 0, z1)
        v = tuple(-c * q / a for c in vec[fr])  # into the rack through its front
        ports.append(('in_' + rid, face_box(b, fr, 0, z1), 'intake', v, None))
        vb = tuple(c * q / a for c in vec[bk])
        ports.append(('ex_' + rid, face_box(b, bk, 0, z1), 'exhaust', vb, 'in_' + rid))
        heat.append(('heat_' + rid, layer_box(b, bk, 0, z1), p / (1.2 * 1005)))
for u in hall['cooling_units']:
    m = cat[u['model']]; b = fp(u['position_m'], m['width_m'], m['depth_m'], u['facing'])
    ht = snap(m['height_m']); solids.append((b[0], b[1], 0, b[2], b[3], ht))
    q = units[u['id']]; uid = u['id'].replace('-', '_'); f = u['facing']
    zs = snap(ht / 2); a = area(b, f, 0, zs)
    ports.append(('sup_' + uid, face_box(b, f, 0, zs), 'supply', tuple(c * q / a for c in vec[f]), None))
    supply_c['sup_' + uid] = next(x['supply_c'] for x in run['cooling_units'] if x['unit'] == u['id'])
    at = (b[2] - b[0]) * (b[3] - b[1])
    ports.append(('ret_' + uid, (b[0], b[1], ht - 1e-3, b[2], b[3], ht + 1e-3), 'return', (0, 0, -q / at), None))
os.makedirs(case + '/system', exist_ok=True); os.makedirs(case + '/constant', exist_ok=True); os.makedirs(case + '/0', exist_ok=True)
hdr = lambda cls, obj: 'FoamFile { version 2.0; format ascii; class %s; object %s; }\n' % (cls, obj)
open(case + '/system/blockMeshDict', 'w').write(hdr('dictionary', 'blockMeshDict') + f'''
convertToMeters 1;
vertices ( (0 0 0) ({W} 0 0) ({W} {D} 0) (0 {D} 0) (0 0 {H}) ({W} 0 {H}) ({W} {D} {H}) (0 {D} {H}) );
blocks ( hex (0 1 2 3 4 5 6 7) ({nx} {ny} {nz}) simpleGrading (1 1 1) );
boundary ( walls {{ type wall; faces ( (0 3 2 1) (4 5 6 7) (0 4 7 3) (2 6 5 1) (1 5 4 0) (3 7 6 2) ); }} );
''')
acts = ['{ name solid; type cellSet; action new; source boxToCell; sourceInfo { boxes ( %s ); } }' %
        ' '.join('(%g %g %g) (%g %g %g)' % s for s in solids),
        '{ name fluid; type cellSet; action new; source cellToCell; sourceInfo { set solid; } }',
        '{ name fluid; type cellSet; action invert; }']
open(case + '/system/topoSetDict.1', 'w').write(hdr('dictionary', 'topoSetDict') + 'actions (\n' + '\n'.join(acts) + '\n);\n')
acts = ['{ name %s; type faceSet; action new; source boxToFace; sourceInfo { box (%g %g %g) (%g %g %g); } }' % ((n,) + bx) for n, bx, *_ in ports]
acts += ['{ name %s; type cellSet; action new; source boxToCell; sourceInfo { box (%g %g %g) (%g %g %g); } }' % ((n,) + bx) for n, bx, _ in heat]
open(case + '/system/topoSetDict', 'w').write(hdr('dictionary', 'topoSetDict') + 'actions (\n' + '\n'.join(acts) + '\n);\n')
open(case + '/system/createPatchDict', 'w').write(hdr('dictionary', 'createPatchDict') + 'pointSync false;\npatches (\n' +
    '\n'.join('{ name %s; patchInfo { type patch; } constructFrom set; set %s; }' % (n, n) for n, *_ in ports) + '\n);\n')
def bc(field):
    out = []
    for name, _, kind, v, src in ports:
        U = 'uniform (%.15g %.15g %.15g)' % v
        speed = sum(c * c for c in v) ** 0.5
        inlet = kind in ('exhaust', 'supply')
        if field == 'U': s = 'type fixedValue; value %s;' % U
        elif field == 'p_rgh': s = 'type fixedFluxPressure; rho rhok; value uniform 0;'
        elif field == 'T':
            if kind == 'supply': s = 'type fixedValue; value uniform %g;' % supply_c[name]
            elif kind == 'exhaust': s = 'type outletMappedUniformInlet; outletPatch %s; value uniform 25;' % src
            else: s = 'type zeroGradient;'
        elif field == 'k': s = ('type fixedValue; value uniform %g;' % (1.5 * (0.1 * speed) ** 2)) if inlet else 'type zeroGradient;'
        elif field == 'epsilon': s = ('type fixedValue; value uniform %g;' % (0.09 ** 0.75 * (1.5 * (0.1 * speed) ** 2) ** 1.5 / 0.07)) if inlet else 'type zeroGradient;'
        else: s = 'type calculated; value uniform 0;'
        out.append('    %s { %s }' % (name, s))
    return '\n'.join(out)
walls = {'U': 'type noSlip;', 'p_rgh': 'type fixedFluxPressure; rho rhok; value uniform 0;', 'T': 'type zeroGradient;',
         'k': 'type kqRWallFunction; value uniform 0.01;', 'epsilon': 'type epsilonWallFunction; value uniform 0.001;',
         'nut': 'type nutkWallFunction; value uniform 0;', 'alphat': 'type alphatJayatillekeWallFunction; Prt 0.85; value uniform 0;',
         'p': 'type calculated; value uniform 0;'}
dims = {'U': '[0 1 -1 0 0 0 0]', 'p_rgh': '[0 2 -2 0 0 0 0]', 'p': '[0 2 -2 0 0 0 0]', 'T': '[0 0 0 1 0 0 0]', 'k': '[0 2 -2 0 0 0 0]',
        'epsilon': '[0 2 -3 0 0 0 0]', 'nut': '[0 2 -1 0 0 0 0]', 'alphat': '[0 2 -1 0 0 0 0]'}
init = {'U': '(0 0 0)', 'p_rgh': '0', 'p': '0', 'T': '25', 'k': '0.01', 'epsilon': '0.001', 'nut': '0', 'alphat': '0'}
for f in dims:
    cls = 'volVectorField' if f == 'U' else 'volScalarField'
    body = bc(f) if f != 'p' else '\n'.join('    %s { type calculated; value uniform 0; }' % n for n, *_ in ports)
    open(case + '/0/' + f, 'w').write(hdr(cls, f) + 'dimensions %s;\ninternalField uniform %s;\nboundaryField {\n    "(walls|solids)" { %s }\n%s\n}\n' % (dims[f], init[f], walls[f], body))
open(case + '/constant/g', 'w').write(hdr('uniformDimensionedVectorField', 'g') + 'dimensions [0 1 -2 0 0 0 0];\nvalue (0 0 -9.81);\n')
open(case + '/constant/transportProperties', 'w').write(hdr('dictionary', 'transportProperties') + 'transportModel Newtonian;\nnu 1.5e-05;\nbeta %g;\nTRef 25;\nPr 0.71;\nPrt 0.85;\n' % (1 / 298.15))
open(case + '/constant/turbulenceProperties', 'w').write(hdr('dictionary', 'turbulenceProperties') + 'simulationType RAS;\nRAS { RASModel kEpsilon; turbulence on; printCoeffs on; }\n')
open(case + '/constant/fvOptions', 'w').write(hdr('dictionary', 'fvOptions') + '\n'.join(
    '%s { type scalarSemiImplicitSource; active yes; scalarSemiImplicitSourceCoeffs { selectionMode cellSet; cellSet %s; volumeMode absolute; injectionRateSuSp { T (%g 0); } } }' % (n, n, s) for n, _, s in heat) + '\n')
open(case + '/system/controlDict', 'w').write(hdr('dictionary', 'controlDict') + '''application buoyantBoussinesqSimpleFoam;
startFrom latestTime; startTime 0; stopAt endTime; endTime 4000; deltaT 1; writeControl timeStep; writeInterval 250;
purgeWrite 2; writeFormat ascii; writePrecision 12; writeCompression off; timeFormat general; timePrecision 6;
runTimeModifiable true;
''')
open(case + '/system/fvSchemes', 'w').write(hdr('dictionary', 'fvSchemes') + '''ddtSchemes { default steadyState; }
gradSchemes { default Gauss linear; }
divSchemes { default none; div(phi,U) bounded Gauss linearUpwind grad(U); div(phi,T) bounded Gauss linearUpwind grad(T);
  div(phi,k) bounded Gauss upwind; div(phi,epsilon) bounded Gauss upwind; div((nuEff*dev2(T(grad(U))))) Gauss linear; }
laplacianSchemes { default Gauss linear corrected; }
interpolationSchemes { default linear; }
snGradSchemes { default corrected; }
''')
open(case + '/system/fvSolution', 'w').write(hdr('dictionary', 'fvSolution') + '''solvers {
  p_rgh { solver PCG; preconditioner DIC; tolerance 1e-08; relTol 0.01; }
  "(U|T|k|epsilon)" { solver PBiCGStab; preconditioner DILU; tolerance 1e-05; relTol 0.1; } }
SIMPLE { nNonOrthogonalCorrectors 0; pRefCell 0; pRefValue 0;
  residualControl { p_rgh 1e-3; U 1e-5; T 1e-5; "(k|epsilon)" 1e-4; } }
relaxationFactors { fields { p_rgh 0.7; } equations { U 0.3; T 0.5; "(k|epsilon)" 0.7; } }
''')
# subsetMesh names the exposed faces' patch 'solids' as empty: make it a wall; it also rewrites 0/, so the fields
# are kept aside and put back; createPatch drops the sets, so the second topoSet runs again.
open(case + '/Allrun', 'w').write('''#!/bin/sh
set -e
cd "${0%/*}"
export WM_PROJECT_DIR=${WM_PROJECT_DIR:-/usr/share/openfoam}
rm -rf 0.orig && cp -r 0 0.orig
blockMesh > log.blockMesh 2>&1
topoSet -dict system/topoSetDict.1 > log.topoSet.1 2>&1
subsetMesh fluid -patch solids -overwrite > log.subsetMesh 2>&1
sed -i '/^    solids$/,/}/{s/empty;/wall;/;s/1(empty)/1(wall)/}' constant/polyMesh/boundary
topoSet > log.topoSet 2>&1
createPatch -overwrite > log.createPatch 2>&1
topoSet > log.topoSet.2 2>&1
rm -rf 0 && cp -r 0.orig 0
checkMesh > log.checkMesh 2>&1
buoyantBoussinesqSimpleFoam > log.solve 2>&1
''')
os.chmod(case + '/Allrun', 0o755)
print('%s: %d solids, %d ports, %d x %d x %d cells; run %s/Allrun' % (case, len(solids), len(ports), nx, ny, nz, case))
