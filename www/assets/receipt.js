// receipt.js: the receipt page. Shows the state of a secret by its receipt key
// (never its content), refreshes on demand, and burns it after confirmation.

import {
	$, el, api, pathKey, describeError, showView, announce, setMessage, msg, localize,
} from './common.js';
import { value, date, time, rel, setTitle } from './i18n.js';

const receiptKey = pathKey();

const STATES = {
	active: { label: 'state.active', badge: 'active' },
	exhausted: { label: 'state.exhausted', badge: 'exhausted' },
	burned: { label: 'state.burned', badge: 'burned' },
	expired: { label: 'state.expired', badge: 'expired' },
};

// The state's name: a Msg, or the API's word for a state this page does not know.
function stateLabel(state) {
	return STATES[state] ? msg(STATES[state].label) : state;
}

function gone(title, text) {
	localize($('gone-title'), title);
	localize($('gone-text'), text);
	setTitle(msg('common.titleOf', { title }));
	document.body.dataset.state = 'gone';
	showView('gone-view');
	announce(title);
}

function when(iso) {
	return [el('span', { text: value(rel(iso)) }), el('span', { class: 'sub', text: value(date(iso)) })];
}

function stateText(m) {
	switch (m.state) {
	case 'active':
		if (!m.viewCount)
			return msg('receipt.notOpened');
		return msg('receipt.opened', { count: m.viewCount });
	case 'exhausted':
		return msg('receipt.exhaustedText');
	case 'burned':
		return msg('receipt.burnedText');
	case 'expired':
		return msg('receipt.expiredText');
	default:
		return '';
	}
}

function render(m) {
	const st = STATES[m.state] || { badge: '' };
	const badge = $('state-badge');
	localize(badge, stateLabel(m.state));
	badge.className = 'badge ' + st.badge;
	localize($('state-text'), stateText(m));
	localize($('r-state'), stateLabel(m.state));
	const used = m.viewCount || 0;
	localize($('r-used'), m.maxViews === null ? value(used) : msg('common.nOfMax', { n: used, max: m.maxViews }));
	localize($('r-left'), m.state !== 'active' ? value(0)
		: m.viewsRemaining === null || m.viewsRemaining === undefined ? msg('common.unlimited')
			: value(m.viewsRemaining));
	if (m.lastViewedAt)
		$('r-last').replaceChildren(...when(m.lastViewedAt));
	else
		localize($('r-last'), msg('receipt.notYet'));
	$('r-created').replaceChildren(...when(m.createdAt));
	$('r-expires').replaceChildren(...when(m.expiresAt));
	localize($('r-passphrase'), msg(m.hasPassphrase ? 'common.yes' : 'common.no'));
	localize($('r-deletable'), msg(m.deletable ? 'common.yes' : 'common.no'));
	$('burn-button').hidden = m.state !== 'active';
	if (m.state !== 'active')
		$('burn-confirm').hidden = true;
	localize($('checked-at'), msg('receipt.checkedAt', { time: time(new Date().toISOString()) }));
	document.body.dataset.state = m.state;
	setTitle(msg('receipt.titleState', { state: stateLabel(m.state) }));
	showView('receipt-view');
}

// Load (or reload) the receipt; returns the metadata or null.
async function load() {
	const res = await api('GET', receiptKey);
	if (res.ok && res.data.type === 'receipt') {
		render(res.data);
		return res.data;
	}
	if (res.ok || res.status === 404 || res.status === 410) {
		gone(msg('receipt.notFound'), msg('receipt.notFoundText'));
		return null;
	}
	const { title, detail } = describeError(res);
	setMessage($('error-message'), 'error', title, detail);
	document.body.dataset.state = 'error';
	showView('error-view');
	return null;
}

$('refresh').addEventListener('click', async () => {
	const b = $('refresh');
	b.disabled = true;
	localize(b, msg('receipt.refreshing'));
	setMessage($('receipt-message'), '', '');
	const m = await load();
	b.disabled = false;
	localize(b, msg('common.refresh'));
	if (m) {
		b.focus();
		announce(msg('receipt.updated', { state: stateLabel(m.state) }), stateText(m));
	}
});

$('burn-button').addEventListener('click', () => {
	$('burn-confirm').hidden = false;
	$('burn-yes').focus();
});
$('burn-no').addEventListener('click', () => {
	$('burn-confirm').hidden = true;
	$('burn-button').focus();
});
$('burn-confirm').addEventListener('keydown', (e) => {
	if (e.key === 'Escape') {
		$('burn-confirm').hidden = true;
		$('burn-button').focus();
	}
});
$('burn-yes').addEventListener('click', async (e) => {
	if (!e.isTrusted)
		return;
	$('burn-yes').disabled = true;
	const res = await api('DELETE', receiptKey);
	$('burn-yes').disabled = false;
	$('burn-confirm').hidden = true;
	const box = $('receipt-message');
	if (res.ok) {
		await load();
		setMessage(box, 'ok', msg('common.burned'), msg('receipt.burnedDetail'));
		box.focus();
		return;
	}
	const { title, detail } = describeError(res);
	if (res.status === 410 || res.status === 404)
		await load();
	setMessage(box, 'error', title, detail);
	box.focus();
});

$('retry').addEventListener('click', () => {
	showView('loading-view');
	load();
});

if (!receiptKey)
	gone(msg('receipt.badLink'), msg('receipt.badLinkText'));
else
	load();
