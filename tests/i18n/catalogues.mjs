// catalogues.mjs: reads the page's message catalogues (www/assets/i18n/*.json)
// for the i18n tests, and the rules every catalogue follows (docs/PAGE.md,
// "Languages").

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DIR = path.join(ROOT, 'www', 'assets', 'i18n');

// Names the catalogue files may not have (generated or operator files).
export const NOT_CATALOGUES = new Set(['index']);

// The metadata keys of a catalogue (the loader ignores them as messages).
export const META = new Set(['_glossary', '_dir', '_note']);

// The terms every glossary defines: one word each, used throughout.
export const GLOSSARY_TERMS = ['secret', 'link', 'burn', 'view'];

export const CATEGORIES = ['zero', 'one', 'two', 'few', 'many', 'other'];

// The catalogue files: [{code, file, text, data}].
export function catalogues() {
	return fs.readdirSync(DIR)
		.filter((f) => f.endsWith('.json') && !NOT_CATALOGUES.has(f.slice(0, -5)))
		.sort()
		.map((f) => {
			const file = path.join(DIR, f);
			const text = fs.readFileSync(file, 'utf8');
			return { code: f.slice(0, -5), file, text, data: JSON.parse(text) };
		});
}

// The message keys of a catalogue (metadata left out).
export function messageKeys(data) {
	return Object.keys(data).filter((k) => !k.startsWith('_'));
}

// The placeholders {name} of an entry (a string, or a plural entry's forms).
export function placeholders(entry) {
	const forms = typeof entry === 'string' ? [entry] : Object.values(entry);
	const names = new Set();
	for (const f of forms)
		for (const m of String(f).matchAll(/\{(\w+)\}/g))
			names.add(m[1]);
	return names;
}

// Keys that appear more than once in a JSON text (JSON.parse keeps the last).
export function duplicateKeys(text) {
	const seen = new Set();
	const dup = [];
	// top-level keys are indented by one tab; plural forms and glossary terms by two
	for (const m of text.matchAll(/^\t"([^"]+)"\s*:/gm)) {
		if (seen.has(m[1]))
			dup.push(m[1]);
		seen.add(m[1]);
	}
	return dup;
}
