// notify.js: notifications on the pages (docs/NOTIFY.md): "Notify me" on the
// create form, the dashboard's address and webhooks, each secret's last event,
// and the links of the account mails (verify the address, reset the password).
// Every word these parts show is in T below, in one place.

import { el, formatDate, formatRelative, setMessage, announce, copyText } from './common.js';

export const T = {
	notifyLegend: 'Notify me',
	notifyEmail: 'By e-mail',
	notifyWebhook: 'By my webhooks',
	notifyHint: 'When it is viewed, burned, or expires unread. Nothing of the secret is sent.',
	events: {
		'secret.viewed': 'Viewed',
		'secret.exhausted': 'Viewed for the last time',
		'secret.burned': 'Burned',
		'secret.expired': 'Expired unread',
		'webhook.test': 'Test',
	},
	lastEvent: (type, at) => `${T.events[type] || type} ${formatRelative(at)}`,
	cardTitle: 'Notifications',
	address: 'E-mail address for notifications',
	verified: 'verified',
	unverified: 'not verified yet: open the link we sent',
	noAddress: 'none',
	setAddress: 'Send verification link',
	addressSent: 'Check your mail: the link in it confirms the address.',
	webhooks: 'Webhooks',
	webhookUrl: 'Webhook URL (https)',
	addWebhook: 'Add webhook',
	secretOnce: 'The signing secret of this webhook. Copy it now: it is not shown again.',
	copy: 'Copy',
	test: 'Send test',
	testQueued: 'A test delivery is queued; it is sent within a minute.',
	deliveries: 'Last deliveries',
	noDeliveries: 'No deliveries yet.',
	remove: 'Delete',
	removeQuestion: (url) => `Delete the webhook ${url}?`,
	removed: 'The webhook was deleted.',
	state: { pending: 'to retry', sent: 'sent', dropped: 'dropped' },
	forgot: 'Forgot your password?',
	forgotSend: 'Mail me a reset link',
	forgotSent: 'If an account has this address verified, a reset link is on its way.',
	resetTitle: 'Choose a new password',
	resetButton: 'Set password',
	resetDone: 'Your password was changed and every session ended. Sign in with it.',
	verifyDone: 'Your e-mail address is verified.',
	badLink: 'This link is invalid, used or older than an hour. Ask for a new one.',
	emailLabel: 'E-mail address',
	passwordLabel: 'New password (8 to 256 characters)',
};

/* The create form */

