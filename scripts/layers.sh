#!/bin/sh
# layers.sh: fails when a unit of lib/ includes or calls a unit of a higher
# layer (scripts/layers.txt). Calls are read from the compiled objects (nm):
# each undefined bl_* symbol of an object is looked up among the symbols the
# other objects define. Includes are read from the sources.
# Usage: scripts/layers.sh [OBJDIR]   (default build/lib, made by `make`)
set -u
cd "$(dirname "$0")/.." || exit 2
objdir=${1:-build/lib}
table=scripts/layers.txt
tmp=$(mktemp -d "${TMPDIR:-/tmp}/layers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# name -> layer number, one "name n" per line
awk '!/^#/ && NF > 1 { n++; for (i = 2; i <= NF; i++) print $i, n }' "$table" > "$tmp/rank"
awk '!/^#/ && NF > 1 { print $1 }' "$table" > "$tmp/names"

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
	done
done > "$tmp/calls"
calls=$(wc -l < "$tmp/calls")
cat "$tmp/calls"
bad=$((bad + calls))
echo "layers: $units units, $(wc -l < "$tmp/defs") symbols, $bad violations"
[ "$bad" = 0 ]
