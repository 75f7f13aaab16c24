// admin.js: the operator's page /admin (docs/ADMIN.md, "The admin page"),
// over the operator's API (docs/API.md, "The operator's API"): the overview,
// accounts (find, page, create, disable, enable, the admin role, a reset mail,
// the second factor, delete; their keys and webhooks), the activity of the
// audit trail and the clients of the rate limiter. Never a secret's content,
// a key or a token: the API answers none.

import { $, el, showView, announce, setMessage, describeError, msg, localize } from './common.js';
import { date, rel } from './i18n.js';
import { call, session, showAccount } from './account.js';

const STATES = { disabled: 'admin.disabled', enabled: 'admin.enabled' };

function explain(res) {
	const d = res.data || {};
	switch (d.code) {
	case 'REAUTH_REQUIRED':
		return { title: msg('admin.confirmNeeded'), detail: '' };
	case 'INVALID_CREDENTIALS':
		return { title: msg('error.credentials.title'), detail: msg('error.credentials.detail') };
	case 'NOT_SIGNED_IN':
		return { title: msg('error.signedOut.title'), detail: msg('error.signedOut.detail') };
	case 'CSRF_REJECTED':
		return { title: msg('error.csrf.title'), detail: msg('error.csrf.detail') };
	default:
		return describeError(res);
	}
}

function fail(res) {
	const box = $('admin-message');
	const m = explain(res);
	setMessage(box, 'error', m.title, m.detail);
	box.focus();
	if (res.data && (res.data.code === 'NOT_SIGNED_IN' || res.data.code === 'NOT_ADMIN'))
		start();
}

function done() {
	setMessage($('admin-message'), '', '');
	announce(msg('admin.done'));
}

function when(iso) {
	return iso ? msg('dash.dateAndRelative', { date: date(iso), when: rel(iso) }) : msg('dash.never');
}

function query(params) {
	const q = new URLSearchParams();
	for (const [k, v] of Object.entries(params))
		if (v !== undefined && v !== null && v !== '')
			q.set(k, v);
	const s = q.toString();
	return s ? '?' + s : '';
}

// The password field of the page, for the actions that take something away.
function confirmation() {
	const v = $('confirm-password').value;
	return v ? { currentPassword: v } : {};
}

/* Overview */

async function loadOverview() {
	const res = await call('GET', 'admin/overview');
	if (!res.ok)
		return fail(res);
	const o = res.data;
	const h = o.health;
	localize($('ov-health'), h.status === 'ok' ? msg('admin.healthOk') :
		msg('admin.healthFail', { checks: h.failed.join(', ') }));
	localize($('ov-version'), [o.version, o.backend, o.schemaVersion].join(' · '));
	localize($('ov-secrets'), String(o.secrets.active));
	localize($('ov-accounts'), String(o.accounts));
	localize($('ov-keys'), String(o.apiKeys.valid));
	localize($('ov-outbox'), String(o.outbox.pending));
	localize($('ov-cleanup'), when(o.cleanup.lastRun));
	localize($('ov-limiter'), o.limiter.capacity ? msg('common.nOfMax', { n: o.limiter.entries, max: o.limiter.capacity }) :
		String(o.limiter.entries));
	$('ov-settings').textContent = JSON.stringify(o.settings, null, 2);
}

/* Accounts */

let accountsNext = null;
let current = null;	// the account open in the detail

function stateOf(a) {
	return msg(a.disabledAt ? STATES.disabled : STATES.enabled);
}

function accountRow(a) {
	const open = el('button', { type: 'button', class: 'button small', text: msg('admin.open'),
		'aria-label': msg('admin.openName', { name: a.name }) });
	open.addEventListener('click', () => openAccount(a.id));
	return el('tr', {},
		el('td', { dir: 'auto' }, a.name, a.admin ? el('span', { class: 'tag', text: msg('admin.isAdmin') }) : null),
		el('td', { text: stateOf(a) }),
		el('td', { text: String(a.activeKeys) }),
		el('td', {}, open));
}

