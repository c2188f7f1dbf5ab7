#!/usr/bin/env bash
# docs-img.sh: copy each figure's chosen PNGs from a `pipelab reproduce`
# output folder into docs/img under the stable names docs/figures.md shows.
#
#   scripts/docs-img.sh [--keep-before] [--img DIR] OUT [FIGURE ...]
#
# OUT is the folder `pipelab reproduce ... --out OUT` wrote (one subfolder per
# figure). With FIGURE arguments only those figures are copied; without, every
# figure of the table below that OUT holds (figures OUT lacks are skipped and
# named). --keep-before first moves the image being replaced to
# docs/img/before/NAME.png, unless a before image of that name is already
# there: the before images are the figures as drawn before issue 14's plot
# fixes, and later runs leave them alone. --img DIR writes to DIR instead of
# the repository's docs/img. Files are written atomically (a temporary file,
# then a rename).
#
# Exit status: 0 when every named file was copied; 2 for bad usage (unknown
# option, no OUT folder, a FIGURE the table does not know); 1 when a figure's
# folder lacks one of its files (the table below is stale, or the run failed).
set -euo pipefail

# figure   file in OUT/FIGURE/   name in docs/img (without .png)
table='
delays                 delays.png                                                  delays
pd-vs-rpd              pd-vs-rpd-unit-loss-vs-updates.png                          pd-vs-rpd
pd-vs-localsgd         pd-vs-localsgd-unit-loss-vs-time.png                        pd-vs-localsgd-unit
pd-vs-localsgd         pd-vs-localsgd-gpu-loss-vs-time.png                         pd-vs-localsgd-gpu
pd-vs-localsgd-budget  pd-vs-localsgd-budget-unit-loss-vs-time.png                 pd-vs-localsgd-budget-unit
scaling                scaling-unit-final-vs-stages.png                            scaling-unit
scaling                scaling-gpu-final-vs-stages.png                             scaling-gpu
regime                 regime-unit-regime-map.png                                  regime-unit
lm                     lm-text-gpu-loss-vs-time.png                                lm-text-gpu
lm                     lm-text-gpu-time-to-target.png                              lm-text-time-to-target
lm-markov              lm-unit-loss-vs-time.png                                    lm-unit
lm-markov              lm-gpu-loss-vs-time.png                                     lm-gpu
schedules              schedules_unit_p4-m8.png                                    schedules-unit-m8
schedules              schedules_gpu-gpt-1.3b-a100-nvlink_p4-m8_simulated.png      schedules-gpu-nvlink-m8
schedules              schedules_gpu-gpt-1.3b-a100-nvlink_p4-m8.png                schedules-gpu-nvlink-m8-levels
schedules              gantt-unit_p4-m8_1f1b_simulated.png                         gantt-1f1b-unit
schedules              gantt-unit_p4-m8_1f1b_lockstep.png                          gantt-1f1b-lockstep
schedules              gantt-gpu-gpt-1.3b-a100-nvlink_p4-m8_chimera_simulated.png  gantt-chimera-gpu
remedies               remedies-logistic-1f1b-gpu-time-to-target.png               remedies-logistic-1f1b-time-to-target
remedies               remedies-logistic-zb-h1-gpu-time-to-target.png              remedies-logistic-zb-h1-time-to-target
remedies               remedies-lm-zb-h1-gpu-time-to-target.png                    remedies-lm-zb-h1-time-to-target
remedies               remedies-lm-zb-h1-gpu-loss-vs-time.png                      remedies-lm-zb-h1-loss-vs-time
delay-profiles         delay-profiles.png                                          delay-profiles
delay-profiles         delay-profiles-quadratic-unit-delay-models.png              delay-profiles-quadratic
delay-profiles         delay-profiles-lm-unit-delay-models.png                     delay-profiles-lm
staleness-law          staleness-law.png                                           staleness-law
staleness-law          staleness-law-k.png                                         staleness-law-k
optimizers-under-delay optimizers-under-delay.png                                  optimizers-under-delay
'

usage() {
	echo "usage: scripts/docs-img.sh [--keep-before] [--img DIR] OUT [FIGURE ...]" >&2
	exit 2
}

keep=0
img="$(cd "$(dirname "$0")/.." && pwd)/docs/img"
while [ $# -gt 0 ]; do
	case "$1" in
	--keep-before) keep=1; shift ;;
	--img) [ $# -ge 2 ] || usage; img="$2"; shift 2 ;;
	-h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	-*) echo "docs-img.sh: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
out="$1"
shift
if [ ! -d "$out" ]; then
	echo "docs-img.sh: $out: no such folder (the --out of pipelab reproduce)" >&2
	exit 2
fi
known=$(echo "$table" | awk 'NF == 3 { print $1 }' | sort -u)
for f in "$@"; do
	if ! grep -qx -- "$f" <<<"$known"; then
		echo "docs-img.sh: unknown figure $f (known: $(echo $known))" >&2
		exit 2
	fi
done
if [ $# -eq 0 ]; then
	set -- $known
fi

mkdir -p "$img"
status=0
for fig in "$@"; do
	if [ ! -d "$out/$fig" ]; then
		echo "skip $fig: no $out/$fig"
		continue
	fi
	while read -r figure file name; do
		[ "$figure" = "$fig" ] || continue
		src="$out/$fig/$file"
		dst="$img/$name.png"
		if [ ! -f "$src" ]; then
			echo "docs-img.sh: $src: missing (figure $fig, docs/img name $name)" >&2
			status=1
			continue
		fi
		if [ "$keep" = 1 ] && [ -f "$dst" ] && [ ! -f "$img/before/$name.png" ]; then
			mkdir -p "$img/before"
			cp "$dst" "$img/before/.$name.png.tmp"
			mv "$img/before/.$name.png.tmp" "$img/before/$name.png"
			echo "kept $img/before/$name.png"
		fi
		cp "$src" "$img/.$name.png.tmp"
		mv "$img/.$name.png.tmp" "$dst"
		echo "$src -> $dst"
	done <<<"$(echo "$table" | awk 'NF == 3')"
done
exit $status
