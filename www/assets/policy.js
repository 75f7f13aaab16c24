// policy.js: what this server allows and how it looks, from GET api/config
// (docs/API.md): the create page's expiry and views choices, and on the pages that load it
// the operator's branding (name, accent colour, logo, footer text, imprint
// link). Without an answer the page keeps its own choices, those of docs/API.md.
// Loaded by the create page and the dashboard; not by the reveal and receipt
// pages, which send no API request before the key in their address is checked.

import { siteRoot, msg, localize } from './common.js';
import { seconds, value } from './i18n.js';

const $ = (id) => document.getElementById(id);

// The fields as the page came, to tell what a person changed before the answer.
const untouched = { ttl: $('ttl')?.value, views: $('views')?.value };

// The expiry select offers the server's choices, its default selected. An
// option the page has already (with its own wording) is kept as it is.
function applyExpiry(ttl) {
	const select = $('ttl');
	if (!select || !Array.isArray(ttl.choices) || ttl.choices.length === 0)
		return;
	const have = new Map([...select.options].map((o) => [Number(o.value), o]));
	// a choice the person made before the answer came stays, if still offered
	const picked = select.value !== untouched.ttl ? Number(select.value) : null;
	const options = ttl.choices.map((s) => {
		let o = have.get(s);
		if (!o) {
			// "30 minutes", "1 hour", "7 days", in the page's language
			o = new Option('', String(s));
			localize(o, value(seconds(s)));
		}
		o.defaultSelected = s === ttl.default;
		return o;
	});
	select.replaceChildren(...options);
	select.value = String(picked !== null && ttl.choices.includes(picked) ? picked :
		ttl.choices.includes(ttl.default) ? ttl.default : ttl.choices[0]);
}

// The views field takes the server's bounds and default; unlimited views are
// offered only when allowed; a forced value is shown and cannot be changed.
function applyViews(v) {
	const views = $('views');
	const unlimited = $('unlimited');
	if (!views)
		return;
	views.min = String(v.min);
	views.max = String(v.max);
	const typed = views.value !== untouched.views;
	views.defaultValue = String(v.default);
	if (!typed || v.forced)
		views.value = String(v.default);
	const hint = $('views-hint');
	if (hint)
		localize(hint, v.forced ? msg('create.viewsForced', { count: v.max }) : msg('create.viewsHint', { min: v.min, max: v.max }));
	if (v.forced)
		views.readOnly = true;
	if (unlimited && !v.unlimited) {
		unlimited.checked = unlimited.defaultChecked = false;
		views.disabled = false;
		unlimited.closest('.check').hidden = true;
	}
}

// A required passphrase: the field says so; no files: the file field is gone.
function applyContent(limits) {
	const pass = $('passphrase');
	if (pass && limits.passphrase.required) {
		pass.required = true;
		pass.minLength = limits.passphrase.min;
		const optional = document.querySelector('label[for="passphrase"] .hint');
		if (optional)
			optional.hidden = true;
	}
	const drop = $('dropzone');
	if (drop && !limits.files.allowed)
		drop.closest('.field').hidden = true;
}

// The operator's name, colour, logo, footer text and imprint link.
function applyBranding(b) {
	if (b.siteName) {
		for (const s of document.querySelectorAll('.site-header .brand span'))
			s.textContent = b.siteName;
		document.title = document.title.replace(/^burnlink\b/, b.siteName);
	}
	if (b.accentColor) {
		const root = document.documentElement.style;
		root.setProperty('--accent', b.accentColor);
		root.setProperty('--accent-hover', `color-mix(in srgb, ${b.accentColor} 82%, black)`);
	}
	if (b.logoUrl) {
		for (const svg of document.querySelectorAll('.site-header .brand svg')) {
			const img = document.createElement('img');
			img.src = b.logoUrl;
			img.alt = '';
			img.className = 'brand-logo';
			svg.replaceWith(img);
		}
	}
	const footer = document.querySelector('.site-footer');
	if (footer && (b.footerText || b.imprintUrl)) {
		const p = document.createElement('p');
		p.className = 'operator';
		if (b.footerText)
			p.append(b.footerText);
		if (b.imprintUrl) {
			const a = document.createElement('a');
			a.href = b.imprintUrl;
			localize(a, msg('common.imprint'));
			a.rel = 'noopener noreferrer';
			p.append(b.footerText ? ' ' : '', a);
		}
		footer.append(p);
	}
}

// The server's policy, or null when it could not be had.
export async function loadPolicy() {
	try {
		const res = await fetch(siteRoot() + 'api/config', { credentials: 'same-origin' });
		if (!res.ok)
			return null;
		return await res.json();
	} catch {
		return null;
	}
}

export const policy = loadPolicy().then((p) => {
	if (p && p.limits) {
		applyExpiry(p.limits.ttl);
		applyViews(p.limits.maxViews);
		applyContent(p.limits);
	}
	if (p && p.branding)
		applyBranding(p.branding);
	document.documentElement.dataset.policy = p ? 'loaded' : 'none';
	return p;
});
