// notify.js: notifications on the pages (docs/NOTIFY.md): "Notify me" on the
// create form, the dashboard's address and webhooks, each secret's last event,
// and the links of the account mails (verify the address, reset the password).
// Every word is a key of the catalogues ("notify.*", www/assets/i18n/).

import { el, msg, setMessage, announce, copyText, describeError } from './common.js';
import { value, date, rel } from './i18n.js';

// The catalogue keys of the events and delivery states (www/assets/i18n/en.json).
const EVENTS = {
	'secret.viewed': 'notify.evViewed',
	'secret.exhausted': 'notify.evExhausted',
	'secret.burned': 'notify.evBurned',
	'secret.expired': 'notify.evExpired',
	'webhook.test': 'notify.evTest',
};
const LAST = {
	'secret.viewed': 'notify.lastViewed',
	'secret.exhausted': 'notify.lastExhausted',
	'secret.burned': 'notify.lastBurned',
	'secret.expired': 'notify.lastExpired',
};
const STATES = { pending: 'notify.pending', sent: 'notify.sent', dropped: 'notify.dropped' };

// An event's name (its type itself when the catalogue has none).
const eventName = (type) => (EVENTS[type] ? msg(EVENTS[type]) : value(type));

/* The create form */

// Renders "Notify me" into box (for a signed-in sender).
export function notifyField(box) {
	box.replaceChildren(el('fieldset', { class: 'notify' },
		el('legend', { text: msg('notify.legend') }),
		...['email', 'webhook'].map((w) => {
			const id = 'notify-' + w;
			return el('div', { class: 'check' },
				el('input', { type: 'checkbox', id, name: 'notify', value: w, 'aria-describedby': 'notify-hint' }),
				el('label', { for: id, text: msg(w === 'email' ? 'notify.byEmail' : 'notify.byWebhook') }));
		}),
		el('p', { id: 'notify-hint', class: 'hint', text: msg('notify.hint') })));
	box.hidden = false;
}

// The create field notify: what is ticked (none: undefined).
export function notifyChoice(box) {
	if (!box || box.hidden)
		return undefined;
	const on = [...box.querySelectorAll('input[name=notify]:checked')].map((i) => i.value);
	return on.length ? on : undefined;
}

/* The dashboard */

// A secret's last event, for its row (null when it has none).
export function lastEventText(s) {
	if (!s.lastEvent)
		return null;
	const key = LAST[s.lastEvent.type];
	return key ? msg(key, { when: rel(s.lastEvent.at) }) : value(s.lastEvent.type);
}

function field(id, label, input) {
	return el('div', { class: 'field' }, el('label', { for: id, text: label }), input);
}

