// The message catalogues: every language has every key of English and no
// other, the same placeholders, the plural forms its language needs
// (Intl.PluralRules), a glossary of its terms, and a direction; and the
// generated index lists exactly the catalogue files.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {
	ROOT, DIR, META, GLOSSARY_TERMS, CATEGORIES, catalogues, messageKeys, placeholders,
	duplicateKeys,
} from './catalogues.mjs';

const all = catalogues();
const en = all.find((c) => c.code === 'en');

test('there is an English catalogue, the reference of the others', () => {
	assert.ok(en, 'www/assets/i18n/en.json is missing');
	assert.ok(messageKeys(en.data).length > 100);
});

for (const c of all) {
	test(`${c.code}: named by a language tag, valid metadata`, () => {
		assert.deepEqual(Intl.getCanonicalLocales(c.code), [c.code],
			`${c.code}.json: the file name must be a canonical language tag (pt-BR, zh-Hant)`);
		for (const k of Object.keys(c.data).filter((key) => key.startsWith('_')))
			assert.ok(META.has(k), `${c.code}.json: unknown metadata key ${k} (known: ${[...META].join(', ')})`);
		assert.ok(['ltr', 'rtl'].includes(c.data._dir), `${c.code}.json: "_dir" must be "ltr" or "rtl"`);
		const expected = new Intl.Locale(c.code).textInfo?.direction;
		if (expected)
			assert.equal(c.data._dir, expected, `${c.code}.json: "_dir" does not match the language`);
		assert.deepEqual(duplicateKeys(c.text), [], `${c.code}.json: keys given twice`);
	});

	test(`${c.code}: a glossary of the terms it uses`, () => {
		const g = c.data._glossary;
		assert.equal(typeof g, 'object', `${c.code}.json: "_glossary" is missing`);
		for (const term of GLOSSARY_TERMS)
			assert.ok(typeof g[term] === 'string' && g[term].trim(), `${c.code}.json: the glossary does not define "${term}"`);
	});

	test(`${c.code}: every key of English, no other, the same placeholders`, () => {
		const mine = new Set(messageKeys(c.data));
		const ref = messageKeys(en.data);
		const missingKeys = ref.filter((k) => !mine.has(k));
		const extra = [...mine].filter((k) => !(k in en.data));
		assert.deepEqual(missingKeys, [], `${c.code}.json lacks keys`);
		assert.deepEqual(extra, [], `${c.code}.json has keys English does not`);
		const wrong = [];
		for (const k of ref) {
			const a = [...placeholders(en.data[k])].sort().join(',');
			const b = [...placeholders(c.data[k])].sort().join(',');
			// a plural entry may leave {count} out of a form ("once"), not out of all
			if (a !== b)
				wrong.push(`${k}: {${b}} instead of {${a}}`);
			const forms = typeof c.data[k] === 'string' ? [c.data[k]] : Object.values(c.data[k]);
			for (const f of forms)
				if (typeof f !== 'string' || f.trim() === '')
					wrong.push(`${k}: an empty or non-text form`);
		}
		assert.deepEqual(wrong, [], `${c.code}.json: placeholders differ from English`);
	});

	test(`${c.code}: plural entries have the forms of the language`, () => {
		const needed = new Intl.PluralRules(c.code).resolvedOptions().pluralCategories;
		const wrong = [];
		for (const k of messageKeys(en.data)) {
			const mine = c.data[k];
			const plural = typeof en.data[k] === 'object';
			if (mine === undefined)
				continue;
			if (!plural) {
				if (typeof mine !== 'string')
					wrong.push(`${k}: is a plural entry, English has one text`);
				continue;
			}
			if (typeof mine !== 'object' || mine === null) {
				wrong.push(`${k}: needs the plural forms ${needed.join(', ')}`);
				continue;
			}
			for (const cat of needed)
				if (!(cat in mine))
					wrong.push(`${k}: lacks the "${cat}" form`);
			for (const cat of Object.keys(mine))
				if (!CATEGORIES.includes(cat))
					wrong.push(`${k}: "${cat}" is no plural category`);
				else if (!needed.includes(cat))
					wrong.push(`${k}: "${cat}" is not a plural form of ${c.code} (${needed.join(', ')})`);
		}
		assert.deepEqual(wrong, [], `${c.code}.json: plural forms`);
	});
}

test('the generated index lists every catalogue and the operator\'s choices', () => {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-i18n-'));
	try {
		for (const c of all)
			fs.copyFileSync(c.file, path.join(tmp, `${c.code}.json`));
		const run = (env) => execFileSync('sh', [path.join(ROOT, 'scripts/i18n-index.sh'), tmp],
			{ env: { ...process.env, DEFAULT_LANGUAGE: '', LANGUAGES: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
		run({});
		let idx = JSON.parse(fs.readFileSync(path.join(tmp, 'index.json'), 'utf8'));
		assert.deepEqual(idx, { languages: all.map((c) => c.code), default: 'en', offered: null });

		// adding a language is adding its file
		fs.writeFileSync(path.join(tmp, 'xx.json'), '{}');
		run({});
		idx = JSON.parse(fs.readFileSync(path.join(tmp, 'index.json'), 'utf8'));
		assert.ok(idx.languages.includes('xx'));

		run({ DEFAULT_LANGUAGE: 'de', LANGUAGES: 'de en' });
		idx = JSON.parse(fs.readFileSync(path.join(tmp, 'index.json'), 'utf8'));
		assert.equal(idx.default, 'de');
		assert.deepEqual(idx.offered, ['de', 'en']);

		// a language without a catalogue is refused, and the index kept
		assert.throws(() => run({ LANGUAGES: 'de tlh' }), /tlh has no catalogue/);
		assert.deepEqual(JSON.parse(fs.readFileSync(path.join(tmp, 'index.json'), 'utf8')).offered, ['de', 'en']);
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
});

test('the served index (made by `make`) is up to date', { skip: !fs.existsSync(path.join(DIR, 'index.json')) && 'no index.json (make)' }, () => {
	const idx = JSON.parse(fs.readFileSync(path.join(DIR, 'index.json'), 'utf8'));
	assert.deepEqual(idx.languages, all.map((c) => c.code), 'run make to regenerate www/assets/i18n/index.json');
});
