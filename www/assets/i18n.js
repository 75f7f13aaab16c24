// i18n.js: the page's languages (docs/PAGE.md, "Languages"). Every word a page
// shows comes from a message catalogue, one file per language in assets/i18n/
// (en.json, de.json, ...); assets/i18n/index.json (made by `make` from those
// files) lists them with the operator's default and offered languages.
//
// The language is, in order: the reader's own choice from the menu (kept in
// localStorage, never a cookie), the best match of the browser's languages
// (pt-BR -> pt; zh-TW -> zh-Hant; zh-CN -> zh-Hans), the operator's default,
// English. The pages stay invisible (html.i18n-pending, burnlink.css) until the
// catalogue is applied, so no English shows first; this module finishes
// loading (top-level await) only then, so the page scripts run with it.
//
// Text put into the page carries its key and arguments (data-i18n,
// data-i18n-args; data-i18n-aria-label etc. for attributes), so choosing
// another language re-renders everything already shown, without a reload.

const BASE = new URL('./i18n/', import.meta.url);
const STORE = 'burnlink-language';
const ATTRS = ['aria-label', 'title', 'placeholder', 'alt', 'content'];

let lang = 'en';
let locale = 'en';	// for dates and numbers: the reader's own variant of lang (en-GB)
let messages = {};
let index = { languages: ['en'], default: 'en', offered: null };
const listeners = [];

/* Messages */

// A message to be shown: a catalogue key and its arguments. Put into the page
// through el() or localize(), it stays linked to its key and follows a change
// of language.
export class Msg {
	constructor(key, args) {
		this.key = key;
		this.args = args || {};
	}
	toString() { return t(this.key, this.args); }
	toJSON() { return { $msg: this.key, $args: this.args }; }
}

export function msg(key, args) {
	return new Msg(key, args);
}

// Arguments formatted in the page's language when the message is rendered.
export const date = (iso) => ({ $date: iso });		// "Sat, 23 Nov 2024, 14:05"
export const time = (iso) => ({ $time: iso });		// "14:05:09"
export const rel = (iso) => ({ $rel: iso });		// "in 23 hours", "5 minutes ago"
export const bytes = (n) => ({ $bytes: n });		// "1.5 KiB"
export const seconds = (n) => ({ $seconds: n });	// "30 seconds", "4 hours"

// A value alone (a date, a size ...) as a message, re-formatted on a change of
// language: el('span', { text: value(rel(iso)) }).
export function value(v) {
	return new Msg('=', { value: v });
}

function numberFormat() {
	// Grouping from 10 000 on: "1000" stays as the limits are written.
	return new Intl.NumberFormat(locale, { useGrouping: 'min2' });
}

// The text of one argument value.
function argText(v) {
	if (v === null || v === undefined)
		return '';
	if (typeof v === 'number')
		return numberFormat().format(v);
	if (typeof v !== 'object')
		return String(v);
	if (v instanceof Msg)
		return t(v.key, v.args);
	if ('$msg' in v)
		return t(v.$msg, v.$args);
	if ('$date' in v)
		return formatDate(v.$date);
	if ('$time' in v)
		return formatTime(v.$time);
	if ('$rel' in v)
		return formatRelative(v.$rel);
	if ('$bytes' in v)
		return formatBytes(v.$bytes);
	if ('$seconds' in v)
		return formatSeconds(v.$seconds);
	return '';
}

// The catalogue text of key: a plural entry ({one, other, ...}) is chosen by
// args.count with Intl.PluralRules.
function template(key, args) {
	if (key === '=')
		return '{value}';
	const entry = messages[key];
	if (entry === undefined)
		return key;
	if (typeof entry === 'string')
		return entry;
	const n = args && typeof args.count === 'number' ? args.count : 0;
	const cat = new Intl.PluralRules(lang).select(n);
	return entry[cat] !== undefined ? entry[cat] : entry.other;
}

// The message as a string, placeholders {name} filled from args.
export function t(key, args) {
	return template(key, args).replace(/\{(\w+)\}/g, (m, name) =>
		(args && name in args ? argText(args[name]) : m));
}

/* The page */

function parseArgs(node) {
	const raw = node.getAttribute('data-i18n-args');
	if (!raw)
		return {};
	try {
		return JSON.parse(raw);
	} catch {
		return {};
	}
}

// Renders the element's message(s): its text from data-i18n (a placeholder
// whose name is that of a child's data-i18n-slot takes that child, so that
// <strong>, <code> or a live value can sit inside a sentence) and its
// attributes from data-i18n-<attribute>.
export function render(node) {
	const args = parseArgs(node);
	for (const a of ATTRS) {
		const key = node.getAttribute('data-i18n-' + a);
		if (key)
			node.setAttribute(a, t(key, args));
	}
	const dur = node.getAttribute('data-i18n-seconds');
	if (dur)
		node.textContent = formatSeconds(parseInt(dur, 10));
	const key = node.getAttribute('data-i18n');
	if (!key)
		return;
	const slots = {};
	for (const c of node.children)
		if (c.hasAttribute('data-i18n-slot'))
			slots[c.getAttribute('data-i18n-slot')] = c;
	const parts = [];
	const text = template(key, args);
	const re = /\{(\w+)\}/g;
	let last = 0;
	let m;
	while ((m = re.exec(text)) !== null) {
		if (m.index > last)
			parts.push(text.slice(last, m.index));
		const name = m[1];
		if (slots[name])
			parts.push(slots[name]);
		else if (name in args)
			parts.push(argText(args[name]));
		else
			parts.push(m[0]);
		last = re.lastIndex;
	}
	if (last < text.length)
		parts.push(text.slice(last));
	node.replaceChildren(...parts);
}