// The notifications card: the address and the webhooks. call, fail: dashboard.js's;
// s: the session (signed in by the web server: the identity provider gives the address).
export async function notifyCard(card, call, fail, s = {}) {
	const box = el('div', { class: 'message', role: 'alert', tabindex: '-1', hidden: true });
	const state = el('p', {});
	const email = el('input', { type: 'email', id: 'notify-address', autocomplete: 'email', spellcheck: 'false' });
	// changing the address needs the password (docs/API.md): a stolen session alone cannot
	const addrPw = el('input', { type: 'password', id: 'address-password', autocomplete: 'current-password' });
	const setBtn = el('button', { type: 'submit', class: 'button small', text: msg('notify.setAddress') });
	const addr = el('form', { id: 'address-form', novalidate: true },
		field('notify-address', msg('notify.address'), email),
		field('address-password', msg('dash.currentPassword'), el('div', { class: 'with-button' }, addrPw, setBtn)));
	const url = el('input', { type: 'url', id: 'webhook-url', spellcheck: 'false', autocomplete: 'off' });
	const addBtn = el('button', { type: 'submit', class: 'button primary small', text: msg('notify.addWebhook') });
	const hookForm = el('form', { id: 'webhook-form', novalidate: true },
		field('webhook-url', msg('notify.webhookUrl'), el('div', { class: 'with-button' }, url, addBtn)));
	const secretBox = el('div', { class: 'new-key message ok', hidden: true });
	const list = el('ul', { id: 'webhooks-list', class: 'webhooks' });
	// the provider's address is recorded at each sign-in (docs/ACCOUNTS.md); this form needs a password
	const fromProvider = s.via === 'webServer';
	addr.hidden = fromProvider;
	const provider = el('p', { id: 'address-provider', class: 'hint', text: msg('notify.fromProvider'), hidden: !fromProvider });
	card.replaceChildren(el('h2', { id: 'notify-title', text: msg('notify.title') }), state, provider, addr,
		el('h3', { text: msg('notify.webhooks') }), hookForm, secretBox, list, box);
	card.setAttribute('aria-labelledby', 'notify-title');

	async function loadAddress() {
		const r = await call('GET', 'email');
		if (!r.ok)
			return fail(box, r);
		const d = r.data;
		state.replaceChildren(...(!d.email ? [msg('notify.noAddress')] :
			[msg('notify.addressIs', { email: d.email }), ' ',
				msg(d.verified ? 'notify.verified' : 'notify.unverified')]).map((m) =>
			typeof m === 'string' ? m : el('span', { text: m })));
		if (d.email && !email.value)
			email.value = d.email;
	}

	async function loadHooks() {
		const r = await call('GET', 'webhooks');
		if (!r.ok)
			return fail(box, r);
		list.replaceChildren(...r.data.webhooks.map((w) => {
			const out = el('div', { class: 'deliveries', hidden: true });
			const show = el('button', { type: 'button', class: 'button small', text: msg('notify.deliveries'), 'aria-expanded': 'false' });
			show.addEventListener('click', async () => {
				if (!out.hidden) {
					out.hidden = true;
					return show.setAttribute('aria-expanded', 'false');
				}
				const d = await call('GET', `webhooks/${w.id}`);
				if (!d.ok)
					return fail(box, d);
				out.replaceChildren(d.data.deliveries.length === 0 ? el('p', { class: 'hint', text: msg('notify.noDeliveries') }) :
					el('ul', {}, ...d.data.deliveries.map((x) => el('li', {},
						value(date(x.occurredAt)), ' · ', eventName(x.type), ' · ', msg(STATES[x.state]),
						x.status !== null ? ' · ' : null, x.status !== null ? msg('notify.httpStatus', { status: x.status }) : null,
						x.error ? ' · ' : null, x.error ? el('span', { lang: 'en', text: x.error }) : null))));
				out.hidden = false;
				show.setAttribute('aria-expanded', 'true');
			});
			const test = el('button', { type: 'button', class: 'button small', text: msg('notify.test') });
			test.addEventListener('click', async () => {
				const t = await call('POST', `webhooks/${w.id}`);
				if (!t.ok)
					return fail(box, t);
				setMessage(box, 'ok', msg('notify.testQueued'), '');
				announce(msg('notify.testQueued'));
			});
			const del = el('button', { type: 'button', class: 'button small danger', text: msg('notify.delete') });
			del.addEventListener('click', async () => {
				if (!window.confirm(String(msg('notify.deleteQuestion', { url: w.url }))))
					return;
				const t = await call('DELETE', `webhooks/${w.id}`);
				if (!t.ok)
					return fail(box, t);
				announce(msg('notify.deleted'));
				await loadHooks();
			});
			const events = [];
			for (const e of w.events)
				events.push(events.length ? ', ' : null, eventName(e));
			return el('li', { 'data-id': String(w.id) },
				el('code', { text: w.url }), ' ',
				el('span', { class: 'sub' }, ...events,
					w.lastStatus !== null ? ' · ' : null,
					w.lastStatus !== null ? msg('notify.httpStatus', { status: w.lastStatus }) : null),
				el('div', { class: 'actions' }, show, test, del), out);
		}));
	}

	addr.addEventListener('submit', async (e) => {
		e.preventDefault();
		setBtn.disabled = true;
		const r = await call('POST', 'email', { email: email.value.trim(), currentPassword: addrPw.value });
		setBtn.disabled = false;
		if (!r.ok)
			return fail(box, r);
		addrPw.value = '';
		setMessage(box, 'ok', msg('notify.addressSent'), '');
		box.focus();
		await loadAddress();
	});
	hookForm.addEventListener('submit', async (e) => {
		e.preventDefault();
		addBtn.disabled = true;
		const r = await call('POST', 'webhooks', { url: url.value.trim() });
		addBtn.disabled = false;
		secretBox.hidden = true;
		if (!r.ok)
			return fail(box, r);
		url.value = '';
		const value = el('input', { type: 'text', class: 'mono', readonly: true, value: r.data.secret, 'aria-label': msg('notify.secretOnce') });
		const copy = el('button', { type: 'button', class: 'button small', text: msg('common.copy') });
		copy.addEventListener('click', () => copyText(value.value, copy, value));
		secretBox.replaceChildren(el('p', { text: msg('notify.secretOnce') }), el('div', { class: 'with-button' }, value, copy));
		secretBox.hidden = false;
		value.focus();
		value.select();
		announce(msg('notify.secretOnce'));
		await loadHooks();
	});
	await Promise.all([loadAddress(), loadHooks()]);
	card.hidden = false;
}

