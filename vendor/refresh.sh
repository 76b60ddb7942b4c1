#!/usr/bin/env bash
# Re-download the third-party browser assets the site serves itself, at the
# versions pinned below, into vendor/static/ (copied into the built site's
# _static/ by Sphinx). Needs Node's npm and the npm registry; a reader
# building the book needs neither, because the result is committed.
# After running it, update the table in vendor/README.md if a version changed.
set -euo pipefail

MATHJAX=mathjax@3.2.2
MATHFONT=@fontsource/stix-two-math@5.3.0

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$work"
for spec in "$MATHJAX" "$MATHFONT"; do
  tarball=$(npm pack --silent "$spec")
  name=${spec%@*}; name=${name#@}; name=${name//\//-}
  mkdir -p "$name" && tar -xzf "$tarball" -C "$name" --strip-components=1
  sha256sum "$tarball"
done

out=$here/static
rm -rf "$out/mathjax"
mkdir -p "$out/mathjax/output/chtml/fonts" "$out/mathjax/input/tex" "$here/licenses"

# MathJax: the combined TeX+MathML→CHTML component, its fonts, the TeX
# extensions it may autoload and the UI/a11y components its menu may load.
cp mathjax/es5/tex-mml-chtml.js "$out/mathjax/"
cp -r mathjax/es5/output/chtml/fonts/woff-v2 "$out/mathjax/output/chtml/fonts/"
cp -r mathjax/es5/input/tex/extensions "$out/mathjax/input/tex/"
cp -r mathjax/es5/ui mathjax/es5/a11y "$out/mathjax/"

# The math font the formulas (MathML) are drawn with, so that they look the
# same on a machine without one.
mkdir -p "$out/fonts"
cp fontsource-stix-two-math/files/stix-two-math-latin-400-normal.woff2 "$out/fonts/stix-two-math.woff2"

# Licences, kept beside the files they cover.
cp mathjax/LICENSE "$here/licenses/mathjax-LICENSE.txt"
cp fontsource-stix-two-math/LICENSE "$here/licenses/stix-two-math-OFL.txt"
echo "vendor/static refreshed"
