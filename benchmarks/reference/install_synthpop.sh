#!/usr/bin/env bash
# Install R's synthpop (the peer that benchmarks/vs_synthpop.py compares with) into a private library.
#
#   bash benchmarks/reference/install_synthpop.sh [SNAPSHOT_GIT_DIR] [LIBRARY]
#
# SNAPSHOT_GIT_DIR: a bare git directory of the cran/synthpop source (default: the mirror fetched
# by the search tool, /work/.mirror/cran+synthpop/repo). LIBRARY: where to install (default
# .rlib in the repository root; set R_LIBS_USER to it when running R).
#
# Most of synthpop's imports come from Debian (r-cran-*). Two, mipfp and broman, are not packaged
# by Debian; synthpop uses them only for syn.ipf (mipfp::Ipfp) and for smoothing with
# `smoothing = "spline"`-style running means (broman::runningmean), neither of which the benchmarks
# call. They are installed here as stub packages that raise an error if called, so that synthpop's
# namespace loads. The benchmarked code paths (syn default, utility.gen, utility.tables,
# disclosure) are synthpop's own, unchanged.
set -euo pipefail
SNAP=${1:-/work/.mirror/cran+synthpop/repo}
LIB=${2:-$(git rev-parse --show-toplevel)/.rlib}
mkdir -p "$LIB"
if command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq r-base-core r-cran-party r-cran-proto \
    r-cran-polspline r-cran-randomforest r-cran-rmutil r-cran-ranger r-cran-classint \
    r-cran-ggplot2 r-cran-plyr r-cran-stringr r-cran-forcats >/dev/null
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
stub() {  # stub NAME FUNCTION
  mkdir -p "$TMP/$1/R"
  printf 'Package: %s\nVersion: 0.0-0\nTitle: Stub\nDescription: Stub so that synthpop loads; not the real package.\nLicense: GPL-3\nAuthor: synthguard benchmarks\nMaintainer: none <none@example.org>\n' "$1" >"$TMP/$1/DESCRIPTION"
  printf 'export(%s)\n' "$2" >"$TMP/$1/NAMESPACE"
  printf '%s <- function(...) stop("%s::%s is a stub in this benchmark library")\n' "$2" "$1" "$2" >"$TMP/$1/R/stub.R"
  R CMD INSTALL --no-test-load -l "$LIB" "$TMP/$1" >/dev/null
}
Rscript -e 'quit(status = !requireNamespace("mipfp", quietly = TRUE))' 2>/dev/null || stub mipfp Ipfp
Rscript -e 'quit(status = !requireNamespace("broman", quietly = TRUE))' 2>/dev/null || stub broman runningmean
mkdir -p "$TMP/synthpop"
git --git-dir="$SNAP" archive HEAD | tar -x -C "$TMP/synthpop"
R_LIBS_USER="$LIB" R CMD INSTALL -l "$LIB" "$TMP/synthpop" >/dev/null
R_LIBS_USER="$LIB" Rscript -e 'cat("synthpop", as.character(packageVersion("synthpop")), "installed\n")'
