// dashboard.js: the account dashboard: sign-in and sign-up, API keys (create,
// shown once; list; revoke), "my secrets" (receipts only; burn), usage against
// the account limits, password change and sign-out.

import {
	$, el, showView, announce, setMessage, copyText, describeError, formatDate, formatRelative,
} from './common.js';
import { call, session, showAccount } from './account.js';
import { notifyCard, lastEventText, mailLink, useMailLink, forgotPassword } from './notify.js';

// Plain words for the account error codes; the rest as the other pages say them.
function explain(res) {
	const d = res.data || {};
	switch (d.code) {
	case 'INVALID_CREDENTIALS':
		return { title: 'The e-mail address or the password is wrong.', detail: 'Check both and try again.' };
	case 'NOT_SIGNED_IN':
		return { title: 'You are signed out.', detail: 'Your session ended; sign in again.' };
	case 'CSRF_REJECTED':
		return { title: 'The request was refused.', detail: 'Reload the page and try again.' };
	case 'SIGNUP_CLOSED':
		return { title: 'Sign-up is closed.', detail: 'Ask the site\'s operator for an account.' };
	case 'ACCOUNT_EXISTS':
		return { title: 'There is already an account with this address.', detail: 'Sign in instead.' };
	case 'INVALID_EMAIL':
		return { title: 'That e-mail address does not look right.', detail: d.hint || '' };
	case 'INVALID_PASSWORD':
		return { title: 'The password must be 8 to 256 characters long.', detail: '' };
	case 'INVALID_NAME':
		return { title: 'Give the key a name (up to 128 characters).', detail: '' };
	case 'KEY_LIMIT_REACHED':
		return { title: 'You have as many keys as allowed.', detail: 'Revoke a key you no longer use.' };
	case 'RATE_LIMIT_EXCEEDED':
		return { title: 'Too many attempts.', detail: d.hint || 'Try again later.' };
	default:
		return describeError(res);
	}
}

function fail(box, res) {
	const m = explain(res);
	setMessage(box, 'error', m.title, m.detail);
	box.focus();
	if (res.data && res.data.code === 'NOT_SIGNED_IN')
		start();
}

function when(iso) {
	return iso ? `${formatDate(iso)} (${formatRelative(iso)})` : 'never';
}

/* Sign-in and sign-up */

function formValues(form) {
	return Object.fromEntries(new FormData(form).entries());
}

async function submitAuth(e, path, box, button) {
	e.preventDefault();
	const form = e.target;
	const v = formValues(form);
	button.disabled = true;
	const res = await call('POST', path, { email: v.email || '', password: v.password || '' });
	button.disabled = false;
	if (!res.ok)
		return fail(box, res);
	form.reset();
	setMessage(box, '', '');
	announce(path === 'signup' ? 'Account created; you are signed in.' : 'Signed in.');
	await start();
}

/* Dashboard */

function usageText(u) {
	return `${u.used} of ${u.limit}`;
}

async function loadSecrets() {
	const res = await call('GET', 'my/secrets');
	const box = $('secrets-error');
	if (!res.ok)
		return fail(box, res);
	setMessage(box, '', '');
	const { secrets, usage } = res.data;
	$('usage-hour').textContent = usageText(usage.hour);
	$('usage-day').textContent = usageText(usage.day);
	$('usage-keys').textContent = usageText(usage.apiKeysHour);
	const body = $('secrets-body');
	body.replaceChildren();
	for (const s of secrets) {
		const actions = el('td', {});
		if (s.state === 'active')
			actions.append(confirmButton('Burn', `Burn the secret created ${formatDate(s.createdAt)}?`, async () => {
				const r = await call('DELETE', `my/secrets/${s.id}`);
				if (!r.ok)
					return fail(box, r);
				announce('The secret was burned.');
				await loadSecrets();
			}));
		body.append(el('tr', { 'data-id': String(s.id), 'data-state': s.state },
			el('td', {}, formatDate(s.createdAt)),
			el('td', {}, el('span', { class: `badge ${s.state}`, text: s.state }),
				lastEventText(s) ? el('span', { class: 'sub last-event', text: lastEventText(s) }) : null),
			el('td', { text: String(s.viewCount) }),
			el('td', { text: s.viewsRemaining === null ? 'unlimited' : String(s.viewsRemaining) }),
			el('td', {}, formatDate(s.expiresAt)),
			actions));
	}
	$('secrets-empty').hidden = secrets.length > 0;
	$('secrets-table').hidden = secrets.length === 0;
}

// A button that asks once more before it acts (a second press within 5 s).
function confirmButton(label, question, act) {
	const b = el('button', { type: 'button', class: 'button small danger', text: label });
	let armed = null;
	b.addEventListener('click', async () => {
		if (!armed) {
			b.textContent = 'Press again to confirm';
			b.classList.add('solid');
			b.setAttribute('aria-label', `${question} Press again to confirm.`);
			announce(`${question} Press again to confirm.`);
			armed = setTimeout(() => {
				armed = null;
				b.textContent = label;
				b.classList.remove('solid');
				b.removeAttribute('aria-label');
			}, 5000);
			return;
		}
		clearTimeout(armed);
		armed = null;
		b.disabled = true;
		await act();
		b.disabled = false;
	});
	return b;
}

