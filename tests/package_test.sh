#!/usr/bin/env bash
# tst_package (issue 15): builds the .deb with CPack, checks its dependencies and files, unpacks it into a
# temporary root and runs the installed programs from there, then from a copy moved elsewhere (resources are
# found beside the executable, never in the source tree).
#   tests/package_test.sh BUILD_DIR SOURCE_DIR VERSION
set -euo pipefail
build=$1 src=$2 version=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log" >&2; fail "cpack"; }
deb=$(ls "$tmp"/pkg/clustertwin_"$version"_*.deb) || fail "no clustertwin_${version}_*.deb"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libqt6widgets6 libqt6charts6 libvtk9.1 libsqlite3-0 zlib1g; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
grep -q xvfb <<<"$(dpkg-deb -f "$deb" Recommends)" || fail "xvfb not recommended"
echo "package: $(basename "$deb"), Depends: $depends"

dpkg-deb -x "$deb" "$tmp/root"
usr=$tmp/root/usr
for f in bin/clustertwin bin/clustertwin-cli bin/clustertwin-bench \
         share/clustertwin/resources/scenarios/demo.json share/clustertwin/resources/catalog/servers.json \
         share/clustertwin/resources/schema/scenario.schema.json share/doc/clustertwin/simulation.md \
         share/applications/clustertwin.desktop share/icons/hicolor/scalable/apps/clustertwin.svg \
         share/mime/packages/clustertwin.xml share/bash-completion/completions/clustertwin-cli \
         share/man/man1/clustertwin-cli.1.gz share/man/man1/clustertwin.1.gz share/man/man1/clustertwin-bench.1.gz; do
  [ -s "$usr/$f" ] || fail "missing /usr/$f"
done
if command -v desktop-file-validate >/dev/null; then desktop-file-validate "$usr/share/applications/clustertwin.desktop" || fail "desktop file"; fi
# The MIME type compiles into a database, and a scenario file is recognised by its content.
if command -v update-mime-database >/dev/null; then
  update-mime-database "$usr/share/mime" >"$tmp/mime.log" 2>&1 || { cat "$tmp/mime.log" >&2; fail "update-mime-database"; }
  grep -q "application/x-clustertwin-scenario" "$usr/share/mime/types" || fail "mime type not registered"
fi
# Man pages render and say what --help says.
MANWIDTH=100 man -l "$usr/share/man/man1/clustertwin-cli.1.gz" 2>/dev/null | grep -q -- "--steady" || fail "clustertwin-cli(1) lacks simulate --steady"
MANWIDTH=100 man -l "$usr/share/man/man1/clustertwin.1.gz" 2>/dev/null | grep -q -- "--screenshot" || fail "clustertwin(1) lacks --screenshot"

run_from() {  # the installed programs from prefix $1
  local p=$1
  [ "$("$p/bin/clustertwin-cli" --version)" = "clustertwin-cli $version" ] || fail "version from $p"
  "$p/bin/clustertwin-cli" validate "$p/share/clustertwin/resources/scenarios/demo.json" 2>/dev/null || fail "validate from $p"
  "$p/bin/clustertwin-cli" generate --rows 1 --racks-per-row 2 -q -o - | "$p/bin/clustertwin-cli" info - >/dev/null || fail "generate | info"
  "$p/bin/clustertwin-bench" -h >/dev/null || fail "bench -h"
  # Completion: options come from the installed CLI's --help.
  (set +u
   PATH=$p/bin:$PATH
   source "$p/share/bash-completion/completions/clustertwin-cli"
   COMP_WORDS=(clustertwin-cli simulate --stea)
   COMP_CWORD=2
   _clustertwin_cli
   [ "${COMPREPLY[*]}" = "--steady" ]) || fail "bash completion"
  # The app opens the installed demo (no source tree) and draws it.
  local shot=$tmp/shot-$(basename "$(dirname "$p")").png
  "$src/scripts/with-display" "$p/bin/clustertwin" --screenshot "$shot" >"$tmp/app.log" 2>&1 || { cat "$tmp/app.log" >&2; fail "clustertwin --screenshot from $p"; }
  [ "$(head -c 8 "$shot" | od -An -c | tr -d ' ')" = "211PNG\r\n032\n" ] || fail "screenshot is not a PNG"
  [ "$(stat -c %s "$shot")" -gt 40000 ] || fail "screenshot of $(stat -c %s "$shot") bytes: blank?"
  echo "ran from $p: version, validate, generate | info, bench -h, completion, screenshot $(stat -c %s "$shot") bytes"
}
run_from "$usr"
mkdir "$tmp/elsewhere" && mv "$tmp/root" "$tmp/elsewhere/tree"
run_from "$tmp/elsewhere/tree/usr"
echo "tst_package: ok"
