#!/usr/bin/env bash
# Re-download the third-party browser assets the site serves itself, at the
# versions pinned below, into vendor/static/ (copied into the built site's
# _static/ by Sphinx). Needs Node's npm and the npm registry; a reader
# building the book needs neither, because the result is committed.
# After running it, update the table in vendor/README.md if a version changed.
set -euo pipefail

MATHFONT=@fontsource/stix-two-math@5.3.0

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$work"
for spec in "$MATHFONT"; do
  tarball=$(npm pack --silent "$spec")
  name=${spec%@*}; name=${name#@}; name=${name//\//-}
  mkdir -p "$name" && tar -xzf "$tarball" -C "$name" --strip-components=1
  sha256sum "$tarball"
done

out=$here/static
mkdir -p "$here/licenses"

# The math font the formulas (MathML) are drawn with, so that they look the
# same on a machine without one.
mkdir -p "$out/fonts"
cp fontsource-stix-two-math/files/stix-two-math-latin-400-normal.woff2 "$out/fonts/stix-two-math.woff2"

# Licences, kept beside the files they cover.
cp fontsource-stix-two-math/LICENSE "$here/licenses/stix-two-math-OFL.txt"
echo "vendor/static refreshed"