async function loadKeys() {
	const res = await call('GET', 'keys');
	const box = $('key-error');
	if (!res.ok)
		return fail(box, res);
	const keys = res.data.keys.filter((k) => k.active);
	const body = $('keys-body');
	body.replaceChildren();
	for (const k of keys) {
		body.append(el('tr', { 'data-id': String(k.id) },
			el('td', { text: k.name }),
			el('td', {}, el('code', { text: `${k.prefix}…` })),
			el('td', {}, formatDate(k.createdAt)),
			el('td', {}, when(k.lastUsedAt)),
			el('td', {}, confirmButton('Revoke', `Revoke the key ${k.name}?`, async () => {
				const r = await call('DELETE', `keys/${k.id}`);
				if (!r.ok)
					return fail(box, r);
				announce(`The key ${k.name} was revoked; programs using it now get 401.`);
				await loadKeys();
			}))));
	}
	$('keys-empty').hidden = keys.length > 0;
	$('keys-table').hidden = keys.length === 0;
}

async function createKey(e) {
	e.preventDefault();
	const box = $('key-error');
	const name = $('key-name').value.trim();
	$('new-key').hidden = true;
	if (!name) {
		setMessage(box, 'error', 'Give the key a name.', 'For example what uses it: "CI deploys".');
		return box.focus();
	}
	$('key-create').disabled = true;
	const res = await call('POST', 'keys', { name });
	$('key-create').disabled = false;
	if (!res.ok)
		return fail(box, res);
	setMessage(box, '', '');
	$('key-name').value = '';
	$('new-key-name').textContent = `“${res.data.apiKey.name}”`;
	$('new-key-value').value = res.data.key;
	$('new-key').hidden = false;
	$('new-key-value').focus();
	$('new-key-value').select();
	announce('Key created. Copy it now: it is not shown again.');
	await loadKeys();
}

async function changePassword(e) {
	e.preventDefault();
	const box = $('password-message');
	const v = formValues(e.target);
	$('password-button').disabled = true;
	const res = await call('POST', 'password', { currentPassword: v.currentPassword || '', newPassword: v.newPassword || '' });
	$('password-button').disabled = false;
	if (!res.ok)
		return fail(box, res);
	e.target.reset();
	setMessage(box, 'ok', 'Your password was changed.', 'Your other browsers are signed out.');
	box.focus();
}

async function signOut() {
	const res = await call('DELETE', 'session');
	if (!res.ok && res.data.code !== 'NOT_SIGNED_IN')
		return setMessage($('error-message'), 'error', explain(res).title, explain(res).detail);
	$('new-key').hidden = true;
	$('new-key-value').value = '';
	announce('Signed out.');
	await start();
}

async function showDashboard(s) {
	$('account-email').textContent = s.account.email;
	$('session-expiry').textContent = s.expiresAt ? `This session ends ${formatRelative(s.expiresAt)} unless you use it.` : '';
	await Promise.all([loadKeys(), loadSecrets(), notifyCard($('notify-card'), call, fail)]);
	showView('dashboard-view');
	$('dash-title').focus();
}

// Asks who is signed in and shows the sign-in form or the dashboard.
async function start() {
	const s = await session(true);
	await showAccount($('account-nav'));
	// This page is the dashboard: no link to itself, no sign-in link above the form.
	$('dashboard-link')?.remove();
	$('signin-link')?.remove();
	$('account-nav').hidden = $('account-nav').childElementCount === 0;
	if (s.failed) {
		setMessage($('error-message'), 'error', 'The server could not be reached.', 'Check your connection and try again.');
		showView('error-view');
		return;
	}
	if (!s.signedIn) {
		$('signup-part').hidden = s.signup !== 'open';
		$('signup-closed').hidden = s.signup === 'open';
		showView('signin-view');
		return;
	}
	await showDashboard(s);
}

$('signin-form').addEventListener('submit', (e) => submitAuth(e, 'session', $('signin-error'), $('signin-button')));
$('signup-form').addEventListener('submit', (e) => submitAuth(e, 'signup', $('signup-error'), $('signup-button')));
$('key-form').addEventListener('submit', createKey);
$('copy-key').addEventListener('click', () => copyText($('new-key-value').value, $('copy-key'), $('new-key-value')));
$('password-form').addEventListener('submit', changePassword);
$('signout-button').addEventListener('click', signOut);
$('refresh-secrets').addEventListener('click', () => loadSecrets());
$('retry').addEventListener('click', () => start());
forgotPassword($('forgot-box'), call, $('mail-message'));
// A link from one of our mails (#verify=..., #reset=...) is used first.
const link = mailLink();
if (link) {
	showView('signin-view');
	useMailLink(link, call, $('reset-box'), $('mail-message')).then(() => start());
} else {
	start();
}