async function searchAccounts(more) {
	const q = $('search-q').value.trim();
	const res = await call('GET', 'admin/accounts' + query({ q, after: more ? accountsNext : null }));
	if (!res.ok)
		return fail(res);
	const body = $('accounts-body');
	if (!more)
		body.replaceChildren();
	for (const a of res.data.accounts)
		body.append(accountRow(a));
	accountsNext = res.data.next;
	$('accounts-more').hidden = !accountsNext;
	$('accounts-empty').hidden = body.childElementCount > 0;
	announce(msg('admin.found', { n: body.childElementCount }));
}

async function createAccount(e) {
	e.preventDefault();
	const name = $('create-name').value.trim();
	const res = await call('POST', 'admin/accounts', { name });
	if (!res.ok)
		return fail(res);
	$('create-name').value = '';
	done();
	await openAccount(res.data.account.id);
}

function keyRow(k) {
	const cells = [el('td', { dir: 'auto', text: k.name }), el('td', { dir: 'ltr' }, el('code', { text: k.prefix + '…' })),
		el('td', { text: when(k.lastUsedAt) })];
	if (k.revokedAt)
		cells.push(el('td', { text: msg('admin.revoked') }));
	else {
		const b = el('button', { type: 'button', class: 'button small danger', text: msg('dash.revoke'),
			'aria-label': msg('dash.revokeQuestion', { name: k.name || k.prefix }) });
		b.addEventListener('click', async () => {
			const res = await call('DELETE', `admin/keys/${k.id}`, confirmation());
			if (!res.ok)
				return fail(res);
			done();
			await openAccount(current);
		});
		cells.push(el('td', {}, b));
	}
	return el('tr', {}, ...cells);
}

function hookRow(w) {
	const b = el('button', { type: 'button', class: 'button small danger', text: msg('admin.deleteWebhook'),
		'aria-label': msg('admin.deleteWebhookOf', { host: w.host }) });
	b.addEventListener('click', async () => {
		const res = await call('DELETE', `admin/webhooks/${w.id}`, confirmation());
		if (!res.ok)
			return fail(res);
		done();
		await openAccount(current);
	});
	return el('tr', {}, el('td', { dir: 'ltr', text: w.host }), el('td', { text: when(w.createdAt) }), el('td', {}, b));
}

async function openAccount(id) {
	const res = await call('GET', `admin/accounts/${id}`);
	if (!res.ok)
		return fail(res);
	current = id;
	const { account: a, email, secondFactor, keys, webhooks } = res.data;
	localize($('detail-title'), a.name);
	localize($('detail-state'), stateOf(a));
	localize($('detail-admin'), msg(a.admin ? 'common.yes' : 'common.no'));
	localize($('detail-email'), email ? email.address : msg('admin.none'));
	localize($('detail-2fa'), msg(secondFactor ? 'common.yes' : 'common.no'));
	$('act-disable').hidden = !!a.disabledAt;
	$('act-enable').hidden = !a.disabledAt;
	$('act-admin-on').hidden = a.admin;
	$('act-admin-off').hidden = !a.admin;
	$('act-reset-2fa').hidden = !secondFactor;
	$('keys-body').replaceChildren(...keys.map(keyRow));
	$('hooks-body').replaceChildren(...webhooks.map(hookRow));
	$('account-detail').hidden = false;
	$('detail-title').focus();
}

async function act(action) {
	const res = await call('POST', `admin/accounts/${current}`, { action, ...confirmation() });
	if (!res.ok)
		return fail(res);
	done();
	await openAccount(current);
	await searchAccounts(false);
}

async function deleteAccount() {
	const res = await call('DELETE', `admin/accounts/${current}`, confirmation());
	if (!res.ok)
		return fail(res);
	$('account-detail').hidden = true;
	current = null;
	done();
	await searchAccounts(false);
	$('accounts-title').focus();
}

/* Activity */

let eventsNext = null;

function filters() {
	const f = Object.fromEntries(new FormData($('activity-form')).entries());
	for (const k of Object.keys(f))
		f[k] = f[k].trim();
	return f;
}

