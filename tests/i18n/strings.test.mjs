// No word of the page outside the catalogues: the pages (www/*.html) and their
// scripts (www/assets/*.js) hold no user-visible text, every key they use is in
// the English catalogue, and every key of it is used somewhere.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { ROOT, catalogues, messageKeys } from './catalogues.mjs';

const WWW = path.join(ROOT, 'www');
const pages = fs.readdirSync(WWW).filter((f) => f.endsWith('.html')).sort();
const scripts = fs.readdirSync(path.join(WWW, 'assets')).filter((f) => f.endsWith('.js')).sort();
const en = catalogues().find((c) => c.code === 'en').data;
const NAMESPACES = new Set(messageKeys(en).map((k) => k.split('.')[0]));

const LETTER = /\p{L}/u;
// The one word allowed anywhere: the name of the service.
const BRAND = 'burnlink';
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const TEXT_ATTRS = ['aria-label', 'title', 'placeholder', 'alt', 'aria-description', 'aria-roledescription', 'value', 'label'];

// Text nodes and attributes of an HTML page: [{kind, text, where, keep}],
// keep when an ancestor is <noscript> or carries translate="no".
function scanHtml(html) {
	const out = [];
	const stack = [];
	const src = html.replace(/<!--[\s\S]*?-->/g, '');
	const re = /<(\/?)([a-zA-Z][\w-]*)((?:\s+[^\s=>\/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*(\/?)>|([^<]+)/g;
	let m;
	while ((m = re.exec(src)) !== null) {
		const keep = stack.some((e) => e.keep);
		const inside = stack.map((e) => e.tag).join('>');
		if (m[5] !== undefined) {
			const text = m[5].trim();
			const parent = stack[stack.length - 1];
			if (text && parent && !['script', 'style'].includes(parent.tag))
				out.push({ kind: 'text', text, where: inside, keep });
			continue;
		}
		const [, close, rawTag, attrText, selfClose] = m;
		const tag = rawTag.toLowerCase();
		if (close) {
			while (stack.length && stack.pop().tag !== tag)
				;
			continue;
		}
		const attrs = {};
		for (const a of attrText.matchAll(/([^\s=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g))
			attrs[a[1].toLowerCase()] = a[2] ?? a[3] ?? a[4] ?? '';
		for (const name of TEXT_ATTRS)
			if (name in attrs && LETTER.test(attrs[name]) && !(tag === 'input' && name === 'value'))
				out.push({ kind: `${tag}[${name}]`, text: attrs[name], where: inside, keep });
		if (tag === 'meta' && attrs.content && ['description', 'keywords'].includes(attrs.name))
			out.push({ kind: 'meta[content]', text: attrs.content, where: inside, keep });
		const entry = { tag, keep: attrs.translate === 'no' || tag === 'noscript' || tag === 'code' && attrs.translate === 'no' };
		if (!VOID.has(tag) && !selfClose && tag !== 'path' && tag !== 'circle')
			stack.push(entry);
	}
	return out;
}

// The string literals of a script, comments removed: [{text, line, before}],
// before being the code just ahead of the literal on its line.
function literals(js) {
	const out = [];
	let i = 0;
	let line = 1;
	let lineStart = 0;
	while (i < js.length) {
		const c = js[i];
		if (c === '\n') {
			line++;
			lineStart = i + 1;
			i++;
		} else if (c === '/' && js[i + 1] === '/') {
			while (i < js.length && js[i] !== '\n')
				i++;
		} else if (c === '/' && js[i + 1] === '*') {
			const end = js.indexOf('*/', i + 2);
			line += (js.slice(i, end).match(/\n/g) || []).length;
			i = end + 2;
		} else if (c === '/' && /[(,=:!&|?{};]\s*$/.test(js.slice(lineStart, i))) {
			// a regular expression literal
			i++;
			let cls = false;
			while (i < js.length && (js[i] !== '/' || cls)) {
				if (js[i] === '\\')
					i++;
				else if (js[i] === '[')
					cls = true;
				else if (js[i] === ']')
					cls = false;
				i++;
			}
			i++;
		} else if (c === '\'' || c === '"' || c === '`') {
			const start = i;
			let text = '';
			i++;
			while (i < js.length && js[i] !== c) {
				if (js[i] === '\\') {
					text += js[i + 1];
					i += 2;
					continue;
				}
				if (c === '`' && js[i] === '$' && js[i + 1] === '{') {
					let depth = 1;
					i += 2;
					while (i < js.length && depth) {
						if (js[i] === '{')
							depth++;
						else if (js[i] === '}')
							depth--;
						i++;
					}
					text += '\u0000';
					continue;
				}
				if (js[i] === '\n')
					line++;
				text += js[i];
				i++;
			}
			i++;
			out.push({ text, line, before: js.slice(lineStart, start), quote: c });
		} else {
			i++;
		}
	}
	return out;
}

// A literal that reads as words of a sentence (two words of letters), or any
// text given to a place the reader sees.
const PROSE = /\p{L}{2,}[\s\u00a0]+\p{L}{2,}/u;
const SINK = new RegExp([
	String.raw`\b(textContent|innerText|innerHTML|outerHTML|value)\s*=(?!=)`,
	String.raw`\b(text|title|label|placeholder|alt)\s*:`,
	String.raw`['"](aria-label|title|placeholder|alt|aria-description)['"]\s*[:,]`,
	String.raw`\b(announce|setMessage|alert|confirm|prompt|localize|localizeAttr|setTitle|el)\(`,
	String.raw`\.(append|prepend|before|after|replaceChildren|createTextNode)\(`,
	String.raw`document\.title\s*=`,
].join('|'));
// Developer-facing text: thrown errors and the console, CSS selectors and
// property values; and the values of
// attributes no one reads (class names, types ...).
const DEV = /(new \w*Error|console\.\w+|querySelector(?:All)?|closest|setProperty)\((?:[^()]*,)?\s*$|\b(class|className|type|id|href|rel|role|dir|lang|download|name|autocomplete)\s*:\s*$|['"]data-[\w-]+['"]\s*:\s*$/;

const isKey = (s) => /^[a-z]+(\.[A-Za-z0-9]+)+$/.test(s) && NAMESPACES.has(s.split('.')[0]);

test('the pages hold no text outside the catalogues', () => {
	const found = [];
	for (const f of pages) {
		for (const hit of scanHtml(fs.readFileSync(path.join(WWW, f), 'utf8'))) {
			if (hit.keep || !LETTER.test(hit.text))
				continue;
			if (hit.text === BRAND)
				continue;
			found.push(`${f}: ${hit.kind} in ${hit.where}: "${hit.text}"`);
		}
	}
	assert.deepEqual(found, [], 'put these in www/assets/i18n/en.json and give the element data-i18n (docs/PAGE.md)');
});

test('the scripts hold no text outside the catalogues', () => {
	const found = [];
	for (const f of scripts) {
		const js = fs.readFileSync(path.join(WWW, 'assets', f), 'utf8');
		for (const lit of literals(js)) {
			const text = lit.text.replace(/\u0000/g, ' ');
			if (!LETTER.test(text) || isKey(text) || DEV.test(lit.before))
				continue;
			if (lit.before.trim().startsWith('import ') || /\bfrom\s*$/.test(lit.before))
				continue;
			const sentence = PROSE.test(text) && !/^[\w-]+(\s[\w-]+)*$/.test(text.trim()) ? true : PROSE.test(text) && /[A-Z]/.test(text[0]);
			const shown = SINK.test(lit.before) && !/^[a-z][\w-]*$/.test(text) && !/^[\w.-]+\/[\w.+-]+$/.test(text);
			if (sentence || shown)
				found.push(`${f}:${lit.line}: ${lit.quote}${lit.text.replace(/\u0000/g, '${…}')}${lit.quote}`);
		}
	}
	assert.deepEqual(found, [], 'put these in www/assets/i18n/en.json and use msg() (docs/PAGE.md)');
});

// The keys the pages and scripts name.
function usedKeys() {
	const used = new Map();
	for (const f of pages) {
		const html = fs.readFileSync(path.join(WWW, f), 'utf8');
		for (const m of html.matchAll(/data-i18n(?:-[a-z-]+)?="([^"]+)"/g))
			if (isKey(m[1]))
				used.set(m[1], f);
	}
	for (const f of scripts)
		for (const lit of literals(fs.readFileSync(path.join(WWW, 'assets', f), 'utf8')))
			if (isKey(lit.text))
				used.set(lit.text, `${f}:${lit.line}`);
	return used;
}

test('every key the page uses is in the English catalogue, and every key is used', () => {
	const used = usedKeys();
	const unknown = [...used].filter(([k]) => !(k in en)).map(([k, where]) => `${where}: ${k}`);
	assert.deepEqual(unknown, [], 'keys missing from www/assets/i18n/en.json');
	const unused = messageKeys(en).filter((k) => !used.has(k));
	assert.deepEqual(unused, [], 'keys of en.json that no page or script uses');
});

test('the scanner finds text where it should (self-test)', () => {
	const html = '<p>Hello there</p><p data-i18n="x.y"></p><noscript><p>Needs JS</p></noscript>' +
		'<button aria-label="Close it"></button><span translate="no">burnlink code</span>';
	const hits = scanHtml(html).filter((h) => !h.keep && LETTER.test(h.text)).map((h) => h.text);
	assert.deepEqual(hits, ['Hello there', 'Close it']);
	const js = "el.textContent = 'Saved';\nconst a = 'plain-id';\nsay(`You have ${n} new messages`); // 'Not this'\n" +
		"throw new Error('not base64');\nconst r = /it's a regex/;";
	const lits = literals(js).map((l) => l.text.replace(/\u0000/g, '#'));
	assert.deepEqual(lits, ['Saved', 'plain-id', 'You have # new messages', 'not base64']);
});
