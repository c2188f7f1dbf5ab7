#!/usr/bin/env bash
# moe-schedules.sh: the numbers of docs/moe.md's "Which schedule wins":
# which schedule family is fastest for an MoE model on a given cluster, with
# its experts on one GPU (no all-to-all), over the 8 GPUs of a node
# (all-to-alls on NVLink) and over 64 GPUs (8 nodes: all-to-alls mostly on
# InfiniBand), and what overlapping the all-to-all in F&B pairs is worth.
#
#   scripts/moe-schedules.sh [PIPELAB]
#
# PIPELAB is the binary (default: pipelab on the PATH). For each expert-
# parallel degree it prints `pipelab compare` of the families, then, for the
# pairs that isolate the overlap (combined-1f1b against interleaved-1f1b, the
# same interleaved order with and without its F&B pairs; dualpipev against
# zb-v, the V-shaped pair) and for the leaders (dualpipe against dualpipev,
# combined-1f1b against dualpipe), the paired makespan differences A - B over seeds
# 1 to 5 of `pipelab simulate --jitter 0.05 --comm-jitter 0.1`: their mean,
# a 95% t interval (t = 2.776, 4 degrees of freedom) and how many seeds
# agree with the mean's sign.
set -euo pipefail
pl=${1:-pipelab}
cfg=pipeline/cost/testdata/hf/qwen3-30b-a3b.json
shape=(--ranks 8 --microbatches 32)
gpu=(--model-config "$cfg" --gpu h100 --link ib-ndr --seq-len 2048 --flash-attention)
kinds=1f1b,interleaved-1f1b,combined-1f1b,zb-h1,zb-v,v-half,v-min,dualpipev,dualpipe

makespan() { # kind ep seed
	"$pl" simulate --kind "$1" "${shape[@]}" "${gpu[@]}" --expert-parallel "$2" \
		--jitter 0.05 --comm-jitter 0.1 --seed "$3" --format json |
		sed -n 's/^ *"makespan": \([0-9.e+-]*\),$/\1/p'
}

for ep in 0 8 64; do
	echo "== --expert-parallel $ep"
	"$pl" compare "${shape[@]}" --kind "$kinds" "${gpu[@]}" --expert-parallel "$ep"
	for pair in combined-1f1b:interleaved-1f1b dualpipev:zb-v dualpipe:dualpipev combined-1f1b:dualpipe; do
		a=${pair%%:*} b=${pair##*:}
		for seed in 1 2 3 4 5; do
			echo "$(makespan "$a" "$ep" "$seed") $(makespan "$b" "$ep" "$seed")"
		done | awk -v a="$a" -v b="$b" '
			{ d[NR] = $1 - $2; s += d[NR] }
			END {
				n = NR; m = s / n
				for (i = 1; i <= n; i++) v += (d[i] - m) ^ 2
				h = 2.776 * sqrt(v / (n - 1)) / sqrt(n)
				for (i = 1; i <= n; i++) agree += (d[i] < 0) == (m < 0)
				printf "%s - %s: mean %+.4f s, 95%% interval [%+.4f, %+.4f], %d of %d seeds agree\n", a, b, m, m - h, m + h, agree, n
			}'
	done
	echo
done
