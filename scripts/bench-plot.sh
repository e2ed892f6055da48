#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A grouped bar chart as SVG, with no plotting package: reads lines
# "GROUP SERIES VALUE" (e.g. "4jobs split-deadline 41234") on stdin and
# writes the SVG to stdout, one group of bars per GROUP, one colour per
# SERIES, in order of first appearance.
#   scripts/bench-plot.sh "TITLE" "Y LABEL" <data >plot.svg
set -euo pipefail
title=${1:-benchmark} ylabel=${2:-value}
awk -v title="$title" -v ylabel="$ylabel" '
# Numbers from the start: an unset ng is "" as a subscript, not 0, and
# the first group and series would be stored where no bar looks.
BEGIN { ng = 0; ns = 0 }
NF >= 3 {
	g = $1; s = $2; v = $3 + 0
	if (!(g in gi)) { gi[g] = ng; gname[ng++] = g }
	if (!(s in si)) { si[s] = ns; sname[ns++] = s }
	val[gi[g], si[s]] = v
	if (v > max) max = v
}
END {
	if (!ng) exit 1
	split("#4e79a7 #f28e2b #e15759 #76b7b2 #59a14f #edc948 #b07aa1 #ff9da7", col, " ")
	bw = 18; gap = 24; left = 70; top = 40; h = 300
	gw = ns * bw + gap
	w = left + ng * gw + 160
	H = top + h + 60
	printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n", w, H
	printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	printf "<text x=\"%d\" y=\"20\" font-size=\"14\">%s</text>\n", left, title
	printf "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\">%s</text>\n", top + h / 2, top + h / 2, ylabel
	for (t = 0; t <= 4; t++) {
		y = top + h - t * h / 4
		printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n", left, y, left + ng * gw, y
		printf "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%d</text>\n", left - 4, y + 4, max * t / 4
	}
	for (g = 0; g < ng; g++) {
		x0 = left + g * gw + gap / 2
		for (s = 0; s < ns; s++) {
			if (!((g, s) in val)) continue
			bh = max ? val[g, s] * h / max : 0
			printf "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>%s %s: %d</title></rect>\n", x0 + s * bw, top + h - bh, bw - 2, bh, col[s % 8 + 1], gname[g], sname[s], val[g, s]
		}
		printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x0 + ns * bw / 2, top + h + 16, gname[g]
	}
	for (s = 0; s < ns; s++) {
		y = top + 10 + s * 18
		printf "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", left + ng * gw + 10, y, col[s % 8 + 1]
		printf "<text x=\"%d\" y=\"%d\">%s</text>\n", left + ng * gw + 28, y + 10, sname[s]
	}
	print "</svg>"
}'