function setArgs(node, args) {
	if (args && Object.keys(args).length)
		node.setAttribute('data-i18n-args', JSON.stringify(args));
	else
		node.removeAttribute('data-i18n-args');
}

// Gives the element the text of a message (a Msg) and keeps it in that
// message across a change of language. A plain string is put in as it is (a
// value such as a file name, or the server's own words), lang and dir left to
// the caller.
export function localize(node, m) {
	if (!(m instanceof Msg)) {
		node.removeAttribute('data-i18n');
		node.removeAttribute('data-i18n-args');
		node.textContent = m === null || m === undefined ? '' : String(m);
		return node;
	}
	node.setAttribute('data-i18n', m.key);
	// the arguments of the element's translated attributes stay
	const kept = ATTRS.some((a) => node.hasAttribute('data-i18n-' + a)) ? parseArgs(node) : {};
	setArgs(node, { ...kept, ...m.args });
	render(node);
	return node;
}

// Gives the element's attribute (aria-label, title, ...) the text of a message.
export function localizeAttr(node, attr, m) {
	if (!(m instanceof Msg)) {
		node.removeAttribute('data-i18n-' + attr);
		node.setAttribute(attr, String(m));
		return node;
	}
	node.setAttribute('data-i18n-' + attr, m.key);
	const args = { ...parseArgs(node), ...m.args };
	setArgs(node, args);
	node.setAttribute(attr, t(m.key, args));
	return node;
}

// Sets the document title to a message ("... · burnlink").
export function setTitle(m) {
	localize(document.querySelector('title'), m);
}

const SELECTOR = '[data-i18n],[data-i18n-seconds],' + ATTRS.map((a) => `[data-i18n-${a}]`).join(',');

// Renders every message of the page (and the title, in <head>).
function applyAll() {
	for (const node of document.querySelectorAll(SELECTOR))
		render(node);
	const root = document.documentElement;
	root.lang = lang;
	root.dir = messages._dir === 'rtl' ? 'rtl' : 'ltr';
}

/* Formatting in the page's language */

// "Sat, 23 Nov 2024, 14:05" in the reader's time zone.
export function formatDate(iso) {
	const d = new Date(iso);
	if (isNaN(d))
		return t('common.unknown');
	return new Intl.DateTimeFormat(locale, {
		weekday: 'short', day: 'numeric', month: 'short', year: 'numeric',
		hour: '2-digit', minute: '2-digit',
	}).format(d);
}

export function formatTime(iso) {
	const d = new Date(iso);
	if (isNaN(d))
		return t('common.unknown');
	return new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(d);
}

// "in 23 hours", "5 minutes ago".
export function formatRelative(iso) {
	const d = new Date(iso);
	if (isNaN(d))
		return '';
	const diff = (d.getTime() - Date.now()) / 1000;
	const abs = Math.abs(diff);
	const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
	if (abs < 60)
		return t(diff >= 0 ? 'time.inUnderAMinute' : 'time.justNow');
	if (abs < 3600)
		return rtf.format(Math.round(diff / 60), 'minute');
	if (abs < 86400 - 1800)
		return rtf.format(Math.round(diff / 3600), 'hour');
	return rtf.format(Math.round(diff / 86400), 'day');
}

// A duration in whole seconds, minutes, hours or days ("30 minutes").
export function formatSeconds(s) {
	let n = s;
	let unit = 'second';
	if (s >= 86400 && s % 86400 === 0) {
		n = s / 86400;
		unit = 'day';
	} else if (s >= 3600 && (s % 3600 === 0 || s >= 5400)) {
		n = Math.round(s / 3600);
		unit = 'hour';
	} else if (s >= 60) {
		n = Math.ceil(s / 60);
		unit = 'minute';
		if (n >= 60) {
			n = Math.round(s / 3600);
			unit = 'hour';
		}
	}
	return new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' }).format(n);
}

// Sizes in binary units: "512 B", "1.5 KiB", "2 MiB".
export function formatBytes(n) {
	const f = (v, digits) => new Intl.NumberFormat(locale, {
		minimumFractionDigits: digits === 2 ? 0 : digits, maximumFractionDigits: digits,
	}).format(v);
	if (n < 1024)
		return t('size.bytes', { n: f(n, 0) });
	if (n < 1024 * 1024)
		return t('size.kib', { n: f(n / 1024, n < 10240 ? 1 : 0) });
	return t('size.mib', { n: f(n / 1048576, 2) });
}

/* Choosing the language */