function actorOf(e) {
	if (e.operator)
		return msg('admin.byOperator', { name: e.operator });
	if (e.accountId)
		return msg(e.apiKeyId ? 'admin.byAccountKey' : 'admin.byAccount', { id: e.accountId, key: e.apiKeyId });
	return msg('admin.anonymous');
}

function eventRow(e) {
	return el('tr', {},
		el('td', { text: msg('dash.dateAndRelative', { date: date(e.at), when: rel(e.at) }) }),
		el('td', { dir: 'ltr' }, el('code', { text: e.kind })),
		el('td', { text: actorOf(e) }),
		el('td', { dir: 'ltr', text: e.outcome }),
		el('td', { dir: 'ltr', text: [e.receiptId, e.detail].filter(Boolean).join(' ') }));
}

async function loadEvents(more) {
	const f = filters();
	const res = await call('GET', 'admin/activity' + query({ ...f, before: more ? eventsNext : null }));
	if (!res.ok)
		return fail(res);
	const body = $('events-body');
	if (!more)
		body.replaceChildren();
	for (const e of res.data.events)
		body.append(eventRow(e));
	eventsNext = res.data.next;
	$('events-more').hidden = !eventsNext;
	$('events-empty').hidden = body.childElementCount > 0;
	$('activity-csv').href = 'api/admin/activity' + query({ ...f, limit: 200, format: 'csv' });
	announce(msg('admin.found', { n: body.childElementCount }));
}

/* Clients */

let clientIp = null;

function showClient(data) {
	clientIp = data.client;
	$('client-body').replaceChildren(...data.windows.map((w) =>
		el('tr', {}, el('td', { dir: 'ltr', text: w.op }), el('td', { text: msg('common.nOfMax', { n: w.count, max: w.limit }) }))));
	$('client-result').hidden = false;
}

async function lookUp(e) {
	e.preventDefault();
	const res = await call('GET', 'admin/clients' + query({ ip: $('client-ip').value.trim() }));
	if (!res.ok)
		return fail(res);
	setMessage($('admin-message'), '', '');
	showClient(res.data);
}

async function setClient(action) {
	const res = await call('POST', 'admin/clients', { ip: clientIp, action, ...confirmation() });
	if (!res.ok)
		return fail(res);
	done();
	showClient(res.data);
}

/* The page */

function refused(title, detail) {
	localize($('refused-title'), msg(title));
	localize($('refused-detail'), msg(detail));
	showView('refused-view');
	$('refused-title').focus();
}

async function start() {
	const s = await session(true);
	showAccount($('account-nav'));
	if (s.failed) {
		setMessage($('error-message'), 'error', msg('admin.errorTitle'), '');
		return showView('error-view');
	}
	if (!s.signedIn)
		return refused('admin.signedOutTitle', 'admin.signedOutDetail');
	const res = await call('GET', 'admin/overview');
	if (!res.ok && res.data.code === 'NOT_ADMIN')
		return refused('admin.notAdminTitle', 'admin.notAdminDetail');
	if (!res.ok) {
		const m = explain(res);
		setMessage($('error-message'), 'error', m.title, m.detail);
		return showView('error-view');
	}
	showView('admin-view');
	await Promise.all([loadOverview(), searchAccounts(false), loadEvents(false)]);
}

$('refresh-overview').addEventListener('click', loadOverview);
$('search-form').addEventListener('submit', (e) => { e.preventDefault(); searchAccounts(false); });
$('accounts-more').addEventListener('click', () => searchAccounts(true));
$('create-form').addEventListener('submit', createAccount);
for (const b of document.querySelectorAll('#account-detail [data-action]'))
	b.addEventListener('click', () => act(b.dataset.action));
$('act-delete').addEventListener('click', deleteAccount);
$('activity-form').addEventListener('submit', (e) => { e.preventDefault(); loadEvents(false); });
$('events-more').addEventListener('click', () => loadEvents(true));
$('client-form').addEventListener('submit', lookUp);
$('client-unblock').addEventListener('click', () => setClient('unblock'));
$('client-block').addEventListener('click', () => setClient('block'));
$('retry').addEventListener('click', () => start());
start();
