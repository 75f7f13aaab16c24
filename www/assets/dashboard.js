// dashboard.js: the account dashboard: sign-in and sign-up, API keys (create,
// shown once; list; revoke), "my secrets" (receipts only; burn), usage against
// the account limits, password change and sign-out, and the account's
// activity (GET /api/my/events, paged by its cursor).

import {
	$, el, showView, announce, setMessage, copyText, describeError, msg, localize, localizeAttr,
	retryAfterSeconds,
} from './common.js';
import { value, date, rel, seconds } from './i18n.js';
import { call, session, showAccount } from './account.js';
import { notifyCard, lastEventText, mailLink, useMailLink, forgotPassword } from './notify.js';
import { totpCard } from './totp.js';

// Plain words for the account error codes; the rest as the other pages say them.
function explain(res) {
	const d = res.data || {};
	switch (d.code) {
	case 'INVALID_CREDENTIALS':
		return { title: msg('error.credentials.title'), detail: msg('error.credentials.detail') };
	case 'INVALID_CODE':
		return { title: msg('error.totpCode.title'), detail: msg('error.totpCode.detail') };
	case 'TOTP_REQUIRED':
		return { title: msg('totp.signinCode'), detail: '' };
	case 'NOT_SIGNED_IN':
		return { title: msg('error.signedOut.title'), detail: msg('error.signedOut.detail') };
	case 'CSRF_REJECTED':
		return { title: msg('error.csrf.title'), detail: msg('error.csrf.detail') };
	case 'SIGNUP_CLOSED':
		return { title: msg('error.signupClosed.title'), detail: msg('error.signupClosed.detail') };
	case 'ACCOUNT_EXISTS':
		return { title: msg('error.accountExists.title'), detail: msg('error.accountExists.detail') };
	case 'INVALID_EMAIL':
		return { title: msg('error.email.title'), detail: msg('error.email.detail') };
	case 'INVALID_PASSWORD':
		return { title: msg('error.password.title', { min: 8, max: 256 }), detail: '' };
	case 'INVALID_NAME':
		return { title: msg('error.keyName.title', { max: 128 }), detail: '' };
	case 'KEY_LIMIT_REACHED':
		return { title: msg('error.keyLimit.title'), detail: msg('error.keyLimit.detail') };
	case 'RATE_LIMIT_EXCEEDED': {
		// in the page's language, as describeError() does: the code is known
		const wait = res.headers ? retryAfterSeconds(res.headers) : null;
		return { title: msg('error.attemptsAccount.title'),
			detail: wait ? msg('error.rate.detailWait', { wait: seconds(wait) }) : msg('error.rate.detail') };
	}
	default:
		return describeError(res);
	}
}

// The names of the secrets' states (the API's words: docs/API.md).
const STATES = {
	active: 'state.active', exhausted: 'state.exhausted', burned: 'state.burned', expired: 'state.expired',
};

function fail(box, res) {
	const m = explain(res);
	setMessage(box, 'error', m.title, m.detail);
	box.focus();
	if (res.data && res.data.code === 'NOT_SIGNED_IN')
		start();
}

function when(iso) {
	return iso ? msg('dash.dateAndRelative', { date: date(iso), when: rel(iso) }) : msg('dash.never');
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
	const body = { email: v.email || '', password: v.password || '' };
	// an account with a second factor: the code too, once the server asked for it
	if (path === 'session' && !$('signin-code-field').hidden)
		body.code = (v.code || '').trim();
	const res = await call('POST', path, body);
	button.disabled = false;
	if (!res.ok && res.data.code === 'TOTP_REQUIRED') {
		$('signin-code-field').hidden = false;
		setMessage(box, '', '');
		announce(msg('totp.signinCode'));
		return $('signin-code').focus();
	}
	if (!res.ok)
		return fail(box, res);
	$('signin-code-field').hidden = true;
	form.reset();
	setMessage(box, '', '');
	announce(msg(path === 'signup' ? 'dash.accountCreated' : 'dash.signedIn'));
	await start();
}

/* Dashboard */

function usageText(u) {
	return msg('common.nOfMax', { n: u.used, max: u.limit });
}

