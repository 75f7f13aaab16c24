#!/bin/sh
# i18n-index.sh: writes www/assets/i18n/index.json, the page's list of languages
# (docs/PAGE.md, "Languages"): one entry per catalogue file www/assets/i18n/*.json,
# so adding a language is adding its file. The operator's choices come from
#   DEFAULT_LANGUAGE   the language when none of the reader's fits (default: en)
#   LANGUAGES          the languages offered, by file name, separated by spaces
#                      (default: every catalogue)
# e.g. `make DEFAULT_LANGUAGE=de LANGUAGES="de en fr"`. The file is rewritten
# only when it changes. Usage: scripts/i18n-index.sh [DIR]
set -eu
dir=${1:-$(dirname "$0")/../www/assets/i18n}
default=${DEFAULT_LANGUAGE:-en}
offered=${LANGUAGES:-}

# A catalogue is named by its language tag (en, pt-BR, zh-Hant): nothing else
# in the directory counts.
codes=""
for f in "$dir"/*.json; do
	c=$(basename "$f" .json)
	case "$c" in
	index) continue ;;
	esac
	if ! printf '%s\n' "$c" | grep -Eq '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$'; then
		echo "i18n-index.sh: $f: not named by a language tag, ignored" >&2
		continue
	fi
	codes="$codes $c"
done

json_list() {
	sep=""
	printf '['
	for c in $1; do
		printf '%s"%s"' "$sep" "$c"
		sep=", "
	done
	printf ']'
}

for c in $offered $default; do
	case " $codes " in
	*" $c "*) ;;
	*) echo "i18n-index.sh: language $c has no catalogue in $dir" >&2; exit 1 ;;
	esac
done

tmp="$dir/index.json.tmp"
{
	printf '{\n'
	printf '\t"languages": %s,\n' "$(json_list "$codes")"
	printf '\t"default": "%s",\n' "$default"
	if [ -n "$offered" ]; then
		printf '\t"offered": %s\n' "$(json_list "$offered")"
	else
		printf '\t"offered": null\n'
	fi
	printf '}\n'
} > "$tmp"
if cmp -s "$tmp" "$dir/index.json"; then
	rm -f "$tmp"
else
	mv "$tmp" "$dir/index.json"
fi