/* The links of the account mails, and "forgot your password" */

// The token of a mail link in the address (#verify=… or #reset=…), or null.
export function mailLink() {
	const m = /^#(verify|reset)=([A-Za-z0-9_-]{43})$/.exec(window.location.hash);
	return m ? { kind: m[1], token: m[2] } : null;
}

// Says in note how a mail link's POST /token went: done, a link that is
// invalid, used or too old (INVALID_TOKEN only), or any other failure (too
// many requests, the network, the server) as describeError() says it.
function linkOutcome(note, r, done) {
	if (r.ok)
		return setMessage(note, 'ok', msg(done), '');
	if (r.data.code === 'INVALID_TOKEN')
		return setMessage(note, 'error', msg('notify.badLink'), '');
	const d = describeError(r);
	setMessage(note, 'error', d.title, d.detail);
}

// Renders into box what a mail link needs, a press of "Confirm address"
// (verify) or the new-password form (reset), and resolves when it is done;
// nothing is sent before the press, so a mail scanner that opens the link
// and runs its scripts uses nothing (docs/PAGE.md). Says the outcome in note.
export async function useMailLink(link, call, box, note) {
	history.replaceState(null, '', window.location.pathname + window.location.search);
	if (link.kind === 'verify') {
		const confirm = el('button', { type: 'submit', class: 'button primary', text: msg('notify.verifyButton') });
		const form = el('form', { id: 'verify-form', novalidate: true }, confirm);
		box.replaceChildren(el('h2', { text: msg('notify.verifyTitle') }), form);
		box.hidden = false;
		confirm.focus();
		await new Promise((resolve) => form.addEventListener('submit', async (e) => {
			e.preventDefault();
			confirm.disabled = true;
			const r = await call('POST', 'token', { token: link.token });
			confirm.disabled = false;
			linkOutcome(note, r, 'notify.verifyDone');
			// the link may still work after too many requests, the network or the server
			if (!r.ok && r.data.code !== 'INVALID_TOKEN')
				return;
			box.hidden = true;
			resolve();
		}));
		return;
	}
	const pw = el('input', { type: 'password', id: 'reset-password', autocomplete: 'new-password', minlength: '8', maxlength: '256' });
	const btn = el('button', { type: 'submit', class: 'button primary', text: msg('notify.resetButton') });
	const form = el('form', { id: 'reset-form', novalidate: true }, field('reset-password', msg('dash.newPassword'), pw), btn);
	box.replaceChildren(el('h2', { text: msg('notify.resetTitle') }), form);
	box.hidden = false;
	pw.focus();
	await new Promise((resolve) => form.addEventListener('submit', async (e) => {
		e.preventDefault();
		btn.disabled = true;
		const r = await call('POST', 'token', { token: link.token, password: pw.value });
		btn.disabled = false;
		if (!r.ok && r.data.code === 'INVALID_PASSWORD')
			return setMessage(note, 'error', msg('error.password.title', { min: 8, max: 256 }), '');
		linkOutcome(note, r, 'notify.resetDone');
		// the link may still work after too many requests, the network or the server
		if (!r.ok && r.data.code !== 'INVALID_TOKEN')
			return;
		box.hidden = true;
		resolve();
	}));
}

// "Forgot your password?" under the sign-in form.
export function forgotPassword(box, call, note) {
	const email = el('input', { type: 'email', id: 'forgot-email', autocomplete: 'username', spellcheck: 'false' });
	const btn = el('button', { type: 'submit', class: 'button small', text: msg('notify.forgotSend') });
	const form = el('form', { id: 'forgot-form', novalidate: true }, field('forgot-email', msg('dash.email'),
		el('div', { class: 'with-button' }, email, btn)));
	box.replaceChildren(el('details', {}, el('summary', { text: msg('notify.forgot') }), form));
	box.hidden = false;
	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		btn.disabled = true;
		const r = await call('POST', 'token', { email: email.value.trim() });
		btn.disabled = false;
		if (r.ok)
			setMessage(note, 'ok', msg('notify.forgotSent'), '');
		else if (r.data.code === 'INVALID_EMAIL')
			setMessage(note, 'error', msg('error.email.title'), msg('error.email.detail'));
		else {
			// no link is involved here: too many requests, the network, the server
			const d = describeError(r);
			setMessage(note, 'error', d.title, d.detail);
		}
		note.focus();
	});
}