// Renders "Notify me" into box (for a signed-in sender).
export function notifyField(box) {
	box.replaceChildren(el('fieldset', { class: 'notify' },
		el('legend', { text: T.notifyLegend }),
		...['email', 'webhook'].map((w) => el('div', { class: 'check' },
			el('input', { type: 'checkbox', id: `notify-${w}`, name: 'notify', value: w, 'aria-describedby': 'notify-hint' }),
			el('label', { for: `notify-${w}`, text: w === 'email' ? T.notifyEmail : T.notifyWebhook }))),
		el('p', { id: 'notify-hint', class: 'hint', text: T.notifyHint })));
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

// A secret's last event, for its row ("" when it has none).
export function lastEventText(s) {
	return s.lastEvent ? T.lastEvent(s.lastEvent.type, s.lastEvent.at) : '';
}

function field(id, label, input) {
	return el('div', { class: 'field' }, el('label', { for: id, text: label }), input);
}

// The notifications card: the address and the webhooks. call, fail: dashboard.js's.
export async function notifyCard(card, call, fail) {
	const msg = el('div', { class: 'message', role: 'alert', tabindex: '-1', hidden: true });
	const state = el('p', {});
	const email = el('input', { type: 'email', id: 'notify-address', autocomplete: 'email', spellcheck: 'false' });
	const setBtn = el('button', { type: 'submit', class: 'button small', text: T.setAddress });
	const addr = el('form', { id: 'address-form', novalidate: true },
		field('notify-address', T.address, el('div', { class: 'with-button' }, email, setBtn)));
	const url = el('input', { type: 'url', id: 'webhook-url', placeholder: 'https://', spellcheck: 'false', autocomplete: 'off' });
	const addBtn = el('button', { type: 'submit', class: 'button primary small', text: T.addWebhook });
	const hookForm = el('form', { id: 'webhook-form', novalidate: true },
		field('webhook-url', T.webhookUrl, el('div', { class: 'with-button' }, url, addBtn)));
	const secretBox = el('div', { class: 'new-key message ok', hidden: true });
	const list = el('ul', { id: 'webhooks-list', class: 'webhooks' });
	card.replaceChildren(el('h2', { id: 'notify-title', text: T.cardTitle }), state, addr,
		el('h3', { text: T.webhooks }), hookForm, secretBox, list, msg);
	card.setAttribute('aria-labelledby', 'notify-title');

	async function loadAddress() {
		const r = await call('GET', 'email');
		if (!r.ok)
			return fail(msg, r);
		state.textContent = `${T.address}: ${r.data.email || T.noAddress}` +
			(r.data.email ? ` (${r.data.verified ? T.verified : T.unverified})` : '');
		if (r.data.email && !email.value)
			email.value = r.data.email;
	}

	async function loadHooks() {
		const r = await call('GET', 'webhooks');
		if (!r.ok)
			return fail(msg, r);
		list.replaceChildren(...r.data.webhooks.map((w) => {
			const out = el('div', { class: 'deliveries', hidden: true });
			const show = el('button', { type: 'button', class: 'button small', text: T.deliveries, 'aria-expanded': 'false' });
			show.addEventListener('click', async () => {
				if (!out.hidden) {
					out.hidden = true;
					return show.setAttribute('aria-expanded', 'false');
				}
				const d = await call('GET', `webhooks/${w.id}`);
				if (!d.ok)
					return fail(msg, d);
				out.replaceChildren(d.data.deliveries.length === 0 ? el('p', { class: 'hint', text: T.noDeliveries }) :
					el('ul', {}, ...d.data.deliveries.map((x) => el('li', {
						text: `${formatDate(x.occurredAt)} · ${T.events[x.type] || x.type} · ${T.state[x.state]}` +
							(x.status !== null ? ` · HTTP ${x.status}` : '') + (x.error ? ` · ${x.error}` : ''),
					}))));
				out.hidden = false;
				show.setAttribute('aria-expanded', 'true');
			});
			const test = el('button', { type: 'button', class: 'button small', text: T.test });
			test.addEventListener('click', async () => {
				const t = await call('POST', `webhooks/${w.id}`);
				if (!t.ok)
					return fail(msg, t);
				setMessage(msg, 'ok', T.testQueued, '');
				announce(T.testQueued);
			});
			const del = el('button', { type: 'button', class: 'button small danger', text: T.remove });
			del.addEventListener('click', async () => {
				if (!window.confirm(T.removeQuestion(w.url)))
					return;
				const t = await call('DELETE', `webhooks/${w.id}`);
				if (!t.ok)
					return fail(msg, t);
				announce(T.removed);
				await loadHooks();
			});
			return el('li', { 'data-id': String(w.id) },
				el('code', { text: w.url }), ' ',
				el('span', { class: 'sub', text: w.events.map((e) => T.events[e] || e).join(', ') +
					(w.lastStatus !== null ? ` · HTTP ${w.lastStatus}` : '') }),
				el('div', { class: 'actions' }, show, test, del), out);
		}));
	}

	addr.addEventListener('submit', async (e) => {
		e.preventDefault();
		setBtn.disabled = true;
		const r = await call('POST', 'email', { email: email.value.trim() });
		setBtn.disabled = false;
		if (!r.ok)
			return fail(msg, r);
		setMessage(msg, 'ok', T.addressSent, '');
		msg.focus();
		await loadAddress();
	});
	hookForm.addEventListener('submit', async (e) => {
		e.preventDefault();
		addBtn.disabled = true;
		const r = await call('POST', 'webhooks', { url: url.value.trim() });
		addBtn.disabled = false;
		secretBox.hidden = true;
		if (!r.ok)
			return fail(msg, r);
		url.value = '';
		const value = el('input', { type: 'text', class: 'mono', readonly: true, value: r.data.secret, 'aria-label': T.secretOnce });
		const copy = el('button', { type: 'button', class: 'button small', text: T.copy });
		copy.addEventListener('click', () => copyText(value.value, copy, value));
		secretBox.replaceChildren(el('p', { text: T.secretOnce }), el('div', { class: 'with-button' }, value, copy));
		secretBox.hidden = false;
		value.focus();
		value.select();
		announce(T.secretOnce);
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

// Uses a verify link at once; for a reset link, renders the new-password form
// into box and resolves when it is done. Says the outcome in msg.
export async function useMailLink(link, call, box, msg) {
	history.replaceState(null, '', window.location.pathname + window.location.search);
	if (link.kind === 'verify') {
		const r = await call('POST', 'token', { token: link.token });
		setMessage(msg, r.ok ? 'ok' : 'error', r.ok ? T.verifyDone : T.badLink, '');
		return;
	}
	const pw = el('input', { type: 'password', id: 'reset-password', autocomplete: 'new-password', minlength: '8', maxlength: '256' });
	const btn = el('button', { type: 'submit', class: 'button primary', text: T.resetButton });
	const form = el('form', { id: 'reset-form', novalidate: true }, field('reset-password', T.passwordLabel, pw), btn);
	box.replaceChildren(el('h2', { text: T.resetTitle }), form);
	box.hidden = false;
	pw.focus();
	await new Promise((resolve) => form.addEventListener('submit', async (e) => {
		e.preventDefault();
		btn.disabled = true;
		const r = await call('POST', 'token', { token: link.token, password: pw.value });
		btn.disabled = false;
		if (!r.ok && r.data.code === 'INVALID_PASSWORD')
			return setMessage(msg, 'error', T.passwordLabel, '');
		box.hidden = true;
		setMessage(msg, r.ok ? 'ok' : 'error', r.ok ? T.resetDone : T.badLink, '');
		resolve();
	}));
}

// "Forgot your password?" under the sign-in form.
export function forgotPassword(box, call, msg) {
	const email = el('input', { type: 'email', id: 'forgot-email', autocomplete: 'username', spellcheck: 'false' });
	const btn = el('button', { type: 'submit', class: 'button small', text: T.forgotSend });
	const form = el('form', { id: 'forgot-form', novalidate: true }, field('forgot-email', T.emailLabel,
		el('div', { class: 'with-button' }, email, btn)));
	box.replaceChildren(el('details', {}, el('summary', { text: T.forgot }), form));
	box.hidden = false;
	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		btn.disabled = true;
		const r = await call('POST', 'token', { email: email.value.trim() });
		btn.disabled = false;
		if (r.ok)
			setMessage(msg, 'ok', T.forgotSent, '');
		else
			setMessage(msg, 'error', r.data.code === 'INVALID_EMAIL' ? T.emailLabel : (r.data.hint || r.data.error || ''), '');
		msg.focus();
	});
}
