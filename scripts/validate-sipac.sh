#!/usr/bin/env bash
# docs/validation.md's "SiPAC collectives": the SiPAC paper's Fig. 4a (incast,
# broadcast and all-to-all at 512 units) and Fig. 4b (the hybrid all-reduce +
# all-to-all at 64 and 512 units, 128-4096 Gb/s per unit) on SiPAC, the DGX
# SuperPod, a 2D torus and BCube. The runs are the studies
# scenarios/studies/validation/sipac-fig4a.yaml and sipac-fig4b.yaml; this
# runs them as scripts/validation-figures.sh does (which takes OUT, default
# here build/validation-img, STUDIES, KEEP and CORES) and prints the times,
# algorithms and SiPAC's speed-ups. ~1 minute on 2 cores.
# Usage: scripts/validate-sipac.sh [build dir] [fig4a|fig4b]   (default build/release, both)
set -euo pipefail
case ${2:-both} in
  fig4a | fig4b) figures=sipac-${2} ;;
  both) figures="sipac-fig4a sipac-fig4b" ;;
  *) echo "usage: $0 [build dir] [fig4a|fig4b]" >&2; exit 2 ;;
esac
FIGURES=$figures OUT=${OUT:-build/validation-img} exec "$(dirname "$0")/validation-figures.sh" "${1:-build/release}"
