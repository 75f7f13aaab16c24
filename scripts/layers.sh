#!/bin/sh
# layers.sh: fails when a unit of lib/ includes or calls a unit of a higher
# layer (scripts/layers.txt), and when units call each other in a cycle
# (within a layer: a unit that calls a unit of its own layer is not called
# back by it, directly or round a loop), except the cycles layers.txt still
# lists as known. Calls are read from the compiled objects (nm): each
# undefined bl_* symbol of an object is looked up among the symbols the other
# objects define. Includes are read from the sources.
# Usage: scripts/layers.sh [OBJDIR]   (default build/lib, made by `make`;
#        LAYERS_TABLE: another table than scripts/layers.txt, for its test)
set -u
cd "$(dirname "$0")/.." || exit 2
objdir=${1:-build/lib}
table=${LAYERS_TABLE:-scripts/layers.txt}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/layers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# name -> layer number, one "name n" per line; "cycle a b ..." lines are the known cycles
awk '!/^#/ && NF > 1 && $1 != "cycle" { n++; for (i = 2; i <= NF; i++) print $i, n }' "$table" > "$tmp/rank"
awk '!/^#/ && NF > 1 && $1 != "cycle" { print $1 }' "$table" > "$tmp/names"
awk '$1 == "cycle" { $1 = ""; n = split($0, u, " "); for (i = 1; i <= n; i++) for (j = 1; j <= n; j++) if (i != j) print u[i], u[j] }' \
    "$table" > "$tmp/known"

# Includes, in one pass over the sources: each unit is in a layer, agrees
# with its first lines' "(layer: NAME)", and includes nothing of a higher
# layer. One line per violation.
units=$(ls lib/*.c | wc -l)
awk -v table="$table" '
	function done() {
		if (src == "" || skip) return
		if (said != "" && said != lname[r]) print "layers: " src " says layer " said ", " table " says " lname[r]
		printf "%s", inc
	}
	FILENAME == ARGV[1] { rank[$1] = $2; next }
	FILENAME == ARGV[2] { lname[++n] = $1; next }
	FNR == 1 {
		done()
		src = FILENAME; u = src; sub(/^.*\//, "", u); sub(/\.c$/, "", u)
		said = ""; saidline = 0; inc = ""; skip = 0
		if (!(u in rank)) { print "layers: " src " is in no layer: add it to " table; skip = 1; next }
		r = rank[u]
	}
	skip { next }
	# the first line of the first five that says its layer (the last "(layer: x)" on it)
	FNR <= 5 && !saidline && /\(layer: [a-z]*\)/ {
		saidline = 1; l = $0
		while (match(l, /\(layer: [a-z]*\)/)) { said = substr(l, RSTART + 8, RLENGTH - 9); l = substr(l, RSTART + RLENGTH) }
	}
	match($0, /^#include "[^"]*"/) {
		h = substr($0, 11, RLENGTH - 11)
		if (!(h in rank)) inc = inc "layers: " src " includes " h ", which is in no layer of " table "\n"
		else if (rank[h] + 0 > r + 0) inc = inc "layers: " src " (" lname[r] ") includes " h " (" lname[rank[h]] ")\n"
	}
	END { done() }' "$tmp/rank" "$tmp/names" lib/*.c > "$tmp/includes"
cat "$tmp/includes"
bad=$(wc -l < "$tmp/includes")

# Calls: which object defines each bl_ symbol, then each object's undefined ones.
objs=$(ls "$objdir"/*.o 2>/dev/null)
if [ -z "$objs" ]; then
	echo "layers: no objects in $objdir (run make first)"
	exit 2
fi
# (nm -A starts each line with "OBJDIR/unit.o:")
unit='{ u = $1; sub(/\.o:.*$/, "", u); sub(/^.*\//, "", u) }'
# shellcheck disable=SC2086
nm -A -g --defined-only $objs | awk "$unit"' NF == 3 && $3 ~ /^bl_/ { print $3, u }' > "$tmp/defs"
# shellcheck disable=SC2086
nm -A -u $objs | awk "$unit"' NF == 3 && $3 ~ /^bl_/ { print u, $3 }' > "$tmp/undefs"
# Each undefined symbol of a unit in a layer, looked up among the definitions
# (the first object that defines it), in one pass: a call to a higher layer
# is a violation, a call to another unit an edge of the call graph.
awk -v edges="$tmp/edges" '
	FILENAME == ARGV[1] { rank[$1] = $2; next }
	FILENAME == ARGV[2] { lname[++n] = $1; next }
	FILENAME == ARGV[3] { if (!($1 in def)) def[$1] = $2; next }
	!($1 in rank) || !($2 in def) { next }
	{
		u = $1; d = def[$2]
		if ((d in rank) && rank[d] + 0 > rank[u] + 0)
			print "layers: " u " (" lname[rank[u]] ") calls " $2 " of " d " (" lname[rank[d]] ")"
		if (d != u)
			print u, d, $2 > edges
	}' "$tmp/rank" "$tmp/names" "$tmp/defs" "$tmp/undefs" > "$tmp/calls"
calls=$(wc -l < "$tmp/calls")
cat "$tmp/calls"
bad=$((bad + calls))

# Cycles: the call graph without the known cycles' edges must sort
# topologically; tsort names a loop it finds, one unit a line.
touch "$tmp/edges"
awk 'FILENAME == ARGV[1] { known[$1 " " $2] = 1; next } !(($1 " " $2) in known) { print $1, $2 }' \
    "$tmp/known" "$tmp/edges" | sort -u > "$tmp/graph"
# tsort prints "input contains a loop:" and then the loop's units, for each loop it breaks
tsort "$tmp/graph" 2>&1 >/dev/null | awk '
	/input contains a loop:$/ { if (l != "") print l; l = ""; next }
	/^tsort: [a-z_0-9]+$/ { l = l (l == "" ? "" : " ") $2 }
	END { if (l != "") print l }' > "$tmp/loops"
loops=0
while read -r loop; do
	loops=$((loops + 1))
	echo "layers: units that call each other in a loop: $loop (make the dependency one-way: move the shared piece down a layer, or pass a function)"
	alt=$(echo "$loop" | sed 's/ /|/g')
	grep -E "^($alt) ($alt) " "$tmp/edges" | sed 's/^/layers:   /'
done < "$tmp/loops"
bad=$((bad + loops))
echo "layers: $units units, $(wc -l < "$tmp/defs") symbols, $bad violations"
[ "$bad" = 0 ]
