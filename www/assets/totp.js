// totp.js: the dashboard's "Two-step sign-in" card (docs/ACCOUNTS.md, "A
// second factor"): set up with the current password, a QR code of the key and
// the key as text, turned on by a code of the app; the recovery codes shown
// once; turned off with a code. Not for sessions the web server signed in
// (their identity provider asks for the second factor).

import { el, announce, setMessage, msg, copyText, drawQR } from './common.js';

function field(id, label, input) {
	return el('div', { class: 'field' }, el('label', { for: id, text: label }), input);
}

function codeInput(id) {
	return el('input', { type: 'text', id, inputmode: 'numeric', autocomplete: 'one-time-code',
		spellcheck: 'false', autocapitalize: 'off', dir: 'ltr', maxlength: '16', required: true });
}

// Fills card with the state s ({enabled, recoveryCodesLeft}); call, fail: dashboard.js's.
function render(card, call, fail, s, shownCodes) {
	const box = el('div', { id: 'totp-error', class: 'message', role: 'alert', tabindex: '-1', hidden: true });
	const title = el('h2', { id: 'totp-title', text: msg('totp.title') });
	const state = el('p', { id: 'totp-state', text: s.enabled ? msg('totp.onLede', { count: s.recoveryCodesLeft }) : msg('totp.offLede') });
	card.setAttribute('aria-labelledby', 'totp-title');
	const parts = [title, state];
	if (shownCodes) {
		const list = el('ul', { id: 'totp-recovery', class: 'recovery-codes mono', dir: 'ltr', translate: 'no' },
			...shownCodes.map((c) => el('li', { text: c })));
		const copy = el('button', { type: 'button', id: 'totp-copy', class: 'button small', text: msg('common.copy') });
		copy.addEventListener('click', () => copyText(shownCodes.join('\n'), copy, list));
		parts.push(el('div', { class: 'message ok' }, el('p', { text: msg('totp.recoveryLede') }), list, copy));
	}
	if (s.enabled) {
		const code = codeInput('totp-off-code');
		const button = el('button', { type: 'submit', id: 'totp-off-button', class: 'button small danger', text: msg('totp.turnOff') });
		const form = el('form', { id: 'totp-off', novalidate: true },
			field('totp-off-code', msg('totp.signinCode'), el('div', { class: 'with-button' }, code, button)));
		form.addEventListener('submit', async (e) => {
			e.preventDefault();
			button.disabled = true;
			const r = await call('DELETE', 'totp', { code: code.value.trim() });
			button.disabled = false;
			if (!r.ok)
				return fail(box, r);
			announce(msg('totp.offLede'));
			render(card, call, fail, { enabled: false, recoveryCodesLeft: 0 });
			card.querySelector('#totp-password')?.focus();
		});
		parts.push(form);
	} else {
		const pw = el('input', { type: 'password', id: 'totp-password', autocomplete: 'current-password', required: true });
		const start = el('button', { type: 'submit', id: 'totp-start-button', class: 'button small', text: msg('totp.start') });
		const form = el('form', { id: 'totp-start', novalidate: true },
			field('totp-password', msg('dash.currentPassword'), el('div', { class: 'with-button' }, pw, start)));
		const enrol = el('div', { id: 'totp-enrol', hidden: true });
		form.addEventListener('submit', async (e) => {
			e.preventDefault();
			start.disabled = true;
			const r = await call('POST', 'totp', { password: pw.value });
			start.disabled = false;
			if (!r.ok)
				return fail(box, r);
			setMessage(box, '', '');
			pw.value = '';
			form.hidden = true;
			showEnrolment(card, enrol, call, fail, box, r.data);
		});
		parts.push(form, enrol);
	}
	parts.push(box);
	card.replaceChildren(...parts);
	card.hidden = false;
}

// The key as a QR code and as text, and the code that turns it on.
function showEnrolment(card, enrol, call, fail, box, data) {
	const canvas = el('canvas', { id: 'totp-qr', width: '240', height: '240', role: 'img', 'aria-label': msg('totp.qrLabel') });
	const fig = el('figure', { class: 'qr' }, canvas);
	const secret = el('input', { type: 'text', id: 'totp-secret', class: 'mono', readonly: true, spellcheck: 'false',
		autocomplete: 'off', dir: 'ltr', value: data.secret.replace(/(.{4})/g, '$1 ').trim() });
	const code = codeInput('totp-code');
	const button = el('button', { type: 'submit', id: 'totp-confirm-button', class: 'button small primary', text: msg('totp.confirm') });
	const form = el('form', { id: 'totp-confirm', novalidate: true },
		field('totp-code', msg('totp.code'), el('div', { class: 'with-button' }, code, button)));
	enrol.replaceChildren(el('p', { text: msg('totp.scan') }), fig, field('totp-secret', msg('totp.secretLabel'), secret), form);
	fig.hidden = !drawQR(canvas, data.otpauthUrl, 240);
	enrol.hidden = false;
	code.focus();
	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		button.disabled = true;
		const r = await call('POST', 'totp', { code: code.value.trim() });
		button.disabled = false;
		if (!r.ok)
			return fail(box, r);
		render(card, call, fail, { enabled: true, recoveryCodesLeft: r.data.recoveryCodes.length }, r.data.recoveryCodes);
		announce(msg('totp.onLede', { count: r.data.recoveryCodes.length }));
		card.querySelector('#totp-recovery').setAttribute('tabindex', '-1');
		card.querySelector('#totp-recovery').focus();
	});
}

// The card for the session s: hidden for a session the web server signed in.
export async function totpCard(card, call, fail, s) {
	card.hidden = true;
	if (s.via === 'webServer')
		return;
	const r = await call('GET', 'totp');
	if (!r.ok)
		return;
	render(card, call, fail, r.data);
}