async function loadSecrets() {
	const res = await call('GET', 'my/secrets');
	const box = $('secrets-error');
	if (!res.ok)
		return fail(box, res);
	setMessage(box, '', '');
	const { secrets, usage } = res.data;
	localize($('usage-hour'), usageText(usage.hour));
	localize($('usage-day'), usageText(usage.day));
	localize($('usage-keys'), usageText(usage.apiKeysHour));
	const body = $('secrets-body');
	body.replaceChildren();
	for (const s of secrets) {
		const actions = el('td', {});
		if (s.state === 'active')
			actions.append(confirmButton(msg('dash.burn'), msg('dash.burnQuestion', { date: date(s.createdAt) }), async () => {
				const r = await call('DELETE', `my/secrets/${s.id}`);
				if (!r.ok)
					return fail(box, r);
				announce(msg('dash.burnedAnnounce'));
				await loadSecrets();
			}));
		body.append(el('tr', { 'data-id': String(s.id), 'data-state': s.state },
			el('td', { text: value(date(s.createdAt)) }),
			el('td', {}, el('span', { class: `badge ${s.state}`, text: STATES[s.state] ? msg(STATES[s.state]) : s.state }),
				lastEventText(s) ? el('span', { class: 'sub last-event', text: lastEventText(s) }) : null),
			el('td', { text: value(s.viewCount) }),
			el('td', { text: s.viewsRemaining === null ? msg('dash.unlimited') : value(s.viewsRemaining) }),
			el('td', { text: value(date(s.expiresAt)) }),
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
			localize(b, msg('dash.pressAgain'));
			b.classList.add('solid');
			localizeAttr(b, 'aria-label', msg('dash.confirmLabel', { question }));
			announce(question, msg('dash.pressAgainAnnounce'));
			armed = setTimeout(() => {
				armed = null;
				localize(b, label);
				b.classList.remove('solid');
				b.removeAttribute('aria-label');
				b.removeAttribute('data-i18n-aria-label');
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
			el('td', {}, el('code', { text: `${k.prefix}…`, dir: 'ltr' })),
			el('td', { text: value(date(k.createdAt)) }),
			el('td', { text: when(k.lastUsedAt) }),
			el('td', {}, confirmButton(msg('dash.revoke'), msg('dash.revokeQuestion', { name: k.name }), async () => {
				const r = await call('DELETE', `keys/${k.id}`);
				if (!r.ok)
					return fail(box, r);
				announce(msg('dash.revokedAnnounce', { name: k.name }));
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
		setMessage(box, 'error', msg('dash.keyNameMissing'), msg('dash.keyNameMissingDetail'));
		return box.focus();
	}
	$('key-create').disabled = true;
	const res = await call('POST', 'keys', { name });
	$('key-create').disabled = false;
	if (!res.ok)
		return fail(box, res);
	setMessage(box, '', '');
	$('key-name').value = '';
	localize($('new-key-name'), msg('dash.quoted', { name: res.data.apiKey.name }));
	$('new-key-value').value = res.data.key;
	$('new-key').hidden = false;
	$('new-key-value').focus();
	$('new-key-value').select();
	announce(msg('dash.keyCreatedAnnounce'));
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
	setMessage(box, 'ok', msg('dash.passwordChanged'), msg('dash.passwordChangedDetail'));
	box.focus();
}

async function signOut() {
	// Signed in by the web server: its module's session ends too, at its logout address.
	const s = await session();
	const logout = s.via === 'webServer' && s.signIn && s.signIn.logoutUrl;
	const res = await call('DELETE', 'session');
	if (!res.ok && res.data.code !== 'NOT_SIGNED_IN')
		return setMessage($('error-message'), 'error', explain(res).title, explain(res).detail);
	if (logout)
		return location.assign(logout);
	$('new-key').hidden = true;
	$('new-key-value').value = '';
	announce(msg('dash.signedOut'));
	await start();
}

/* Activity: the account's audit events, a page at a time (docs/API.md, "Activity"). */
const ACTORS = { account: 'dash.actorYou', apikey: 'dash.actorKey', operator: 'dash.actorOperator',
	other: 'dash.actorNobody', anonymous: 'dash.actorNobody' };
const OUTCOMES = { refused: 'dash.outcomeRefused', limited: 'dash.outcomeLimited', failed: 'dash.outcomeFailed' };
let activityCursor = null;

async function loadActivity(more = false) {
	const q = more && activityCursor ? `?limit=20&cursor=${encodeURIComponent(activityCursor)}` : '?limit=20';
	const res = await call('GET', `my/events${q}`);
	const box = $('activity-error');
	if (!res.ok)
		return fail(box, res);
	setMessage(box, '', '');
	const body = $('activity-body');
	if (!more)
		body.replaceChildren();
	for (const e of res.data.events) {
		const by = ACTORS[e.actor] ? msg(ACTORS[e.actor]) : e.actor;
		body.append(el('tr', { 'data-id': String(e.id), 'data-kind': e.kind },
			el('td', { text: value(date(e.at)) }),
			el('td', {}, el('code', { translate: 'no', dir: 'ltr', text: e.kind }),
				OUTCOMES[e.outcome] ? el('span', { class: 'badge burned', text: msg(OUTCOMES[e.outcome]) }) : null,
				e.detail ? el('span', { class: 'sub', translate: 'no', dir: 'ltr', text: e.detail }) : null),
			el('td', { text: e.apiKeyId && e.actor === 'apikey' ? `${by} #${value(e.apiKeyId)}` : by }),
			el('td', {}, e.client ? el('code', { translate: 'no', dir: 'ltr', text: e.client }) : null)));
	}
	activityCursor = res.data.nextCursor;
	$('activity-more').hidden = !activityCursor;
	const none = body.childElementCount === 0;
	$('activity-empty').hidden = !none;
	$('activity-table').hidden = none;
}

async function showDashboard(s) {
	$('account-email').textContent = s.account.email;
	// signed in by the web server: the password, if any, is not how this person signs in
	$('password-box').hidden = s.via === 'webServer';
	localize($('session-expiry'), s.expiresAt ? msg('dash.sessionEnds', { when: rel(s.expiresAt) }) : '');
	await Promise.all([loadKeys(), loadSecrets(), loadActivity(), notifyCard($('notify-card'), call, fail, s),
		totpCard($('totp-card'), call, fail, s)]);
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
		setMessage($('error-message'), 'error', msg('error.network.title'), msg('error.network.detail'));
		showView('error-view');
		return;
	}
	if (!s.signedIn) {
		// Password sign-in may be off where the web server signs people in.
		const password = !s.signIn || s.signIn.password;
		$('signin-form').hidden = !password;
		$('forgot-box').hidden = !password;
		$('signup-part').hidden = !password || s.signup !== 'open';
		$('signup-closed').hidden = !password || s.signup === 'open';
		const box = $('webserver-message');
		if (s.refused)	// the hint says why (a group, a domain, no account)
			setMessage(box, 'error', msg('error.webServerRefused.title'), s.refused.hint || '');
		else if (!password)
			setMessage(box, '', msg('dash.webServerOnly'), '');
		else
			setMessage(box, '', '', '');
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
$('refresh-activity').addEventListener('click', () => loadActivity());
$('activity-more').addEventListener('click', () => loadActivity(true));
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
