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

rank() {
	awk -v k="$1" '$1 == k { print $2; found = 1 } END { if (!found) print "" }' "$tmp/rank"
}
lname() {
	sed -n "${1}p" "$tmp/names"
}

bad=0
units=0
for src in lib/*.c; do
	u=$(basename "$src" .c)
	units=$((units + 1))
	r=$(rank "$u")
	if [ -z "$r" ]; then
		echo "layers: $src is in no layer: add it to $table"
		bad=$((bad + 1))
		continue
	fi
	# The first line may say its layer; it must agree with the table.
	said=$(head -n 5 "$src" | sed -n 's/.*(layer: \([a-z]*\)).*/\1/p' | head -n 1)
	if [ -n "$said" ] && [ "$said" != "$(lname "$r")" ]; then
		echo "layers: $src says layer $said, $table says $(lname "$r")"
		bad=$((bad + 1))
	fi
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$src"); do
		hr=$(rank "$h")
		if [ -z "$hr" ]; then
			echo "layers: $src includes $h, which is in no layer of $table"
			bad=$((bad + 1))
		elif [ "$hr" -gt "$r" ]; then
			echo "layers: $src ($(lname "$r")) includes $h ($(lname "$hr"))"
			bad=$((bad + 1))
		fi
	done
done

# Calls: which object defines each bl_ symbol, then each object's undefined ones.
objs=$(ls "$objdir"/*.o 2>/dev/null)
if [ -z "$objs" ]; then
	echo "layers: no objects in $objdir (run make first)"
	exit 2
fi
for o in $objs; do
	nm -g --defined-only "$o" | awk -v u="$(basename "$o" .o)" 'NF == 3 && $3 ~ /^bl_/ { print $3, u }'
done > "$tmp/defs"
for o in $objs; do
	u=$(basename "$o" .o)
	r=$(rank "$u")
	[ -n "$r" ] || continue
	nm -u "$o" | awk '$2 ~ /^bl_/ { print $2 }' | while read -r sym; do
		d=$(awk -v s="$sym" '$1 == s { print $2; exit }' "$tmp/defs")
		[ -n "$d" ] || continue
		dr=$(rank "$d")
		if [ -n "$dr" ] && [ "$dr" -gt "$r" ]; then
			echo "layers: $u ($(lname "$r")) calls $sym of $d ($(lname "$dr"))"
		fi
		[ "$d" = "$u" ] || echo "$u $d $sym" >> "$tmp/edges"
	done
done > "$tmp/calls"
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