// The catalogue names a browser language tag may be served by, best first:
// "pt-BR" -> pt-BR, pt; "zh-TW" -> zh-Hant, zh; "zh-CN" -> zh-Hans, zh.
export function candidates(tag) {
	let loc;
	try {
		loc = new Intl.Locale(tag);
	} catch {
		return [];
	}
	const out = [];
	const base = loc.language;
	if (base === 'zh') {
		let script = loc.script;
		if (!script)
			script = ['TW', 'HK', 'MO'].includes(loc.region) ? 'Hant' : 'Hans';
		out.push(`zh-${script}`);
		if (loc.region)
			out.push(`zh-${loc.region}`);
	} else {
		if (loc.script && loc.region)
			out.push(`${base}-${loc.script}-${loc.region}`);
		if (loc.region)
			out.push(`${base}-${loc.region}`);
		if (loc.script)
			out.push(`${base}-${loc.script}`);
	}
	out.push(base);
	return out;
}

// The best offered language for the browser's list; null when none fits.
export function bestMatch(wanted, offered) {
	const have = new Map(offered.map((c) => [c.toLowerCase(), c]));
	for (const tag of wanted)
		for (const c of candidates(tag))
			if (have.has(c.toLowerCase()))
				return have.get(c.toLowerCase());
	// Same language, another region: a reader of "pt" can read "pt-BR".
	for (const tag of wanted) {
		const base = candidates(tag).pop();
		const hit = offered.find((c) => c.split('-')[0].toLowerCase() === base);
		if (hit)
			return hit;
	}
	return null;
}

export function offered() {
	const all = index.languages;
	const only = Array.isArray(index.offered) && index.offered.length
		? all.filter((c) => index.offered.includes(c)) : all;
	return only.length ? only : ['en'];
}

function storedChoice() {
	try {
		return localStorage.getItem(STORE);
	} catch {
		return null;
	}
}

function choose() {
	const list = offered();
	const mine = storedChoice();
	if (mine && list.includes(mine))
		return mine;
	return bestMatch(browserLanguages(), list)
		|| (list.includes(index.default) ? index.default : null)
		|| (list.includes('en') ? 'en' : list[0]);
}

async function getJSON(name) {
	try {
		const res = await fetch(new URL(name, BASE), { credentials: 'same-origin', referrerPolicy: 'no-referrer' });
		if (!res.ok)
			return null;
		const data = await res.json();
		return data && typeof data === 'object' ? data : null;
	} catch {
		return null;
	}
}

function browserLanguages() {
	return navigator.languages && navigator.languages.length
		? navigator.languages : [navigator.language || 'en'];
}

async function load(code) {
	const cat = await getJSON(`${code}.json`);
	if (!cat)
		return false;
	lang = code;
	messages = cat;
	// Dates and numbers as the reader is used to them: an English page read
	// with en-GB in the browser writes "25 Nov", not "Nov 25".
	locale = browserLanguages().find((tag) => candidates(tag).includes(code)) || code;
	return true;
}

export function currentLanguage() {
	return lang;
}

// The locale dates and numbers are written in (lang, or the reader's variant of it).
export function currentLocale() {
	return locale;
}

// Calls fn(language) after each change of language (the page re-renders
// itself first); for text that is not in the page, such as a canvas.
export function onLanguageChange(fn) {
	listeners.push(fn);
}

// The language the reader picked: loaded, applied, remembered.
export async function setLanguage(code) {
	if (!offered().includes(code) || !await load(code))
		return false;
	try {
		localStorage.setItem(STORE, code);
	} catch {
		// private mode: the choice lasts this page only
	}
	applyAll();
	fillMenu();
	for (const fn of listeners)
		fn(lang);
	return true;
}

/* The language menu (header of every page) */

function nativeName(code) {
	try {
		const name = new Intl.DisplayNames([code], { type: 'language' }).of(code);
		return name.charAt(0).toLocaleUpperCase(code) + name.slice(1);
	} catch {
		return code;
	}
}

function fillMenu() {
	const select = document.getElementById('language');
	if (!select)
		return;
	const list = offered();
	select.replaceChildren(...list.map((code) => {
		const o = document.createElement('option');
		o.value = code;
		o.lang = code;
		o.textContent = nativeName(code);
		o.selected = code === lang;
		return o;
	}));
	select.closest('.language-menu').hidden = list.length < 2;
}

function startMenu() {
	const select = document.getElementById('language');
	if (!select)
		return;
	fillMenu();
	select.addEventListener('change', async () => {
		const want = select.value;
		if (!await setLanguage(want))
			select.value = lang;
	});
}

/* Start */

async function start() {
	try {
		const idx = await getJSON('index.json');
		if (idx && Array.isArray(idx.languages) && idx.languages.length)
			index = { languages: idx.languages, default: idx.default || 'en', offered: idx.offered || null };
		const code = choose();
		if (!await load(code) && code !== 'en')
			await load('en');
		applyAll();
		startMenu();
	} finally {
		// Never leave the page invisible, whatever failed.
		document.documentElement.classList.remove('i18n-pending');
	}
}

await start();
